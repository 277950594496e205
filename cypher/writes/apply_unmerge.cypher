// Undoes one merge atomically (engine/unmerge.py): deletes the records the merge created (and the copies
// of those it restores), brings the merged-away entity back with its own key, takes its name off the aliases
// and points its aliases, observations and rejections back at it, sets the kept entity's alias names, creates
// the restored records (both entities' as they were before the merge) and the audit entry. The scope's version
// guards it as it guards every write (writes/apply_plan.cypher). The entries recorded up to now show no stored
// values of records (st.values_from: changes/change_entries reads the records, moved and renamed).
{{scope_state_for_write}}
SET st.locked_by = $batch
WITH s, st, st.version AS version, st.facts AS facts, coalesce(st.candidates, 0) AS candidates, st.entities AS entities,
     coalesce(st.expired, 0) AS expired, coalesce(st.ended, 0) AS ended,
     st.tombstones AS tombstones
WHERE version = $version
SET st.version = version + 1, st.facts = facts + $fact_delta, st.candidates = candidates + $candidate_delta,
    st.expired = expired + $expired_delta, st.ended = ended + $ended_delta,
    st.entities = entities + size($entities), st.last_batch = $batch, st.updated_at = $now,
    st.tombstones = tombstones + size($tombstones), st.values_from = {{instant($now)}}
{{grow}}
WITH s, st
{{call(s)}}
  UNWIND $deletes AS id
  MATCH ()-[r:FACT {id: id}]->()
  WHERE startNode(r).scope = $scope
  DELETE r
}
{{call(s)}}
  UNWIND $drop_aliases AS k
  MATCH (al:Alias {scope: $scope, key: k})
  DELETE al
}
{{call(s)}}
  UNWIND $entities AS x
  CREATE (n:Entity {{new_entity}})
}
{{call(s)}}
  UNWIND $aliases AS x
  MERGE (al:Alias {scope: $scope, key: x.key})
  SET al.name = x.name, al.target = x.target, al.search_text = x.search_text, al.grams = x.grams{{token_property(al, $scope_token)}}
}
{{call(s)}}
  UNWIND $alias_lists AS x
  MATCH (n:Entity {scope: $scope, key: x.key})
  SET n.aliases = x.names, n.updated_at = {{instant(x.updated_at)}}
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
  UNWIND $observations AS x
  MATCH (o:Observation {scope: $scope, id: x.id})
  SET o.entity = x.entity
}
{{call(s)}}
  UNWIND $tombstones AS x
  CREATE (t:Tombstone)
  SET t = x, t.rejected_at = {{instant(x.rejected_at)}}
}
{{call(s)}}
  UNWIND $audit AS x
  CREATE (entry:Audit {{new_audit_entry}})
}
RETURN st.version AS version
