// Which of the given name keys are entities, and which are aliases (with the entity they
// name). A key that is neither comes back in no row. One index scan per label for the
// whole list: far cheaper than a lookup per key.
MATCH (e:Entity)
WHERE e.scope = $scope AND e.key IN $keys
RETURN e.key AS key, null AS target
UNION ALL
MATCH (al:Alias)
WHERE al.scope = $scope AND al.key IN $keys
RETURN al.key AS key, al.target AS target
