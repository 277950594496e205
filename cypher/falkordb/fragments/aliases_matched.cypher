// The names leg's aliases (recall/search_lexical, recall/memory_lexical): the scope's aliases whose words match
// $terms (prefix match from 3 letters), the index's best $limit first, as the key and text of each and its
// entity e; the statement returns them collected (with e.name), its own columns around them.
WITH reduce(q = '', t IN $terms | q + CASE WHEN q = '' THEN '' ELSE ' | ' END
            + t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) AS q
CALL db.idx.fulltext.queryNodes('Alias', q) YIELD node, score
WITH node, score WHERE node.scope = $scope
WITH node.target AS key, node.search_text AS text, score
ORDER BY score DESC, key
LIMIT $limit
MATCH (e:Entity {scope: $scope, key: key})
