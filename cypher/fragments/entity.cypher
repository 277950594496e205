// The one projection of an entity e, as a map (synapse_graph/engine/rows.py reads it). An entity not
// updated since its creation stores no updated_at (synapse_graph/engine/inputs.py entity_row).
{key: e.key, name: e.name, aliases: e.aliases, type: e.type, created_at: e.created_at, updated_at: coalesce(e.updated_at, e.created_at)}
