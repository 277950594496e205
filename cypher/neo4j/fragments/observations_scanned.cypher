// Neo4j's own: the observations recall's vector scan (fragments/vector_scan) ranks, with their cosines, after a
// row binding v. Given $observation_top (the ids of a small scope's best by the cosines computed in process, best
// first: engine/recall_vectors.py; their cosines are $observation_cosines'), only those are looked up by id: the
// scan of every observation of the scope cost ~2-3 ms of a recall's statement even with every cosine given
// (LoCoMo, 169-324 observations). Otherwise (null) the scope's observations are scanned. Rows: o and its cosine
// ($observation_cosines', else computed here), for the observations by $model recorded by $known_at (current if
// null).
CALL (v) {
  WITH v WHERE $observation_top IS NULL
  MATCH (o:Observation {scope: $scope}) {{scope_seek(o, Observation, id)}} true
  RETURN o
  UNION ALL
  UNWIND $observation_top AS id
  MATCH (o:Observation {scope: $scope, id: id})
  RETURN o
}
WITH v, o WHERE o.embedding_model = $model AND {{known_then(o)}}
WITH o, coalesce($observation_cosines[o.id], {{bound_cosine(o.embedding, v)}}) AS cosine
