// One entity (found by its name, key or an alias) with its alias names.
// :param scope => 'default'
// :param name => 'Dana'
WITH toLower(reduce(s = '', w IN [x IN split(trim($name), ' ') WHERE x <> ''] |
       s + CASE s WHEN '' THEN '' ELSE ' ' END + w)) AS wanted
OPTIONAL MATCH (al:Alias {scope: $scope, key: wanted})
WITH coalesce(al.target, wanted) AS key
MATCH (e:Entity {scope: $scope, key: key})
OPTIONAL MATCH (other:Alias {scope: $scope, target: e.key})
WITH e, collect(other) AS alias_nodes
RETURN e.name AS name, e.key AS key, e.type AS type,
       [a IN alias_nodes | a.name] AS alias_names, e AS entity, alias_nodes
