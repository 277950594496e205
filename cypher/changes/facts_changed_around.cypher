// Facts of one entity (subject or object) that began or ended after $from, up to and including $to, as
// believed at $known_at (null: now), in the trust states $statuses; each with what replaced it and what it
// replaced. The entity's index finds it, then its own facts.
MATCH (:Entity {scope: $scope, key: $key})-[r:FACT]-()
WITH DISTINCT r
WITH r, startNode(r) AS a, endNode(r) AS b
WHERE ((r.valid_at > $from AND r.valid_at <= $to) OR (r.invalid_at > $from AND r.invalid_at <= $to))
  AND {{believed_at}}
WITH r, a, b
ORDER BY r.valid_at, a.key, r.predicate, b.key, r.recorded_at
LIMIT $limit
{{links}}
RETURN {{fact}} AS fact, links
