// The name each of $keys stands for in the scope: its entity's, or its alias's (an entity merged away).
UNWIND $keys AS k
OPTIONAL MATCH (e:Entity {scope: $scope, key: k})
OPTIONAL MATCH (al:Alias {scope: $scope, key: k})
RETURN k AS key, coalesce(e.name, al.name) AS name
