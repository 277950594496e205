// Neo4j's own: each dialect lists its indexes in syntax of its own.
// The memories' vector indexes (recall/vector_index) as they stand: which (observations, facts), their
// dimensions, and whether they are online.
SHOW VECTOR INDEXES YIELD name, options, state
WHERE name IN ['observation_embedding', 'fact_embedding']
RETURN CASE name WHEN 'fact_embedding' THEN 'fact' ELSE 'observation' END AS kind,
       options.indexConfig.`vector.dimensions` AS dimensions, state = 'ONLINE' AS online
