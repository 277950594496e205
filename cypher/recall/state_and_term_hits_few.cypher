// recall/state_and_term_hits for a question of at most six terms (engine/recall.py FEW_TERMS): FalkorDB's
// fragments/first_term_slots asks only the first six term slots (a slot costs the server even when empty: the
// statement with 16 slots took 1.8 ms of the server on LoCoMo, with 5 0.9); Neo4j's is the whole statement.
{{state_and_facts_row}}
UNION ALL
{{first_term_slots}}
