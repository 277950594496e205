// Facts of one predicate pointing at one object ("who worked at Acme during 2020?"), held at as_of or over
// a period (fragments/held) as believed at $known_at: an index seek on the object's slot (rules/slots.py),
// whatever else points at the object; each with what replaced it and what it replaced.
{{read_clock}}
MATCH (a:Entity)-[r:FACT]->(b:Entity)
{{slot_hint(r, object_slot)}}
WHERE r.object_slot = $object_slot AND b.scope = $scope AND b.key = $object AND r.predicate = $predicate
  AND {{held}}
WITH r, a, b
ORDER BY r.valid_at, r.predicate, a.key, r.recorded_at
LIMIT $limit
{{links}}
RETURN {{fact}} AS fact, links
