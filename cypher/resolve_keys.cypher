// For each name key: whether an entity has it, and which entity it is an alias of.
UNWIND $keys AS k
OPTIONAL MATCH (e:Entity {scope: $scope, key: k})
OPTIONAL MATCH (al:Alias {scope: $scope, key: k})
RETURN k AS key, e IS NOT NULL AS is_entity, al.target AS target
