// FalkorDB's own: its memories hold no search token before store format 15 (Neo4j's did: ../../migrations).
// Store format 15: the scope's observations and fact records carry its search token in their fulltext indexes (phrase
// memory_tokens), the scope's while current, its history token once expired (as writes store them: phrase
// memory_token_property), where they carry another or none: at most $limit of each kind a statement, so a large
// scope's upgrade is many short writes (engine/migrations.py repeats it while a kind fills its page). A MATCH, not an
// OPTIONAL MATCH (see set_scope_tokens).
CALL {
  MATCH (o:Observation {scope: $scope})
  WITH o, CASE WHEN o.expired_at IS NULL THEN $scope_token ELSE {{history_token($scope_token)}} END AS token
  WHERE coalesce(o.scope_token, '') <> token
  WITH o, token LIMIT $limit
  SET o.scope_token = intern(token)
  RETURN count(o) AS observations
}
CALL {
  MATCH (:Entity {scope: $scope})-[r:FACT]->(:Entity)
  WITH r, CASE WHEN r.expired_at IS NULL THEN $scope_token ELSE {{history_token($scope_token)}} END AS token
  WHERE coalesce(r.scope_token, '') <> token
  WITH r, token LIMIT $limit
  SET r.scope_token = intern(token)
  RETURN count(r) AS records
}
RETURN observations, records, observations + records AS updated
