// Sets the search text of fact records (computed by the caller: rules/stems.py), and the scope's search token
// of the current ones where the dialect stores one (as writes/apply_plan creates them).
UNWIND $rows AS x
MATCH ()-[r:FACT {id: x.id}]->()
WHERE startNode(r).scope = $scope
SET r.search_text = x.search_text{{memory_token_property(r, r.expired_at, $scope_token)}}
RETURN count(r) AS updated
