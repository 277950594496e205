// The end of recall's full-text leg (recall/memory_lexical, memory_lexical_each), after rows of the memories
// holding the question's stems ($stems), one per memory: its kind ('observation' or 'fact'), m (the observation
// or the fact record), stems (its search text: its stems one space apart, rules/stems.py) and hit (the stems it
// was found for when they were asked for one by one, else null) and floor (null, or per stem of $stems how
// many memories were found for it, some of them left out: fragments/stem_pools), capped (null, or what
// memory_lexical_each's calls learned, returned as is). BM25 scores the memories in
// Python (rules/stems.py bm25), on both backends alike: here the server computes what that needs of EVERY match and
// the same score per match (to rounding), so only the matches that can make the cut come back whole. One row:
// 'lexical' and, as its memory: documents (how many memories matched), length (their stems in all), frequency
// (per stem of $stems, in order: how many of them hold it, or as many as were found for it alone if more: a
// stem asked alone is as common as floor says) and memories, each kept match's kind, stems, the memory
// whole (an observation without its entity's name) and the cosine of its embedding to $vector (null without
// one, or for a memory not embedded by $model; $observation_cosines[id] and $fact_cosines[id] when given, as
// fragments/vector_scan takes them). Kept: the matches scoring at least the $k-th best (less a
// margin for rounding: many scores tie, and Python cuts ties by what the memories say) and, without a $vector,
// when the question names a time [$start, $end), those valid in it scoring at least the $k-th best of them
// (Python's window leg). $index gives each stem's position in $stems, $corpus the scope's memories (bm25's
// corpus_size). BM25's constants are rules/stems.py's (k1 1.2, b 0.75: 2.2 = k1 + 1, 0.3 = k1 (1 - b),
// 0.9 = k1 b); a match's score is summed per occurrence of a stem (tf occurrences of weight w / (tf + norm)
// make w tf / (tf + norm)). Lists stand for the matches (kinds, ms, sizes, helds: the positions in $stems of
// the stems each holds, repeats kept), as FalkorDB reads them faster than a list of maps.
WITH kind, m, hit, floor, capped, CASE WHEN stems IS NULL OR stems = '' THEN [] ELSE split(stems, ' ') END AS words
WITH collect(kind) AS kinds, collect(m) AS ms, collect(hit) AS hits, collect(size(words)) AS sizes,
     collect([w IN words WHERE w IN $stems | $index[w]]) AS helds, count(*) AS n, sum(size(words)) AS length,
     head(collect(floor)) AS floor, head(collect(capped)) AS capped
WITH kinds, ms, sizes, helds, n, length, capped, CASE WHEN $corpus > n THEN $corpus ELSE n END AS total,
     [i IN range(0, size($stems) - 1) | size([h IN helds WHERE i IN h])] AS holding,
     CASE WHEN floor IS NULL THEN [t IN $stems | size([h IN hits WHERE t IN h])] ELSE floor END AS counted
WITH kinds, ms, sizes, helds, n, length, total, capped,
     [i IN range(0, size($stems) - 1) | CASE WHEN counted[i] > holding[i] THEN counted[i] ELSE holding[i] END] AS frequency
WITH kinds, ms, sizes, helds, n, length, frequency, capped, CASE WHEN length = 0 THEN 0.9 ELSE 0.9 * n / length END AS per_stem,
     [f IN frequency | 2.2 * log(1 + (total - CASE WHEN f < total THEN f ELSE total END + 0.5)
                                  / (CASE WHEN f < total THEN f ELSE total END + 0.5))] AS weight
WITH kinds, ms, n, length, frequency, capped,
     [j IN range(0, n - 1) | reduce(s = 0.0, i IN helds[j] |
       s + weight[i] / (size([x IN helds[j] WHERE x = i]) + 0.3 + per_stem * sizes[j]))] AS scores,
     CASE WHEN $vector IS NULL AND $start IS NOT NULL THEN [m IN ms | m.valid_at >= $start AND m.valid_at < $end]
     ELSE [] END AS dated
{{call(scores, dated)}}
  UNWIND range(0, size(scores) - 1) AS j
  WITH scores[j] AS s, coalesce(dated[j], false) AS in_window ORDER BY s DESC
  RETURN collect(s)[$k - 1] AS cut, collect(CASE WHEN in_window THEN s END)[$k - 1] AS dated_cut
}
WITH kinds, ms, n, length, frequency, capped,
     [j IN range(0, n - 1) WHERE scores[j] > 0 AND (cut IS NULL OR scores[j] >= cut * (1 - 1e-9)
       OR (coalesce(dated[j], false) AND (dated_cut IS NULL OR scores[j] >= dated_cut * (1 - 1e-9))))] AS kept
WITH n, length, frequency, capped, [j IN kept WHERE kinds[j] = 'observation' | ms[j]] AS observed,
     [j IN kept WHERE kinds[j] = 'fact' | ms[j]] AS told
{{call(observed)}}
  WITH observed, {{query_vector($vector)}} AS v
  UNWIND observed AS o
  RETURN collect({kind: 'observation', stems: o.search_text,
                  memory: {entity: null, entity_key: o.entity, {{observation_fields}}},
                  cosine: CASE WHEN $vector IS NOT NULL AND o.embedding_model = $model
                          THEN coalesce($observation_cosines[o.id], {{bound_cosine(o.embedding, v)}}) END}) AS observations
}
{{call(told)}}
  WITH told, {{query_vector($vector)}} AS v
  UNWIND told AS r
  WITH r, v, startNode(r) AS a, endNode(r) AS b
  RETURN collect({kind: 'fact', stems: r.search_text, memory: {{fact}},
                  cosine: CASE WHEN $vector IS NOT NULL AND r.embedding_model = $model
                          THEN coalesce($fact_cosines[r.id], {{bound_cosine(r.embedding, v)}}) END}) AS facts
}
RETURN 'lexical' AS leg, null AS stem, null AS kind, null AS stems,
       {documents: n, length: length, frequency: frequency, memories: observations + facts, capped: capped} AS memory, null AS cosine
