// Back-fills the slot of facts written before store format 2 (ids and slots computed by the caller).
UNWIND $slots AS x
MATCH ()-[r:FACT {id: x.id}]->()
WHERE startNode(r).scope = $scope
SET r.slot = x.slot
RETURN count(r) AS updated
