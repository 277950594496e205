// Every validity interval of one entity's facts (found by its key or an alias's key),
// oldest first, as a table: the records not expired (superseded), whatever their trust state
// (status: believed, candidate or disputed). invalid_at null = still holds.
// $key: see current_facts (`synapse-graph browse --name NAME` prints it).
// Keys a record stores only when they differ from the default (expired_at, status, confidence, ...) are
// read from properties(r): a store that never stored one shows no "property key does not exist" warning.
// :param scope => 'default'
// :param key => 'dana'
OPTIONAL MATCH (al:Alias {scope: $scope, key: $key})
WITH coalesce(al.target, $key) AS key
MATCH (e:Entity {scope: $scope, key: key})-[r:FACT]->(o:Entity)
WITH e, r, o, properties(r) AS fact
WHERE fact.expired_at IS NULL
RETURN e.name AS subject, r.predicate AS predicate, o.name AS object,
       r.valid_at AS valid_at, r.invalid_at AS invalid_at, r.recorded_at AS recorded_at,
       coalesce(fact.status, 'believed') AS status, coalesce(fact.confidence, 1.0) AS confidence,
       coalesce(fact.confirmations, 1) AS confirmations, fact.source AS source
ORDER BY valid_at, predicate, object
