// FalkorDB's own: its fulltext procedures take RediSearch queries over one label or relationship type, filtered
// by the scope property.
// Recall's full-text leg over the memories of a larger scope (memory_lexical asks a small one): for each stem
// of the question ($stems: letters and digits only, so they carry no query syntax), up to $pool of the scope's
// current memories holding it, observations and fact records apart (believed, valid at $as_of; recorded by
// $known_at if given), scored and cut by fragments/lexical_cut (one row: what BM25 needs of every match, and
// the matches that can make the cut, whole). A stem matching more memories than $pool gives $pool of them, and
// its count tells BM25 it is common. Which $pool: the shortest (the size of their search text; BM25 ranks the
// shorter of the memories holding a stem once higher), then the smallest id: a function of the memories alone,
// never the index's order (a memory re-indexed by a write that changes none of its words moves to the end of
// FalkorDB's; an imported store has its own: the answer changed with them, issue 28). The cost: a pass over
// every match of a common stem (FalkorDB's index lists every match of a query before it can sort them: 120-430
// ms for a word 100,000 memories hold, against 0.35 cut in the index's order at 200). One branch per stem slot,
// holding a sub-query per kind (FalkorDB applies a LIMIT inside CALL {} once, not per row: one row enters each,
// the slot's stem or null); the stems past the eighth are asked for together in a ninth ("a | b | ...": range()
// indexes them, as a list slice past the list's end, $stems[9..], hangs FalkorDB 4.x's server). Eight slots
// cover 95% of LoCoMo's questions: every branch costs even when its slot is empty (32 flat branches took 11 ms
// where 8 nested ones take 1). An empty slot is left out inside each sub-query: FalkorDB 4.x's server crashes
// when no row enters a sub-query of branches inside another sub-query.
CALL {
  UNWIND [$stems[0]] AS t
  CALL { WITH t
    WITH t WHERE t IS NOT NULL
    CALL db.idx.fulltext.queryNodes('Observation', t) YIELD node
    WITH node AS o, t
    WHERE o.scope = $scope AND o.expired_at IS NULL AND ($known_at IS NULL OR o.recorded_at <= $known_at)
    WITH o, t ORDER BY size(o.search_text), o.id LIMIT $pool
    RETURN t AS stem, 'observation' AS kind, o AS m, o.search_text AS stems
    UNION ALL
    WITH t
    WITH t WHERE t IS NOT NULL
    CALL db.idx.fulltext.queryRelationships('FACT', t) YIELD relationship
    WITH relationship AS r, t
    WHERE r.expired_at IS NULL AND {{state}} = 'believed' AND r.valid_at <= $as_of
      AND (r.invalid_at IS NULL OR r.invalid_at > $as_of) AND ($known_at IS NULL OR r.recorded_at <= $known_at)
    WITH r, t, startNode(r) AS a WHERE a.scope = $scope
    WITH r, t ORDER BY size(r.search_text), r.id LIMIT $pool
    RETURN t AS stem, 'fact' AS kind, r AS m, r.search_text AS stems
  }
  RETURN stem, kind, m, stems
  UNION ALL
  UNWIND [$stems[1]] AS t
  CALL { WITH t
    WITH t WHERE t IS NOT NULL
    CALL db.idx.fulltext.queryNodes('Observation', t) YIELD node
    WITH node AS o, t
    WHERE o.scope = $scope AND o.expired_at IS NULL AND ($known_at IS NULL OR o.recorded_at <= $known_at)
    WITH o, t ORDER BY size(o.search_text), o.id LIMIT $pool
    RETURN t AS stem, 'observation' AS kind, o AS m, o.search_text AS stems
    UNION ALL
    WITH t
    WITH t WHERE t IS NOT NULL
    CALL db.idx.fulltext.queryRelationships('FACT', t) YIELD relationship
    WITH relationship AS r, t
    WHERE r.expired_at IS NULL AND {{state}} = 'believed' AND r.valid_at <= $as_of
      AND (r.invalid_at IS NULL OR r.invalid_at > $as_of) AND ($known_at IS NULL OR r.recorded_at <= $known_at)
    WITH r, t, startNode(r) AS a WHERE a.scope = $scope
    WITH r, t ORDER BY size(r.search_text), r.id LIMIT $pool
    RETURN t AS stem, 'fact' AS kind, r AS m, r.search_text AS stems
  }
  RETURN stem, kind, m, stems
  UNION ALL
  UNWIND [$stems[2]] AS t
  CALL { WITH t
    WITH t WHERE t IS NOT NULL
    CALL db.idx.fulltext.queryNodes('Observation', t) YIELD node
    WITH node AS o, t
    WHERE o.scope = $scope AND o.expired_at IS NULL AND ($known_at IS NULL OR o.recorded_at <= $known_at)
    WITH o, t ORDER BY size(o.search_text), o.id LIMIT $pool
    RETURN t AS stem, 'observation' AS kind, o AS m, o.search_text AS stems
    UNION ALL
    WITH t
    WITH t WHERE t IS NOT NULL
    CALL db.idx.fulltext.queryRelationships('FACT', t) YIELD relationship
    WITH relationship AS r, t
    WHERE r.expired_at IS NULL AND {{state}} = 'believed' AND r.valid_at <= $as_of
      AND (r.invalid_at IS NULL OR r.invalid_at > $as_of) AND ($known_at IS NULL OR r.recorded_at <= $known_at)
    WITH r, t, startNode(r) AS a WHERE a.scope = $scope
    WITH r, t ORDER BY size(r.search_text), r.id LIMIT $pool
    RETURN t AS stem, 'fact' AS kind, r AS m, r.search_text AS stems
  }
  RETURN stem, kind, m, stems
  UNION ALL
  UNWIND [$stems[3]] AS t
  CALL { WITH t
    WITH t WHERE t IS NOT NULL
    CALL db.idx.fulltext.queryNodes('Observation', t) YIELD node
    WITH node AS o, t
    WHERE o.scope = $scope AND o.expired_at IS NULL AND ($known_at IS NULL OR o.recorded_at <= $known_at)
    WITH o, t ORDER BY size(o.search_text), o.id LIMIT $pool
    RETURN t AS stem, 'observation' AS kind, o AS m, o.search_text AS stems
    UNION ALL
    WITH t
    WITH t WHERE t IS NOT NULL
    CALL db.idx.fulltext.queryRelationships('FACT', t) YIELD relationship
    WITH relationship AS r, t
    WHERE r.expired_at IS NULL AND {{state}} = 'believed' AND r.valid_at <= $as_of
      AND (r.invalid_at IS NULL OR r.invalid_at > $as_of) AND ($known_at IS NULL OR r.recorded_at <= $known_at)
    WITH r, t, startNode(r) AS a WHERE a.scope = $scope
    WITH r, t ORDER BY size(r.search_text), r.id LIMIT $pool
    RETURN t AS stem, 'fact' AS kind, r AS m, r.search_text AS stems
  }
  RETURN stem, kind, m, stems
  UNION ALL
  UNWIND [$stems[4]] AS t
  CALL { WITH t
    WITH t WHERE t IS NOT NULL
    CALL db.idx.fulltext.queryNodes('Observation', t) YIELD node
    WITH node AS o, t
    WHERE o.scope = $scope AND o.expired_at IS NULL AND ($known_at IS NULL OR o.recorded_at <= $known_at)
    WITH o, t ORDER BY size(o.search_text), o.id LIMIT $pool
    RETURN t AS stem, 'observation' AS kind, o AS m, o.search_text AS stems
    UNION ALL
    WITH t
    WITH t WHERE t IS NOT NULL
    CALL db.idx.fulltext.queryRelationships('FACT', t) YIELD relationship
    WITH relationship AS r, t
    WHERE r.expired_at IS NULL AND {{state}} = 'believed' AND r.valid_at <= $as_of
      AND (r.invalid_at IS NULL OR r.invalid_at > $as_of) AND ($known_at IS NULL OR r.recorded_at <= $known_at)
    WITH r, t, startNode(r) AS a WHERE a.scope = $scope
    WITH r, t ORDER BY size(r.search_text), r.id LIMIT $pool
    RETURN t AS stem, 'fact' AS kind, r AS m, r.search_text AS stems
  }
  RETURN stem, kind, m, stems
  UNION ALL
  UNWIND [$stems[5]] AS t
  CALL { WITH t
    WITH t WHERE t IS NOT NULL
    CALL db.idx.fulltext.queryNodes('Observation', t) YIELD node
    WITH node AS o, t
    WHERE o.scope = $scope AND o.expired_at IS NULL AND ($known_at IS NULL OR o.recorded_at <= $known_at)
    WITH o, t ORDER BY size(o.search_text), o.id LIMIT $pool
    RETURN t AS stem, 'observation' AS kind, o AS m, o.search_text AS stems
    UNION ALL
    WITH t
    WITH t WHERE t IS NOT NULL
    CALL db.idx.fulltext.queryRelationships('FACT', t) YIELD relationship
    WITH relationship AS r, t
    WHERE r.expired_at IS NULL AND {{state}} = 'believed' AND r.valid_at <= $as_of
      AND (r.invalid_at IS NULL OR r.invalid_at > $as_of) AND ($known_at IS NULL OR r.recorded_at <= $known_at)
    WITH r, t, startNode(r) AS a WHERE a.scope = $scope
    WITH r, t ORDER BY size(r.search_text), r.id LIMIT $pool
    RETURN t AS stem, 'fact' AS kind, r AS m, r.search_text AS stems
  }
  RETURN stem, kind, m, stems
  UNION ALL
  UNWIND [$stems[6]] AS t
  CALL { WITH t
    WITH t WHERE t IS NOT NULL
    CALL db.idx.fulltext.queryNodes('Observation', t) YIELD node
    WITH node AS o, t
    WHERE o.scope = $scope AND o.expired_at IS NULL AND ($known_at IS NULL OR o.recorded_at <= $known_at)
    WITH o, t ORDER BY size(o.search_text), o.id LIMIT $pool
    RETURN t AS stem, 'observation' AS kind, o AS m, o.search_text AS stems
    UNION ALL
    WITH t
    WITH t WHERE t IS NOT NULL
    CALL db.idx.fulltext.queryRelationships('FACT', t) YIELD relationship
    WITH relationship AS r, t
    WHERE r.expired_at IS NULL AND {{state}} = 'believed' AND r.valid_at <= $as_of
      AND (r.invalid_at IS NULL OR r.invalid_at > $as_of) AND ($known_at IS NULL OR r.recorded_at <= $known_at)
    WITH r, t, startNode(r) AS a WHERE a.scope = $scope
    WITH r, t ORDER BY size(r.search_text), r.id LIMIT $pool
    RETURN t AS stem, 'fact' AS kind, r AS m, r.search_text AS stems
  }
  RETURN stem, kind, m, stems
  UNION ALL
  UNWIND [$stems[7]] AS t
  CALL { WITH t
    WITH t WHERE t IS NOT NULL
    CALL db.idx.fulltext.queryNodes('Observation', t) YIELD node
    WITH node AS o, t
    WHERE o.scope = $scope AND o.expired_at IS NULL AND ($known_at IS NULL OR o.recorded_at <= $known_at)
    WITH o, t ORDER BY size(o.search_text), o.id LIMIT $pool
    RETURN t AS stem, 'observation' AS kind, o AS m, o.search_text AS stems
    UNION ALL
    WITH t
    WITH t WHERE t IS NOT NULL
    CALL db.idx.fulltext.queryRelationships('FACT', t) YIELD relationship
    WITH relationship AS r, t
    WHERE r.expired_at IS NULL AND {{state}} = 'believed' AND r.valid_at <= $as_of
      AND (r.invalid_at IS NULL OR r.invalid_at > $as_of) AND ($known_at IS NULL OR r.recorded_at <= $known_at)
    WITH r, t, startNode(r) AS a WHERE a.scope = $scope
    WITH r, t ORDER BY size(r.search_text), r.id LIMIT $pool
    RETURN t AS stem, 'fact' AS kind, r AS m, r.search_text AS stems
  }
  RETURN stem, kind, m, stems
  UNION ALL
  UNWIND [reduce(q = '', i IN range(8, size($stems) - 1) | q + CASE WHEN q = '' THEN '' ELSE ' | ' END + $stems[i])] AS t
  CALL { WITH t
    WITH t WHERE t <> ''
    CALL db.idx.fulltext.queryNodes('Observation', t) YIELD node
    WITH node AS o, t
    WHERE o.scope = $scope AND o.expired_at IS NULL AND ($known_at IS NULL OR o.recorded_at <= $known_at)
    WITH o, t ORDER BY size(o.search_text), o.id LIMIT $pool
    RETURN t AS stem, 'observation' AS kind, o AS m, o.search_text AS stems
    UNION ALL
    WITH t
    WITH t WHERE t <> ''
    CALL db.idx.fulltext.queryRelationships('FACT', t) YIELD relationship
    WITH relationship AS r, t
    WHERE r.expired_at IS NULL AND {{state}} = 'believed' AND r.valid_at <= $as_of
      AND (r.invalid_at IS NULL OR r.invalid_at > $as_of) AND ($known_at IS NULL OR r.recorded_at <= $known_at)
    WITH r, t, startNode(r) AS a WHERE a.scope = $scope
    WITH r, t ORDER BY size(r.search_text), r.id LIMIT $pool
    RETURN t AS stem, 'fact' AS kind, r AS m, r.search_text AS stems
  }
  RETURN stem, kind, m, stems
}
WITH kind, m, stems, collect(stem) AS hit
{{lexical_cut}}
{{memory_vector_legs}}
