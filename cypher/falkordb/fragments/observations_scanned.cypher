// FalkorDB's own: the observations recall's vector scan (fragments/vector_scan) ranks and their cosines, after a row
// binding v: the scope's observations by $model recorded by $known_at (current if null), a cosine from
// $observation_cosines when given, else computed here (Backend.cosines_in_process is off on FalkorDB: its scan
// of a small scope is cheap; neo4j's fragment takes the best cosines alone).
MATCH (o:Observation {scope: $scope}) {{scope_seek(o, Observation, id)}}
o.embedding_model = $model AND {{known_then(o)}}
WITH o, coalesce($observation_cosines[o.id], {{bound_cosine(o.embedding, v)}}) AS cosine
