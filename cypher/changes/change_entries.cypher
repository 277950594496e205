// The audit entries of the scope recorded from $since up to $until (null: now), oldest first, from the cursor
// on ($after_at, $after_id: that entry included; both null on the first page), at most $limit; with $keys,
// only the entries that touched one of them (engine/changes.py reads them as changes).
MATCH (x:Audit {scope: $scope})
WHERE x.at >= $since AND ($until IS NULL OR x.at < $until)
  AND ($after_at IS NULL OR x.at > $after_at OR (x.at = $after_at AND x.id >= $after_id))
  AND ($keys IS NULL OR any(k IN $keys WHERE k IN x.entities))
WITH x
ORDER BY x.at, x.id
LIMIT $limit
RETURN {{audit}} AS entry
