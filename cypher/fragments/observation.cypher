// The one projection of an observation o about entity e, as a map: the entity's name and key, then the
// observation's fields (synapse_graph/shapes.py OBSERVATION). synapse_graph/engine/rows.py reads it.
{entity: e.name, entity_key: e.key, {{observation_fields}}}
