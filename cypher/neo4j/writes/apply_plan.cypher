// Neo4j form of ../../writes/apply_plan.cypher (tests/unit/test_catalogue.py keeps the two equivalent):
// CALL (s) scope clauses instead of an importing WITH, which Neo4j 5 deprecates, and datetime() around
// the instants inside lists, which arrive as ISO-8601 text (see backends/neo4j.py).
// Applies one planned batch atomically: the scope's counters and rules, new entities, aliases and
// merges, expired, updated and created fact records, rejections and the audit entry. The scope's
// version guards against a writer that planned without holding the scope's lock: if it moved since
// the plan was read, nothing is written and no row comes back, so the caller plans again.
{{scope_state_for_write}}
// Writing first takes the scope's write lock (Neo4j), so the version read next is the committed one.
SET st.locked_by = $batch
// Counters are read into variables before they are set: Neo4j deadlocks writers that queue on the scope
// when its holder writes `SET st.x = st.x + 1` in a later statement of the transaction.
WITH s, st, st.version AS version, st.facts AS facts, coalesce(st.candidates, 0) AS candidates, st.entities AS entities,
     st.tombstones AS tombstones
WHERE version = $version
SET st.version = version + 1, st.facts = facts + $fact_delta, st.candidates = candidates + $candidate_delta,
    st.entities = entities + $entity_delta, st.last_batch = $batch, st.updated_at = $now,
    st.tombstones = tombstones + size($tombstones)
SET st += $rules
WITH s, st
CALL (s) {
  UNWIND $entities AS x
  // Entities the plan found missing while holding the scope's lock, created with their properties (on
  // FalkorDB a SET after CREATE waits for a merge of the graph's node labels: fragments/new_audit_entry).
  CREATE (n:Entity {scope: $scope, key: x.key, name: x.name, type: x.type,
                    aliases: x.aliases, created_at: datetime(x.created_at), updated_at: datetime(x.updated_at),
                    search_text: x.search_text, scope_token: $scope_token})
}
CALL (s) {
  UNWIND $retarget AS x
  MATCH (al:Alias {scope: $scope})
  WHERE al.target = x.from
  SET al.target = x.to
}
CALL (s) {
  UNWIND $retarget AS x
  MATCH (t:Tombstone {scope: $scope})
  WHERE t.subject = x.from OR t.object = x.from
  SET t.subject = CASE WHEN t.subject = x.from THEN x.to ELSE t.subject END,
      t.object = CASE WHEN t.object = x.from THEN x.to ELSE t.object END
}
CALL (s) {
  UNWIND $retarget AS x
  MATCH (o:Observation {scope: $scope})
  WHERE o.entity = x.from
  SET o.entity = x.to
}
CALL (s) {
  UNWIND $aliases AS x
  MERGE (al:Alias {scope: $scope, key: x.key})
  SET al.name = x.name, al.target = x.target, al.search_text = x.search_text, al.scope_token = $scope_token
}
CALL (s) {
  UNWIND $alias_names AS x
  MATCH (n:Entity {scope: $scope, key: x.key})
  SET n.aliases = coalesce(n.aliases, []) + x.names, n.updated_at = $now
}
CALL (s) {
  UNWIND $expires AS id
  MATCH ()-[r:FACT {id: id}]->()
  WHERE startNode(r).scope = $scope AND r.expired_at IS NULL
  SET r.expired_at = $now
}
CALL (s) {
  UNWIND $updates AS x
  MATCH ()-[r:FACT {id: x.id}]->()
  WHERE startNode(r).scope = $scope AND r.expired_at IS NULL
  SET r.confirmations = x.confirmations, r.confidence = x.confidence, r.status = x.status, r.flag = x.flag,
      r.confirmed_at = datetime(x.confirmed_at), r.pinned = x.pinned
}
CALL (s) {
  // New records between entities this write found, sought by their node ids (read holding the scope's
  // lock: only a write to this scope deletes its entities, and such a write moves the version checked above).
  UNWIND $creates_by_id AS x
  MATCH (a) WHERE elementId(a) = x.a
  MATCH (b) WHERE elementId(b) = x.b
  WITH x, a, b
  WHERE a:Entity AND a.scope = $scope AND a.key = x.subject AND b:Entity AND b.scope = $scope AND b.key = x.object
  CREATE (a)-[r:FACT]->(b)
  {{new_fact_record}}
}
// New records with an entity this write creates (or found through an alias, or in a small write), sought
// by key (the slimmer forms keep this sub-query only).
CALL (s) {
  UNWIND $creates AS x
  MATCH (a:Entity {scope: $scope, key: x.subject})
  MATCH (b:Entity {scope: $scope, key: x.object})
  CREATE (a)-[r:FACT]->(b)
  {{new_fact_record}}
}
CALL (s) {
  UNWIND $observe AS x
  CREATE (o:Observation)
  SET o = x, o.recorded_at = datetime(x.recorded_at), o.expired_at = datetime(x.expired_at),
      o.scope_token = CASE WHEN x.expired_at IS NULL THEN $scope_token END
}
CALL (s) {
  UNWIND $unobserve AS id
  MATCH (o:Observation {scope: $scope, id: id})
  WHERE o.expired_at IS NULL
  // Out of the search with its token (see recall/search_lexical).
  SET o.expired_at = $now, o.scope_token = null
}
CALL (s) {
  UNWIND $sessions AS x
  MERGE (n:Session {scope: $scope, id: x.id})
  ON CREATE SET n.registered_at = datetime(x.registered_at), n.expires_at = datetime(x.expires_at)
  SET n.revoked_at = coalesce(n.revoked_at, datetime(x.revoked_at))
}
CALL (s) {
  UNWIND $tombstones AS x
  CREATE (t:Tombstone)
  SET t = x, t.rejected_at = datetime(x.rejected_at)
}
CALL (s) {
  UNWIND $audit AS x
  CREATE (entry:Audit {{new_audit_entry}})
}
CALL (s) {
  UNWIND $deletes AS k
  MATCH (n:Entity {scope: $scope, key: k})
  DETACH DELETE n
}
RETURN st.version AS version
