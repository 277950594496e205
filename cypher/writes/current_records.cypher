// Current records (not expired) of the given trust states ($statuses) for each key [slot, subject,
// predicate, object, since_at, a, b] (a and b: both entities' node ids when known; engine/view.py current,
// a list: no names on the wire): the planner's input for a
// batch, as one row (one value to decode, not a row per record), each record a list of values
// (fragments/record_values). A record can come back twice (it answers two keys): readers keep one per id. A null since_at asks for the whole timeline, otherwise records that
// ended before since_at are left out (no write can touch them).
// A key with an object asks for the records between its two entities: both sought by their node ids a
// and b when the key has them (read holding the scope's lock, see writes/apply_plan.cypher), else found
// by their index; then the edges between them. A key without one asks for every object of the (subject,
// predicate): the slot index finds the timeline. The slot index alone would read every record of a
// (subject, predicate) with many objects to find the one asked (a hub: 26,478 edges read for 958 keys of
// a 1M store, 306 kept).
{{call()}}
  UNWIND [k IN $keys WHERE k[5] IS NOT NULL] AS k
  MATCH (a) WHERE {{node_id(a)}} = k[5]
  MATCH (b) WHERE {{node_id(b)}} = k[6]
  WITH k, a, b
  WHERE a:Entity AND a.scope = $scope AND a.key = k[1] AND b:Entity AND b.scope = $scope AND b.key = k[3]
  MATCH (a)-[r:FACT]->(b)
  WHERE r.predicate = k[2] AND r.expired_at IS NULL AND {{state}} IN $statuses
    AND (k[4] IS NULL OR r.invalid_at IS NULL OR r.invalid_at >= {{instant(k[4])}})
  WITH DISTINCT r, a, b
  RETURN collect({{record_values}}) AS by_id
}
{{call()}}
  UNWIND [k IN $keys WHERE k[3] IS NOT NULL AND k[5] IS NULL] AS k
  MATCH (a:Entity {scope: $scope, key: k[1]})
  {{key_hint(a)}}
  MATCH (b:Entity {scope: $scope, key: k[3]})
  {{key_hint(b)}}
  // Both ends first, then the edges between them (not a walk from a subject with many edges).
  WITH k, a, b
  MATCH (a)-[r:FACT]->(b)
  WHERE r.predicate = k[2] AND r.expired_at IS NULL AND {{state}} IN $statuses
    AND (k[4] IS NULL OR r.invalid_at IS NULL OR r.invalid_at >= {{instant(k[4])}})
  WITH DISTINCT r, a, b
  RETURN collect({{record_values}}) AS by_pair
}
{{call()}}
  UNWIND [k IN $keys WHERE k[3] IS NULL] AS k
  MATCH ()-[r:FACT]->()
  WHERE r.slot = k[0] AND r.expired_at IS NULL AND {{state}} IN $statuses
    AND (k[4] IS NULL OR r.invalid_at IS NULL OR r.invalid_at >= {{instant(k[4])}})
  WITH k, r, startNode(r) AS a, endNode(r) AS b
  WHERE a.scope = $scope AND a.key = k[1] AND r.predicate = k[2]
  WITH DISTINCT r, a, b
  RETURN collect({{record_values}}) AS by_slot
}
RETURN by_id + by_pair + by_slot AS records
