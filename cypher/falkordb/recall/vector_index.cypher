// FalkorDB's own: each dialect names and configures a vector index in syntax of its own.
// The vector index over entity-name embeddings (cosine); dimensions come from the embedder.
CREATE VECTOR INDEX FOR (e:Entity) ON (e.embedding) OPTIONS {dimension: $dimensions, similarityFunction: 'cosine'}
