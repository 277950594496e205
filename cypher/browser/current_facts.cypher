// Current facts of one entity, found by its key or an alias's key: valid now and currently
// believed (not expired; trust state believed, so candidates and disputed facts are left out).
// Returns paths, so Browser draws the graph.
// $key is the entity's stored key (names are NFC, whitespace-collapsed and case-folded, so
// "Straße" is 'strasse'): `synapse-graph browse --name NAME` prints the :param line for a name.
// Run `:config autoComplete: false` once first: Browser's "Connect result nodes" setting would
// also draw every other FACT record between the entities shown (superseded ones too).
// Keys a record stores only when they differ from the default (expired_at, status, confidence, ...) are
// read from properties(r): a store that never stored one shows no "property key does not exist" warning.
// :param scope => 'default'
// :param key => 'dana'
OPTIONAL MATCH (al:Alias {scope: $scope, key: $key})
WITH coalesce(al.target, $key) AS key, datetime() AS now
MATCH p = (e:Entity {scope: $scope, key: key})-[r:FACT]->(:Entity)
WITH p, r, now, properties(r) AS fact
WHERE fact.expired_at IS NULL AND coalesce(fact.status, 'believed') = 'believed'
  AND r.valid_at <= now AND (r.invalid_at IS NULL OR r.invalid_at > now)
RETURN p
ORDER BY r.predicate, r.valid_at
