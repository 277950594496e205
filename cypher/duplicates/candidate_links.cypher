// The believed facts the entities of a scope's candidate pairs hold now (history aside), as
// duplicates/entity_links without the other end's degree: proposals read the degrees of the few entities two
// candidates share apart (duplicates/entity_degrees). A degree in this read, even under a CASE that is false,
// tripled FalkorDB's time for it (the 9k entities of a 100k-entity scope's candidates: 1.03 s against 0.31 s).
UNWIND $keys AS key
MATCH (e:Entity {scope: $scope, key: key})-[r:FACT]-(n:Entity)
WHERE r.expired_at IS NULL AND coalesce(r.status, 'believed') = 'believed'
RETURN key, r.predicate AS predicate, n.key AS other, n.name AS other_name, startNode(r) = e AS outgoing,
       r.valid_at AS valid_at, r.invalid_at AS invalid_at
