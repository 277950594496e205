// Which of the given name keys are entities (with their node ids and names, in the same order), and which are
// aliases (with the entity they name), as one row: {entities: [key], ids: [node id], names: [name], aliases:
// [{key, target}]}. One index scan per label for the whole list (far cheaper than a lookup per key), and one
// row to decode whatever the list's length.
OPTIONAL MATCH (e:Entity)
{{key_hint(e)}}
WHERE e.scope = $scope AND e.key IN $keys
WITH collect(e.key) AS entities, {{node_ids(e)}} AS ids, collect(e.name) AS names
OPTIONAL MATCH (al:Alias)
WHERE al.scope = $scope AND al.key IN $keys
RETURN entities, ids, names, [x IN collect(al) | {key: x.key, target: x.target}] AS aliases
