// Facts of one subject and predicate (their slot): an index seek on the slot, whatever the subject's degree.
{{read_clock}}
MATCH (a:Entity)-[r:FACT]->(b:Entity)
WHERE r.slot = $slot AND a.scope = $scope AND a.key = $subject AND r.predicate = $predicate
  AND ($object IS NULL OR b.key = $object)
  AND {{valid_at}}
WITH r, a, b
ORDER BY r.valid_at, r.predicate, b.key, r.recorded_at
LIMIT $limit
RETURN {{fact}} AS fact
