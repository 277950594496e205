// The one projection of an entity e, as a map (synapse_graph/engine/rows.py reads it).
{key: e.key, name: e.name, aliases: e.aliases, type: e.type, created_at: e.created_at, updated_at: e.updated_at}
