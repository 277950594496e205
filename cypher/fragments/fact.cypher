// The one projection of a fact record, as a map: r is the FACT, a its subject, b its object (their names,
// keys and types), then the record's fields (synapse_graph/shapes.py FACT renders them; instants come back
// as epoch microseconds). Every statement that returns facts includes it; synapse_graph/engine/rows.py reads it.
{subject: a.name, subject_key: a.key, subject_type: a.type, object: b.name, object_key: b.key, object_type: b.type,
 {{fact_fields}}}
