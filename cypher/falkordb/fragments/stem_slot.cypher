// FalkorDB's own: one stem slot of recall/memory_lexical_each, the stem (or stems) t, or null for an empty
// slot: a row per kind of memory (stem, kind, found: the scope's current memories of that kind holding it, up
// to $cap as the index gives them, none when they reach $cap (fragments/stem_pools keeps none of those: carried
// through the statement's list projections, $cap memories a common stem cost copies of them all), and pooled: how
// many it found; lasting: how many of those are observations or fact records never closed, 0 below $cap). A call
// named in $known_observation or $known_fact is not made. An empty slot is left out inside each sub-query:
// FalkorDB 4.x's server crashes when no row enters a sub-query of branches inside another sub-query.
CALL { WITH t
  WITH t WHERE t IS NOT NULL AND NOT t IN $known_observation
  CALL db.idx.fulltext.queryNodes('Observation', '(' + t + ')' + {{memory_tokens()}}) YIELD node
  WITH node AS o, t
  WHERE o.scope = $scope AND {{known_then(o)}}
  WITH o, t LIMIT $cap
  WITH t, collect(o) AS found
  RETURN t AS stem, 'observation' AS kind, CASE WHEN size(found) < $cap THEN found ELSE [] END AS found,
         size(found) AS pooled, size(found) AS lasting
  UNION ALL
  WITH t
  WITH t WHERE t IS NOT NULL AND NOT t IN $known_fact
  CALL db.idx.fulltext.queryRelationships('FACT', '(' + t + ')' + {{memory_tokens()}}) YIELD relationship
  WITH relationship AS r, t
  WHERE {{state}} = 'believed' AND r.valid_at <= $as_of
    AND (r.invalid_at IS NULL OR r.invalid_at > $as_of) AND {{known_then(r)}}
  WITH r, t, startNode(r) AS a WHERE a.scope = $scope
  WITH r, t LIMIT $cap
  WITH t, collect(r) AS found
  RETURN t AS stem, 'fact' AS kind, CASE WHEN size(found) < $cap THEN found ELSE [] END AS found,
         size(found) AS pooled,
         CASE WHEN size(found) < $cap THEN 0 ELSE size([x IN found WHERE x.invalid_at IS NULL]) END AS lasting
}
RETURN stem, kind, found, pooled, lasting
