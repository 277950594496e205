// Facts of a scope written before facts carried their object's and predicate's slots (store format < 6),
// a page at a time.
MATCH (:Entity {scope: $scope})-[r:FACT]->(b:Entity)
WHERE r.object_slot IS NULL
RETURN r.id AS id, b.key AS object, r.predicate AS predicate
LIMIT $limit
