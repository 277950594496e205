// Facts of one subject and predicate (their slot): an index seek on the slot, whatever the subject's degree,
// held at as_of or over a period (fragments/held), each with what replaced it and what it replaced.
// One more row counts how many of $names (the keys the read was asked by) are stored entities: when no
// fact comes back and every name is an entity, the empty answer is the answer, with no second round trip
// to find out whether a name was an alias (engine/reads.py facts).
{{read_clock}}
MATCH (a:Entity)-[r:FACT]->(b:Entity)
{{slot_hint(r, slot)}}
WHERE r.slot = $slot AND a.scope = $scope AND a.key = $subject AND r.predicate = $predicate
  AND ($object IS NULL OR b.key = $object)
  AND {{held}}
WITH r, a, b
ORDER BY r.valid_at, r.predicate, b.key, r.recorded_at
LIMIT $limit
{{links}}
RETURN {{fact}} AS fact, links, null AS entities
UNION ALL
MATCH (e:Entity)
WHERE e.scope = $scope AND e.key IN $names
RETURN null AS fact, null AS links, count(e) AS entities
