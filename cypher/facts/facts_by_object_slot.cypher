// Facts of one predicate pointing at one object ("who worked at Acme during 2020?"), held at as_of or over
// a period (fragments/held) as believed at $known_at: an index seek on the object's slot (rules/slots.py),
// whatever else points at the object; each with what replaced it and what it replaced.
// One more row counts how many of $names (the keys the read was asked by) are stored entities: when no
// fact comes back and every name is an entity, the empty answer is the answer, with no first round trip
// to resolve the object's name (engine/reads.py facts; as facts/facts_by_slot).
{{read_clock}}
MATCH (a:Entity)-[r:FACT]->(b:Entity)
{{slot_hint(r, object_slot)}}
WHERE r.object_slot = $object_slot AND b.scope = $scope AND b.key = $object AND r.predicate = $predicate
  AND {{held}}
WITH r, a, b
ORDER BY r.valid_at, r.predicate, a.key, r.recorded_at
LIMIT $limit
{{links}}
RETURN {{fact}} AS fact, links, null AS entities
UNION ALL
MATCH (e:Entity)
WHERE e.scope = $scope AND e.key IN $names
RETURN null AS fact, null AS links, count(e) AS entities
