// A fact record as the planner reads it, as a list of values (engine/rows.py RECORD_VALUE_COLUMNS): its subject's
// and object's keys, then the record's fields in shapes.py FACT's order. Not the map of fragments/fact.cypher: a
// batch of 1,000 reads ~1,100 records, and their maps (field names, and the entities' names and types, which the
// planner does not read) cost the client ~5 ms of decoding a batch at 100k (client CPU 0.87-0.90x:
// benchmarks/results/2026-12-07-applycut-batch-split.md).
[a.key, b.key, {{fact_field_values}}]
