// Every entity of a scope as duplicate proposals compare them (engine/duplicates.py): name, aliases, type.
// Not the key: an entity's key is its name's (rules/text.py name_key; imports check it), and a scope of 100k
// entities reads a quarter faster without it.
MATCH (e:Entity {scope: $scope})
RETURN e.name AS name, e.aliases AS aliases, e.type AS type
