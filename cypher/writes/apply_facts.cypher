// The common write's form of writes/apply_plan.cypher: a write that only creates entities and
// creates, expires or updates fact records (no aliases, merges, observations, sessions, rejections),
// as nearly every upsert is. The empty sub-queries it leaves out still cost a statement their
// planning and execution (measured: see engine/writes.py); what it keeps is the same text.
{{scope_state_for_write}}
// Writing first takes the scope's write lock (Neo4j), so the version read next is the committed one.
SET st.locked_by = $batch
// Counters are read into variables before they are set: Neo4j deadlocks writers that queue on the scope
// when its holder writes `SET st.x = st.x + 1` in a later statement of the transaction.
WITH s, st, st.version AS version, st.facts AS facts, coalesce(st.candidates, 0) AS candidates, st.entities AS entities,
     coalesce(st.expired, 0) AS expired, coalesce(st.ended, 0) AS ended
WHERE version = $version
SET st.version = version + 1, st.facts = facts + $fact_delta, st.candidates = candidates + $candidate_delta,
    st.expired = expired + $expired_delta, st.ended = ended + $ended_delta,
    st.entities = entities + $entity_delta, st.last_batch = $batch, st.updated_at = $now
SET st += $rules
{{grow}}
WITH s, st
{{call(s)}}
  UNWIND $entities AS x
  // Entities the plan found missing while holding the scope's lock, created with their properties (on
  // FalkorDB a SET after CREATE waits for a merge of the graph's node labels: fragments/new_audit_entry).
  CREATE (n:Entity {{new_entity}})
}
{{call(s)}}
  UNWIND $expires AS id
  MATCH ()-[r:FACT {id: id}]->()
  WHERE startNode(r).scope = $scope AND r.expired_at IS NULL
  // Out of the search with its token, if the dialect stores one (see recall/memory_lexical).
  SET r.expired_at = $now{{expired_token_property(r, $scope_token)}}
}
{{call(s)}}
  UNWIND $updates AS x
  MATCH ()-[r:FACT {id: x.id}]->()
  WHERE startNode(r).scope = $scope AND r.expired_at IS NULL
  {{updated_fact_record}}
}
{{call(s)}}
  UNWIND $creates AS x
  MATCH (a:Entity {scope: $scope, key: x[0]})
  MATCH (b:Entity {scope: $scope, key: x[1]})
  WITH a, b, x, $kinds[x[2]] AS k
  CREATE (a)-[r:FACT {{new_fact_record}}]->(b)
}
{{call(s)}}
  {{count_records}}
}
{{call(s)}}
  UNWIND $audit AS x
  CREATE (entry:Audit {{new_audit_entry}})
}
RETURN st.version AS version
