// FalkorDB's own: its fulltext procedures take RediSearch queries over one label or relationship type, filtered
// by the scope property.
// Recall's full-text leg over the memories of a larger scope (memory_lexical asks a small one): for each stem
// of the question ($stems: letters and digits only, so they carry no query syntax), up to $pool of the scope's
// current memories holding it, observations and fact records apart (believed, valid at $as_of; recorded by
// $known_at if given), as rows of the stem, the memory's kind, its stems (BM25 scores the memories in Python,
// on both backends alike: rules/stems.py), the memory whole (an observation without its entity's name) and the
// cosine of its embedding to $vector (null without one, or for a memory not embedded by $model). A stem
// matching more memories than $pool gives $pool of them, and its count tells BM25 it is common: FalkorDB's
// index lists every match of a query before it can sort them, so a stem is asked for alone and cut, never
// sorted (a common one would cost a pass over thousands: 120-430 ms for a word 100,000 memories hold, against
// 0.35 cut at 200). One branch per stem slot, holding a sub-query per kind (FalkorDB applies a LIMIT inside
// CALL {} once, not per row: one row enters each); the stems past the eighth are asked for together in a
// ninth ("a | b | ...": range() indexes them, as a list slice past the list's end, $stems[9..], hangs
// FalkorDB 4.x's server). Eight slots cover 95% of LoCoMo's questions: every branch costs even when its slot
// is empty (32 flat branches took 11 ms where 8 nested ones take 1).
WITH $stems[0] AS t WHERE t IS NOT NULL
CALL { WITH t
  CALL db.idx.fulltext.queryNodes('Observation', t) YIELD node
  WITH node AS o, t
  WHERE o.scope = $scope AND o.expired_at IS NULL AND ($known_at IS NULL OR o.recorded_at <= $known_at)
  WITH o, t LIMIT $pool
  RETURN 'lexical' AS leg, t AS stem, 'observation' AS kind, o.search_text AS stems,
         {entity: null, entity_key: o.entity, {{observation_fields}}} AS memory,
         CASE WHEN $vector IS NOT NULL AND o.embedding_model = $model THEN {{cosine(o.embedding, $vector)}} END AS cosine
  UNION ALL
  WITH t
  CALL db.idx.fulltext.queryRelationships('FACT', t) YIELD relationship
  WITH relationship AS r, t
  WHERE r.expired_at IS NULL AND {{state}} = 'believed' AND r.valid_at <= $as_of
    AND (r.invalid_at IS NULL OR r.invalid_at > $as_of) AND ($known_at IS NULL OR r.recorded_at <= $known_at)
  WITH r, t, startNode(r) AS a WHERE a.scope = $scope
  WITH r, t, a, endNode(r) AS b LIMIT $pool
  RETURN 'lexical' AS leg, t AS stem, 'fact' AS kind, r.search_text AS stems, {{fact}} AS memory,
         CASE WHEN $vector IS NOT NULL AND r.embedding_model = $model THEN {{cosine(r.embedding, $vector)}} END AS cosine
}
RETURN leg, stem, kind, stems, memory, cosine
UNION ALL
WITH $stems[1] AS t WHERE t IS NOT NULL
CALL { WITH t
  CALL db.idx.fulltext.queryNodes('Observation', t) YIELD node
  WITH node AS o, t
  WHERE o.scope = $scope AND o.expired_at IS NULL AND ($known_at IS NULL OR o.recorded_at <= $known_at)
  WITH o, t LIMIT $pool
  RETURN 'lexical' AS leg, t AS stem, 'observation' AS kind, o.search_text AS stems,
         {entity: null, entity_key: o.entity, {{observation_fields}}} AS memory,
         CASE WHEN $vector IS NOT NULL AND o.embedding_model = $model THEN {{cosine(o.embedding, $vector)}} END AS cosine
  UNION ALL
  WITH t
  CALL db.idx.fulltext.queryRelationships('FACT', t) YIELD relationship
  WITH relationship AS r, t
  WHERE r.expired_at IS NULL AND {{state}} = 'believed' AND r.valid_at <= $as_of
    AND (r.invalid_at IS NULL OR r.invalid_at > $as_of) AND ($known_at IS NULL OR r.recorded_at <= $known_at)
  WITH r, t, startNode(r) AS a WHERE a.scope = $scope
  WITH r, t, a, endNode(r) AS b LIMIT $pool
  RETURN 'lexical' AS leg, t AS stem, 'fact' AS kind, r.search_text AS stems, {{fact}} AS memory,
         CASE WHEN $vector IS NOT NULL AND r.embedding_model = $model THEN {{cosine(r.embedding, $vector)}} END AS cosine
}
RETURN leg, stem, kind, stems, memory, cosine
UNION ALL
WITH $stems[2] AS t WHERE t IS NOT NULL
CALL { WITH t
  CALL db.idx.fulltext.queryNodes('Observation', t) YIELD node
  WITH node AS o, t
  WHERE o.scope = $scope AND o.expired_at IS NULL AND ($known_at IS NULL OR o.recorded_at <= $known_at)
  WITH o, t LIMIT $pool
  RETURN 'lexical' AS leg, t AS stem, 'observation' AS kind, o.search_text AS stems,
         {entity: null, entity_key: o.entity, {{observation_fields}}} AS memory,
         CASE WHEN $vector IS NOT NULL AND o.embedding_model = $model THEN {{cosine(o.embedding, $vector)}} END AS cosine
  UNION ALL
  WITH t
  CALL db.idx.fulltext.queryRelationships('FACT', t) YIELD relationship
  WITH relationship AS r, t
  WHERE r.expired_at IS NULL AND {{state}} = 'believed' AND r.valid_at <= $as_of
    AND (r.invalid_at IS NULL OR r.invalid_at > $as_of) AND ($known_at IS NULL OR r.recorded_at <= $known_at)
  WITH r, t, startNode(r) AS a WHERE a.scope = $scope
  WITH r, t, a, endNode(r) AS b LIMIT $pool
  RETURN 'lexical' AS leg, t AS stem, 'fact' AS kind, r.search_text AS stems, {{fact}} AS memory,
         CASE WHEN $vector IS NOT NULL AND r.embedding_model = $model THEN {{cosine(r.embedding, $vector)}} END AS cosine
}
RETURN leg, stem, kind, stems, memory, cosine
UNION ALL
WITH $stems[3] AS t WHERE t IS NOT NULL
CALL { WITH t
  CALL db.idx.fulltext.queryNodes('Observation', t) YIELD node
  WITH node AS o, t
  WHERE o.scope = $scope AND o.expired_at IS NULL AND ($known_at IS NULL OR o.recorded_at <= $known_at)
  WITH o, t LIMIT $pool
  RETURN 'lexical' AS leg, t AS stem, 'observation' AS kind, o.search_text AS stems,
         {entity: null, entity_key: o.entity, {{observation_fields}}} AS memory,
         CASE WHEN $vector IS NOT NULL AND o.embedding_model = $model THEN {{cosine(o.embedding, $vector)}} END AS cosine
  UNION ALL
  WITH t
  CALL db.idx.fulltext.queryRelationships('FACT', t) YIELD relationship
  WITH relationship AS r, t
  WHERE r.expired_at IS NULL AND {{state}} = 'believed' AND r.valid_at <= $as_of
    AND (r.invalid_at IS NULL OR r.invalid_at > $as_of) AND ($known_at IS NULL OR r.recorded_at <= $known_at)
  WITH r, t, startNode(r) AS a WHERE a.scope = $scope
  WITH r, t, a, endNode(r) AS b LIMIT $pool
  RETURN 'lexical' AS leg, t AS stem, 'fact' AS kind, r.search_text AS stems, {{fact}} AS memory,
         CASE WHEN $vector IS NOT NULL AND r.embedding_model = $model THEN {{cosine(r.embedding, $vector)}} END AS cosine
}
RETURN leg, stem, kind, stems, memory, cosine
UNION ALL
WITH $stems[4] AS t WHERE t IS NOT NULL
CALL { WITH t
  CALL db.idx.fulltext.queryNodes('Observation', t) YIELD node
  WITH node AS o, t
  WHERE o.scope = $scope AND o.expired_at IS NULL AND ($known_at IS NULL OR o.recorded_at <= $known_at)
  WITH o, t LIMIT $pool
  RETURN 'lexical' AS leg, t AS stem, 'observation' AS kind, o.search_text AS stems,
         {entity: null, entity_key: o.entity, {{observation_fields}}} AS memory,
         CASE WHEN $vector IS NOT NULL AND o.embedding_model = $model THEN {{cosine(o.embedding, $vector)}} END AS cosine
  UNION ALL
  WITH t
  CALL db.idx.fulltext.queryRelationships('FACT', t) YIELD relationship
  WITH relationship AS r, t
  WHERE r.expired_at IS NULL AND {{state}} = 'believed' AND r.valid_at <= $as_of
    AND (r.invalid_at IS NULL OR r.invalid_at > $as_of) AND ($known_at IS NULL OR r.recorded_at <= $known_at)
  WITH r, t, startNode(r) AS a WHERE a.scope = $scope
  WITH r, t, a, endNode(r) AS b LIMIT $pool
  RETURN 'lexical' AS leg, t AS stem, 'fact' AS kind, r.search_text AS stems, {{fact}} AS memory,
         CASE WHEN $vector IS NOT NULL AND r.embedding_model = $model THEN {{cosine(r.embedding, $vector)}} END AS cosine
}
RETURN leg, stem, kind, stems, memory, cosine
UNION ALL
WITH $stems[5] AS t WHERE t IS NOT NULL
CALL { WITH t
  CALL db.idx.fulltext.queryNodes('Observation', t) YIELD node
  WITH node AS o, t
  WHERE o.scope = $scope AND o.expired_at IS NULL AND ($known_at IS NULL OR o.recorded_at <= $known_at)
  WITH o, t LIMIT $pool
  RETURN 'lexical' AS leg, t AS stem, 'observation' AS kind, o.search_text AS stems,
         {entity: null, entity_key: o.entity, {{observation_fields}}} AS memory,
         CASE WHEN $vector IS NOT NULL AND o.embedding_model = $model THEN {{cosine(o.embedding, $vector)}} END AS cosine
  UNION ALL
  WITH t
  CALL db.idx.fulltext.queryRelationships('FACT', t) YIELD relationship
  WITH relationship AS r, t
  WHERE r.expired_at IS NULL AND {{state}} = 'believed' AND r.valid_at <= $as_of
    AND (r.invalid_at IS NULL OR r.invalid_at > $as_of) AND ($known_at IS NULL OR r.recorded_at <= $known_at)
  WITH r, t, startNode(r) AS a WHERE a.scope = $scope
  WITH r, t, a, endNode(r) AS b LIMIT $pool
  RETURN 'lexical' AS leg, t AS stem, 'fact' AS kind, r.search_text AS stems, {{fact}} AS memory,
         CASE WHEN $vector IS NOT NULL AND r.embedding_model = $model THEN {{cosine(r.embedding, $vector)}} END AS cosine
}
RETURN leg, stem, kind, stems, memory, cosine
UNION ALL
WITH $stems[6] AS t WHERE t IS NOT NULL
CALL { WITH t
  CALL db.idx.fulltext.queryNodes('Observation', t) YIELD node
  WITH node AS o, t
  WHERE o.scope = $scope AND o.expired_at IS NULL AND ($known_at IS NULL OR o.recorded_at <= $known_at)
  WITH o, t LIMIT $pool
  RETURN 'lexical' AS leg, t AS stem, 'observation' AS kind, o.search_text AS stems,
         {entity: null, entity_key: o.entity, {{observation_fields}}} AS memory,
         CASE WHEN $vector IS NOT NULL AND o.embedding_model = $model THEN {{cosine(o.embedding, $vector)}} END AS cosine
  UNION ALL
  WITH t
  CALL db.idx.fulltext.queryRelationships('FACT', t) YIELD relationship
  WITH relationship AS r, t
  WHERE r.expired_at IS NULL AND {{state}} = 'believed' AND r.valid_at <= $as_of
    AND (r.invalid_at IS NULL OR r.invalid_at > $as_of) AND ($known_at IS NULL OR r.recorded_at <= $known_at)
  WITH r, t, startNode(r) AS a WHERE a.scope = $scope
  WITH r, t, a, endNode(r) AS b LIMIT $pool
  RETURN 'lexical' AS leg, t AS stem, 'fact' AS kind, r.search_text AS stems, {{fact}} AS memory,
         CASE WHEN $vector IS NOT NULL AND r.embedding_model = $model THEN {{cosine(r.embedding, $vector)}} END AS cosine
}
RETURN leg, stem, kind, stems, memory, cosine
UNION ALL
WITH $stems[7] AS t WHERE t IS NOT NULL
CALL { WITH t
  CALL db.idx.fulltext.queryNodes('Observation', t) YIELD node
  WITH node AS o, t
  WHERE o.scope = $scope AND o.expired_at IS NULL AND ($known_at IS NULL OR o.recorded_at <= $known_at)
  WITH o, t LIMIT $pool
  RETURN 'lexical' AS leg, t AS stem, 'observation' AS kind, o.search_text AS stems,
         {entity: null, entity_key: o.entity, {{observation_fields}}} AS memory,
         CASE WHEN $vector IS NOT NULL AND o.embedding_model = $model THEN {{cosine(o.embedding, $vector)}} END AS cosine
  UNION ALL
  WITH t
  CALL db.idx.fulltext.queryRelationships('FACT', t) YIELD relationship
  WITH relationship AS r, t
  WHERE r.expired_at IS NULL AND {{state}} = 'believed' AND r.valid_at <= $as_of
    AND (r.invalid_at IS NULL OR r.invalid_at > $as_of) AND ($known_at IS NULL OR r.recorded_at <= $known_at)
  WITH r, t, startNode(r) AS a WHERE a.scope = $scope
  WITH r, t, a, endNode(r) AS b LIMIT $pool
  RETURN 'lexical' AS leg, t AS stem, 'fact' AS kind, r.search_text AS stems, {{fact}} AS memory,
         CASE WHEN $vector IS NOT NULL AND r.embedding_model = $model THEN {{cosine(r.embedding, $vector)}} END AS cosine
}
RETURN leg, stem, kind, stems, memory, cosine
UNION ALL
WITH reduce(q = '', i IN range(8, size($stems) - 1) | q + CASE WHEN q = '' THEN '' ELSE ' | ' END + $stems[i]) AS t
WHERE t <> ''
CALL { WITH t
  CALL db.idx.fulltext.queryNodes('Observation', t) YIELD node
  WITH node AS o, t
  WHERE o.scope = $scope AND o.expired_at IS NULL AND ($known_at IS NULL OR o.recorded_at <= $known_at)
  WITH o, t LIMIT $pool
  RETURN 'lexical' AS leg, t AS stem, 'observation' AS kind, o.search_text AS stems,
         {entity: null, entity_key: o.entity, {{observation_fields}}} AS memory,
         CASE WHEN $vector IS NOT NULL AND o.embedding_model = $model THEN {{cosine(o.embedding, $vector)}} END AS cosine
  UNION ALL
  WITH t
  CALL db.idx.fulltext.queryRelationships('FACT', t) YIELD relationship
  WITH relationship AS r, t
  WHERE r.expired_at IS NULL AND {{state}} = 'believed' AND r.valid_at <= $as_of
    AND (r.invalid_at IS NULL OR r.invalid_at > $as_of) AND ($known_at IS NULL OR r.recorded_at <= $known_at)
  WITH r, t, startNode(r) AS a WHERE a.scope = $scope
  WITH r, t, a, endNode(r) AS b LIMIT $pool
  RETURN 'lexical' AS leg, t AS stem, 'fact' AS kind, r.search_text AS stems, {{fact}} AS memory,
         CASE WHEN $vector IS NOT NULL AND r.embedding_model = $model THEN {{cosine(r.embedding, $vector)}} END AS cosine
}
RETURN leg, stem, kind, stems, memory, cosine
{{memory_vector_legs}}
