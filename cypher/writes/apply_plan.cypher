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
     coalesce(st.expired, 0) AS expired, coalesce(st.ended, 0) AS ended,
     st.tombstones AS tombstones
WHERE version = $version
SET st.version = version + 1, st.facts = facts + $fact_delta, st.candidates = candidates + $candidate_delta,
    st.expired = expired + $expired_delta, st.ended = ended + $ended_delta,
    st.entities = entities + $entity_delta, st.last_batch = $batch, st.updated_at = $now,
    st.tombstones = tombstones + size($tombstones)
SET st += $rules
// A merge renames records' ends and moves them: the entries recorded up to now show no stored values of records
// (changes/change_entries reads them as they are now).
FOREACH (y IN CASE WHEN size($deletes) > 0 THEN [1] ELSE [] END | SET st.values_from = {{instant($now)}})
{{grow}}
WITH s, st
{{call(s)}}
  UNWIND $entities AS x
  // Entities the plan found missing while holding the scope's lock, created with their properties (on
  // FalkorDB a SET after CREATE waits for a merge of the graph's node labels: fragments/new_audit_entry).
  CREATE (n:Entity {{new_entity}})
}
{{call(s)}}
  UNWIND $retarget AS x
  MATCH (al:Alias {scope: $scope})
  WHERE al.target = x.from
  SET al.target = x.to
}
{{call(s)}}
  UNWIND $retarget AS x
  MATCH (t:Tombstone {scope: $scope}) {{scope_seek(t, Tombstone, subject, predicate, object)}} (t.subject = x.from OR t.object = x.from)
  SET t.subject = CASE WHEN t.subject = x.from THEN x.to ELSE t.subject END,
      t.object = CASE WHEN t.object = x.from THEN x.to ELSE t.object END
}
{{call(s)}}
  UNWIND $retarget AS x
  MATCH (o:Observation {scope: $scope})
  WHERE o.entity = x.from
  SET o.entity = x.to
}
{{call(s)}}
  UNWIND $aliases AS x
  MERGE (al:Alias {scope: $scope, key: x.key})
  SET al.name = x.name, al.target = x.target, al.search_text = x.search_text, al.grams = x.grams{{token_property(al, $scope_token)}}
}
{{call(s)}}
  UNWIND $alias_names AS x
  MATCH (n:Entity {scope: $scope, key: x.key})
  SET n.aliases = coalesce(n.aliases, []) + x.names, n.updated_at = $now
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
  // New records between entities this write found, sought by their node ids (read holding the scope's
  // lock: only a write to this scope deletes its entities, and such a write moves the version checked above).
  UNWIND $creates_by_id AS x
  MATCH (a) WHERE {{node_id(a)}} = x[9]
  MATCH (b) WHERE {{node_id(b)}} = x[10]
  WITH x, a, b, $kinds[x[2]] AS k
  WHERE a:Entity AND a.scope = $scope AND a.key = x[0] AND b:Entity AND b.scope = $scope AND b.key = x[1]
  CREATE (a)-[r:FACT {{new_fact_record}}]->(b)
}
// New records with an entity this write creates (or found through an alias, or in a small write), sought
// by key (the slimmer forms keep this sub-query only).
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
  {{count_records_by_id}}
}
{{call(s)}}
  UNWIND $observe AS x
  CREATE (o:Observation)
  {{new_observation}}{{memory_token_property(o, x.expired_at, $scope_token)}}
}
{{call(s)}}
  UNWIND $unobserve AS id
  MATCH (o:Observation {scope: $scope, id: id})
  WHERE o.expired_at IS NULL
  // Out of the search with its token, if the dialect stores one (see recall/search_lexical).
  SET o.expired_at = $now{{expired_token_property(o, $scope_token)}}
}
{{call(s)}}
  UNWIND $sessions AS x
  MERGE (n:Session {scope: $scope, id: x.id})
  ON CREATE SET n.registered_at = {{instant(x.registered_at)}}, n.expires_at = {{instant(x.expires_at)}}
  SET n.revoked_at = coalesce(n.revoked_at, {{instant(x.revoked_at)}})
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
{{call(s)}}
  UNWIND $deletes AS k
  MATCH (n:Entity {scope: $scope, key: k})
  DETACH DELETE n
}
RETURN st.version AS version
