// Store format 14: the scope's expired memories (observations forgotten, fact records corrected or closed since)
// carry its history token (phrase history_token of $scope_token) where they carried none, which Neo4j's fulltext
// indexes hold beside their words: a recall as believed at an earlier time ($known_at) asks for it too
// (phrase memory_tokens), so it finds the memories expired since; a current search never does.
OPTIONAL MATCH (o:Observation {scope: $scope}) {{scope_seek(o, Observation, id)}} o.expired_at IS NOT NULL
  AND coalesce(o.scope_token, '') <> {{history_token($scope_token)}}
SET o.scope_token = {{history_token($scope_token)}}
WITH count(o) AS observations
OPTIONAL MATCH (:Entity {scope: $scope})-[r:FACT]->(:Entity)
WHERE r.expired_at IS NOT NULL AND coalesce(r.scope_token, '') <> {{history_token($scope_token)}}
SET r.scope_token = {{history_token($scope_token)}}
WITH observations, count(r) AS records
RETURN observations + records AS updated
