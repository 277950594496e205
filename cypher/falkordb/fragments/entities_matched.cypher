// The names leg's entities (recall/search_lexical, recall/memory_lexical): the scope's entities whose words match
// $entity_terms (prefix match from 3 letters), the index's best $limit first, as key, text and name; the
// statement returns them collected, its own columns around them.
WITH reduce(q = '', t IN $entity_terms | q + CASE WHEN q = '' THEN '' ELSE ' | ' END
            + t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) AS q
CALL db.idx.fulltext.queryNodes('Entity', q) YIELD node, score
WITH node, score WHERE node.scope = $scope
WITH node.key AS key, node.search_text AS text, node.name AS name, score
ORDER BY score DESC, key
LIMIT $limit
