// One entity (found by its key or an alias's key) with its other names, as a table. Aliases
// are stored as :Alias nodes that name their entity by key (no relationship), so there is
// no graph to draw here. $key: see current_facts.
// :param scope => 'default'
// :param key => 'dana'
OPTIONAL MATCH (al:Alias {scope: $scope, key: $key})
WITH coalesce(al.target, $key) AS key
MATCH (e:Entity {scope: $scope, key: key})
OPTIONAL MATCH (other:Alias {scope: $scope, target: e.key})
WITH e, other ORDER BY other.name
RETURN e.name AS name, e.key AS key, properties(e)['type'] AS type,
       collect(other.name) AS aliases, collect(other.key) AS alias_keys
