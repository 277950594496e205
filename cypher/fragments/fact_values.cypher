// A fact record as a list of values, for a statement that returns many (changes/changed_records): its
// subject's and object's names, keys and types, then the record's fields in shapes.py FACT's order
// (synapse_graph/engine/rows.py fact_values names them); the same values as fragments/fact.cypher, no names.
[a.name, a.key, a.type, b.name, b.key, b.type] + {{fact_field_values}}
