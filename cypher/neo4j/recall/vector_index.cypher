// Neo4j's own: each dialect names and configures a vector index in syntax of its own.
// The vector index over entity-name embeddings (cosine); dimensions come from the embedder.
CREATE VECTOR INDEX entity_embedding IF NOT EXISTS FOR (e:Entity) ON e.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
