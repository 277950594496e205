// Current facts of one entity, found by its name, key or an alias: valid now and
// currently believed (not expired; trust state believed, so candidates and disputed
// facts are left out). Returns paths, so Browser draws the graph.
// Tip: untick "Connect result nodes" in Browser's settings, else Browser also draws
// past FACT relationships between the nodes shown.
// :param scope => 'default'
// :param name => 'Dana'
WITH toLower(reduce(s = '', w IN [x IN split(trim($name), ' ') WHERE x <> ''] |
       s + CASE s WHEN '' THEN '' ELSE ' ' END + w)) AS wanted, datetime() AS now
OPTIONAL MATCH (al:Alias {scope: $scope, key: wanted})
WITH coalesce(al.target, wanted) AS key, now
MATCH p = (e:Entity {scope: $scope, key: key})-[r:FACT]->(:Entity)
WHERE r.expired_at IS NULL AND coalesce(r.status, 'believed') = 'believed'
  AND r.valid_at <= now AND (r.invalid_at IS NULL OR r.invalid_at > now)
RETURN p
ORDER BY r.predicate, r.valid_at
