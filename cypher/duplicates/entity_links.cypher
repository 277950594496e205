// The believed facts some entities hold now (history aside), as the duplicate scorer weighs them
// (rules/duplicates.py Link): the predicate, the entity at the other end and how many facts it has, which end
// the entity is, the validity. A write's check reads them so; a scope's proposals read
// duplicates/candidate_links and the degrees of the few shared entities apart.
UNWIND $keys AS key
MATCH (e:Entity {scope: $scope, key: key})-[r:FACT]-(n:Entity)
WHERE r.expired_at IS NULL AND coalesce(r.status, 'believed') = 'believed'
RETURN key, r.predicate AS predicate, n.key AS other, n.name AS other_name, startNode(r) = e AS outgoing,
       r.valid_at AS valid_at, r.invalid_at AS invalid_at, {{degree(n)}} AS degree
