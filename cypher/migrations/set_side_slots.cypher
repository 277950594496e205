// Back-fills the object's and the predicate's slots of facts written before store format 6 (ids and slots
// computed by the caller, rules/slots.py).
UNWIND $slots AS x
MATCH ()-[r:FACT {id: x.id}]->()
WHERE startNode(r).scope = $scope
SET r.object_slot = x.object_slot, r.predicate_slot = x.predicate_slot
RETURN count(r) AS updated
