// The form of writes/apply_plan.cypher for a write that only adds: new entities and new fact records
// (no record expired or updated, no aliases, merges, observations, sessions, rejections), as an
// upsert of new facts is. What it keeps is apply_plan's text (see writes/apply_facts.cypher).
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
