// FalkorDB's own: the first five stem slots of fragments/lexical_each (and all of lexical_few's), branches of
// one sub-query (rows: stem, kind, found, pooled, lasting; fragments/stem_slot).
  UNWIND [$stems[0]] AS t
  {{stem_slot}}
  UNION ALL
  UNWIND [$stems[1]] AS t
  {{stem_slot}}
  UNION ALL
  UNWIND [$stems[2]] AS t
  {{stem_slot}}
  UNION ALL
  UNWIND [$stems[3]] AS t
  {{stem_slot}}
  UNION ALL
  UNWIND [$stems[4]] AS t
  {{stem_slot}}
