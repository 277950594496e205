// Stores embeddings computed by $model, as each dialect's vector search reads them: of entity names ($entities,
// by key; phrase vector), observations ($observations, by id) and fact records ($facts, by id; phrases
// node_vector, relationship_vector); and records $model and its $dimensions as the scope's embedder
// (engine/embedding.py refuses another one until the scope's memories are embedded again).
{{scope_state_for_write}}
SET st.embedder = $model, st.embedder_dimensions = $dimensions
WITH s, st
{{call(s)}}
  UNWIND $entities AS x
  MATCH (e:Entity {scope: $scope, key: x.key})
  SET e.embedding = {{vector(x.vector)}}, e.embedding_model = $model
}
{{call(s)}}
  UNWIND $observations AS x
  MATCH (o:Observation {scope: $scope, id: x.id})
  {{node_vector(o, x.vector)}}
  SET o.embedding_model = $model
}
{{call(s)}}
  UNWIND $facts AS x
  MATCH ()-[r:FACT {id: x.id}]->()
  WHERE startNode(r).scope = $scope
  {{relationship_vector(r, x.vector)}}
  SET r.embedding_model = $model
}
RETURN st.embedder AS embedder
