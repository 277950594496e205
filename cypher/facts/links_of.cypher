// What replaced each of the given fact records ($ids) and what it replaced (fragments/links), as believed at
// $known_at: for facts a read chose after ranking them (recall), so only those look their timelines up. The id
// index finds each record; its subject's scope must be ours.
UNWIND $ids AS id
MATCH ()-[r:FACT {id: id}]->()
WITH r, startNode(r) AS a, endNode(r) AS b
WHERE a.scope = $scope
{{links}}
RETURN r.id AS id, links
