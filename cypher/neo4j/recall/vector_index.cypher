// Neo4j's own: each dialect names and configures a vector index in syntax of its own.
// The vector indexes (cosine; dimensions from the embedder) over entity-name embeddings and over memories'
// (observations, fact records): recall's vector leg asks the memories' for its scope's nearest (recall/
// memory_vector_legs). An index that exists is kept, whatever its dimensions: recall/vector_index_dimensions
// reads them, and a memory whose embedder has others scans its scope. A new index fills in the background: wait,
// so the first recall finds every memory.
CREATE VECTOR INDEX entity_embedding IF NOT EXISTS FOR (e:Entity) ON e.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX observation_embedding IF NOT EXISTS FOR (o:Observation) ON o.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX fact_embedding IF NOT EXISTS FOR ()-[r:FACT]-() ON r.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CALL db.awaitIndex('observation_embedding', 600);
CALL db.awaitIndex('fact_embedding', 600)
