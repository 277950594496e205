// Facts of a scope written before facts carried a slot (store format < 2), a page at a time.
MATCH (a:Entity {scope: $scope})-[r:FACT]->(:Entity)
WHERE r.slot IS NULL
RETURN r.id AS id, a.key AS subject, r.predicate AS predicate
LIMIT $limit
