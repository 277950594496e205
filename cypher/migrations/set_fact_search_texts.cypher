// Sets the search text of fact records (computed by the caller: rules/stems.py), and the scope's search token
// of the current ones where the dialect stores one (as writes/apply_plan creates them).
UNWIND $rows AS x
MATCH ()-[r:FACT {id: x.id}]->()
WHERE startNode(r).scope = $scope
SET r.search_text = x.search_text{{token_property(r, CASE WHEN r.expired_at IS NULL THEN $scope_token END)}}
RETURN count(r) AS updated
