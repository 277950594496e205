// The embeddings by $model of the scope's observations and fact records, current or expired (any state, any time:
// recall's statements filter those; a recall as believed at an earlier time scores the memories expired since, and
// each memory's cosine is computed the same way whenever the cache first saw it), whose ids $observations and
// $facts (maps by id) do not hold: what recall keeps to compute a small scope's cosines in process
// (engine/recall_vectors.py), read when the scope's state changed.
MATCH (o:Observation {scope: $scope}) {{scope_seek(o, Observation, id)}}
o.embedding_model = $model AND $observations[o.id] IS NULL
RETURN 'observation' AS kind, o.id AS id, o.embedding AS embedding
UNION ALL
MATCH (:Entity {scope: $scope})-[r:FACT]->(:Entity)
WHERE r.embedding_model = $model AND $facts[r.id] IS NULL
RETURN 'fact' AS kind, r.id AS id, r.embedding AS embedding
