// A fact record as a list of values, for a statement that returns many (changes/changed_records): its
// subject's and object's names and keys, then the record's fields in shapes.py FACT's order
// (synapse_graph/engine/rows.py FACT_VALUE_COLUMNS names them); the values of fragments/fact.cypher but the
// entities' types (a fact does not show them), no names, absent values as null (read as their defaults).
[a.name, a.key, b.name, b.key, {{fact_field_values}}]
