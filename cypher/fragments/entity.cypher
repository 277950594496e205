// The one projection of an entity e, as a map: its fields (synapse_graph/shapes.py ENTITY; an entity not
// updated since its creation stores no updated_at). synapse_graph/engine/rows.py reads it.
{ {{entity_fields}} }
