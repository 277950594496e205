// The properties of a new entity x, given as it is created (on FalkorDB a SET after CREATE waits for a merge
// of the graph's node labels: fragments/new_audit_entry): its scope, its fields (synapse_graph/shapes.py
// ENTITY; engine/inputs.py entity_row), its search text, its grams (rules/grams.py) and the scope's search token
// where a dialect stores one.
{scope: {{interned($scope)}}, {{new_entity_fields}}, search_text: x.search_text, grams: x.grams{{token_entry($scope_token)}}}
