// FalkorDB's own: its fulltext procedure takes RediSearch queries over one label, filtered by the scope property.
// Fulltext candidates for recall: entities and aliases whose words match the terms
// (prefix match from 3 letters). Terms are pre-split words of letters and digits only,
// so they cannot carry query syntax. The index orders its matches (best first) and only the
// best $limit of each leg leave the database, one row per leg, as [key, text, the entity's name];
// ranking happens in Python (BM25 over these candidates) for both backends. Entities are searched
// for $entity_terms: the question's terms, less those too common to find anything the rarer ones do
// not (rules/recall.py searched_terms), as this index lists every match before it can sort them.
// (Observations are memories of their own: recall searches them apart, recall/memory_lexical.)
{{entities_matched}}
RETURN collect([key, text, name]) AS found
UNION ALL
{{aliases_matched}}
RETURN collect([key, text, e.name]) AS found
