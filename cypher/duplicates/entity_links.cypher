// The believed facts some entities hold now (history aside), as the duplicate scorer weighs them
// (rules/duplicates.py Link): the predicate, the entity at the other end, which end the entity is, the
// validity, and with $degrees how many facts the other entity has (else null: a scope's proposals read the
// degrees of the few shared entities apart, duplicates/entity_degrees).
UNWIND $keys AS key
MATCH (e:Entity {scope: $scope, key: key})-[r:FACT]-(n:Entity)
WHERE r.expired_at IS NULL AND coalesce(r.status, 'believed') = 'believed'
RETURN key, r.predicate AS predicate, n.key AS other, n.name AS other_name, startNode(r) = e AS outgoing,
       r.valid_at AS valid_at, r.invalid_at AS invalid_at, CASE WHEN $degrees THEN {{degree(n)}} END AS degree
