// FalkorDB's own: each dialect names and configures a vector index in syntax of its own.
// The vector indexes (cosine; dimensions from the embedder) over entity-name embeddings and over memories'
// (observations, fact records): recall's vector leg asks the memories' for its scope's nearest (recall/
// memory_vector_legs). An index that exists is kept ("already indexed", which the driver tolerates), whatever its
// dimensions: recall/vector_index_dimensions reads them, and a memory whose embedder has others scans its scope.
CREATE VECTOR INDEX FOR (e:Entity) ON (e.embedding) OPTIONS {dimension: $dimensions, similarityFunction: 'cosine'};
CREATE VECTOR INDEX FOR (o:Observation) ON (o.embedding) OPTIONS {dimension: $dimensions, similarityFunction: 'cosine'};
CREATE VECTOR INDEX FOR ()-[r:FACT]-() ON (r.embedding) OPTIONS {dimension: $dimensions, similarityFunction: 'cosine'}
