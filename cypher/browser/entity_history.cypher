// Every validity interval of one entity's facts (found by its name, key or an alias),
// oldest first, as a table: the records not expired (superseded), whatever their trust state
// (status: believed, candidate or disputed). invalid_at null = still holds.
// :param scope => 'default'
// :param name => 'Dana'
WITH toLower(reduce(s = '', w IN [x IN split(trim($name), ' ') WHERE x <> ''] |
       s + CASE s WHEN '' THEN '' ELSE ' ' END + w)) AS wanted
OPTIONAL MATCH (al:Alias {scope: $scope, key: wanted})
WITH coalesce(al.target, wanted) AS key
MATCH (e:Entity {scope: $scope, key: key})-[r:FACT]->(o:Entity)
WHERE r.expired_at IS NULL
RETURN e.name AS subject, r.predicate AS predicate, o.name AS object,
       r.valid_at AS valid_at, r.invalid_at AS invalid_at, r.recorded_at AS recorded_at,
       coalesce(r.status, 'believed') AS status, r.confidence AS confidence,
       r.confirmations AS confirmations, r.source AS source
ORDER BY valid_at, predicate, object
