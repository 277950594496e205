// Current records (not expired) of the given trust states ($statuses) for each key {slot, subject,
// predicate, object, since_at, and a and b: both entities' node ids when known}: the planner's input for a
// batch, as one row (one value to decode, not a row per record). A record can come back twice (it answers
// two keys): readers keep one per id. A null since_at asks for the whole timeline, otherwise records that
// ended before since_at are left out (no write can touch them).
// A key with an object asks for the records between its two entities: both sought by their node ids a
// and b when the key has them (read holding the scope's lock, see writes/apply_plan.cypher), else found
// by their index; then the edges between them. A key without one asks for every object of the (subject,
// predicate): the slot index finds the timeline. The slot index alone would read every record of a
// (subject, predicate) with many objects to find the one asked (a hub: 26,478 edges read for 958 keys of
// a 1M store, 306 kept).
{{call()}}
  UNWIND [k IN $keys WHERE k.a IS NOT NULL] AS k
  MATCH (a) WHERE {{node_id(a)}} = k.a
  MATCH (b) WHERE {{node_id(b)}} = k.b
  WITH k, a, b
  WHERE a:Entity AND a.scope = $scope AND a.key = k.subject AND b:Entity AND b.scope = $scope AND b.key = k.object
  MATCH (a)-[r:FACT]->(b)
  WHERE r.predicate = k.predicate AND r.expired_at IS NULL AND {{state}} IN $statuses
    AND (k.since_at IS NULL OR r.invalid_at IS NULL OR r.invalid_at >= {{instant(k.since_at)}})
  WITH DISTINCT r, a, b
  RETURN collect({{fact}}) AS by_id
}
{{call()}}
  UNWIND [k IN $keys WHERE k.object IS NOT NULL AND k.a IS NULL] AS k
  MATCH (a:Entity {scope: $scope, key: k.subject})
  {{key_hint(a)}}
  MATCH (b:Entity {scope: $scope, key: k.object})
  {{key_hint(b)}}
  // Both ends first, then the edges between them (not a walk from a subject with many edges).
  WITH k, a, b
  MATCH (a)-[r:FACT]->(b)
  WHERE r.predicate = k.predicate AND r.expired_at IS NULL AND {{state}} IN $statuses
    AND (k.since_at IS NULL OR r.invalid_at IS NULL OR r.invalid_at >= {{instant(k.since_at)}})
  WITH DISTINCT r, a, b
  RETURN collect({{fact}}) AS by_pair
}
{{call()}}
  UNWIND [k IN $keys WHERE k.object IS NULL] AS k
  MATCH ()-[r:FACT]->()
  WHERE r.slot = k.slot AND r.expired_at IS NULL AND {{state}} IN $statuses
    AND (k.since_at IS NULL OR r.invalid_at IS NULL OR r.invalid_at >= {{instant(k.since_at)}})
  WITH k, r, startNode(r) AS a, endNode(r) AS b
  WHERE a.scope = $scope AND a.key = k.subject AND r.predicate = k.predicate
  WITH DISTINCT r, a, b
  RETURN collect({{fact}}) AS by_slot
}
RETURN by_id + by_pair + by_slot AS records
