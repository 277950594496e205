// FalkorDB's own: what fragments/lexical_each and lexical_few do after the stem slots' sub-query: the calls
// known, the pairs of common stems, then fragments/stem_pools and lexical_cut (lexical_each says how).
WITH collect(stem) AS s, collect(kind) AS k, collect(found) AS f, collect(pooled) AS p,
     collect(CASE WHEN lasting >= $cap THEN [stem, kind] END) AS capped
WITH s, k, f, p, capped + [t IN $slots WHERE NOT t IN $known_observation
                                       AND NOT any(g IN range(0, size(s) - 1) WHERE s[g] = t AND k[g] = 'observation')
                           | [t, 'no observation']] AS capped
WITH s + $known_stems AS s, k + $known_kinds AS k, f + [x IN $known_stems | []] AS f,
     p + [x IN $known_stems | $cap] AS p, capped
WITH s, k, f, p, capped, [x IN $stems WHERE any(g IN range(0, size(s) - 1) WHERE s[g] = x AND p[g] >= $pool)] AS common
WITH s, k, f, p, capped, reduce(q = '', i IN range(0, size(common) - 2) | reduce(a = q, j IN range(i + 1, size(common) - 1) |
       a + CASE WHEN a = '' THEN '' ELSE ' | ' END + '(' + common[i] + ' ' + common[j] + ')')) AS t
CALL { WITH t
  WITH t WHERE t <> '' AND NOT t IN $known_observation
  CALL db.idx.fulltext.queryNodes('Observation', '(' + t + ')' + {{memory_tokens()}}) YIELD node
  WITH node AS o
  WHERE o.scope = $scope AND {{known_then(o)}}
  WITH o LIMIT $cap
  RETURN collect(o) AS observations
}
CALL { WITH t
  WITH t WHERE t <> '' AND NOT t IN $known_fact
  CALL db.idx.fulltext.queryRelationships('FACT', '(' + t + ')' + {{memory_tokens()}}) YIELD relationship
  WITH relationship AS r
  WHERE {{state}} = 'believed' AND r.valid_at <= $as_of
    AND (r.invalid_at IS NULL OR r.invalid_at > $as_of) AND {{known_then(r)}}
  WITH r, startNode(r) AS a WHERE a.scope = $scope
  WITH r LIMIT $cap
  RETURN collect(r) AS facts
}
WITH s, k, f, p, capped, t, observations, facts,
     CASE WHEN t IN $capped_observation THEN $cap ELSE size(observations) END AS po,
     CASE WHEN t IN $known_fact THEN $cap ELSE size(facts) END AS pf
WITH s + [t, t] AS s, k + ['observation', 'fact'] AS k,
     f + [CASE WHEN po < $cap THEN observations ELSE [] END, CASE WHEN pf < $cap THEN facts ELSE [] END] AS f,
     p + [po, pf] AS p,
     capped + CASE WHEN size(observations) >= $cap THEN [[t, 'observation']]
                   WHEN t <> '' AND NOT t IN $known_observation AND size(observations) = 0
                   THEN [[t, 'no observation']] ELSE [] END
            + CASE WHEN size(facts) >= $cap AND size([x IN facts WHERE x.invalid_at IS NULL]) >= $cap
                   THEN [[t, 'fact']] ELSE [] END AS capped
WITH s, k, f, p, p AS c, capped
{{stem_pools}}
{{lexical_cut}}
