// The names leg (recall/search_lexical, recall/memory_lexical): the scope's entities and aliases whose words
// match $entity_terms (prefix match from 3 letters), the index's best $limit first, as key, text and name, own
// (an entity's, not an alias's) and an alias's entity e; the statement returns them collected (the name an
// alias's entity's), its own columns around them.
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
