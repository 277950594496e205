// How many facts valid at as_of (believed ones only) each of the given entities has, as
// digest/most_connected counts them (a fact from an entity to itself counts once).
{{read_clock}}
UNWIND $keys AS k
MATCH (e:Entity {scope: $scope, key: k})-[r:FACT]-(:Entity)
WHERE {{valid_at}}
WITH e, count(DISTINCT r) AS degree
RETURN e.key AS key, e.name AS name, degree
