// A fact record as the planner reads it, as a list of values (engine/rows.py RECORD_VALUE_COLUMNS): its subject's
// and object's keys, then the record's fields in shapes.py FACT's order. Not the map of fragments/fact.cypher: a
// batch of 1,000 reads ~1,000 records, and their maps (field names, the entities' names and types, which the
// planner does not read) cost the server ~3x the statement's time and the client their decoding.
[a.key, b.key] + {{fact_field_values}}
