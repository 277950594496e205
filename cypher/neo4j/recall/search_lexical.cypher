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
WITH '+scope_token:' + $scope_token + '^0 +search_text:('
     + reduce(q = '', t IN $entity_terms | q + CASE WHEN q = '' THEN '' ELSE ' OR ' END
              + t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) + ')' AS q
CALL db.index.fulltext.queryNodes('entity_scoped_search', q, {limit: $limit}) YIELD node, score
WITH node, score WHERE node.scope = $scope
WITH coalesce(node.target, node.key) AS key, node.search_text AS text, node.name AS name, node.target IS NULL AS own,
     score
ORDER BY score DESC, key
LIMIT $limit
OPTIONAL MATCH (e:Entity {scope: $scope, key: key}) WHERE NOT own
RETURN collect([key, text, CASE WHEN own THEN name ELSE e.name END]) AS found
