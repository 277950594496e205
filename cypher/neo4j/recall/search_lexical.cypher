// Neo4j's own: its fulltext procedure takes Lucene queries over entities and aliases, which hold the scope's token.
// Fulltext candidates for recall: entities and aliases whose words match the terms
// (prefix match from 3 letters). Terms are pre-split words of letters and digits only,
// so they cannot carry Lucene syntax. The index holds every scope of the server: the query
// requires the scope's token (rules/recall.py scope_token, with no weight, so the scores are those
// of the words alone) and the index itself cuts its best $limit, best first; only those leave
// Lucene (node.scope is checked again), as [key, text, the entity's name]. Ranking happens in Python
// (BM25 over these candidates) for both backends. Entities and aliases are searched for $entity_terms:
// the question's terms, less those too common to find anything the rarer ones do not (rules/recall.py
// searched_terms). (Observations are memories of their own: recall searches them apart, recall/memory_lexical.)
{{names_matched}}
RETURN collect([key, text, CASE WHEN own THEN name ELSE e.name END]) AS found
