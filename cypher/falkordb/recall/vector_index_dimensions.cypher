// FalkorDB's own: each dialect lists its indexes in syntax of its own.
// The memories' vector indexes (recall/vector_index) as they stand: which (observations, facts), their
// dimensions, and whether they are built (FalkorDB builds an index in the background).
CALL db.indexes() YIELD label, properties, options, entitytype, status
WITH label, properties, options, entitytype, status
WHERE 'embedding' IN properties AND ((label = 'Observation' AND entitytype = 'NODE')
      OR (label = 'FACT' AND entitytype = 'RELATIONSHIP'))
RETURN CASE label WHEN 'FACT' THEN 'fact' ELSE 'observation' END AS kind,
       options.embedding.dimension AS dimensions, status = 'OPERATIONAL' AS online
