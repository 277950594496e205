// FalkorDB's own: its fulltext procedures take RediSearch queries over one label or relationship type, whose memories
// hold the scope's token (store format 15: phrase memory_tokens), the scope property checked too.
// Recall's full-text leg over the memories of a larger scope (recall/memory_lexical_each, memory_lexical_alone;
// memory_lexical asks a small one): for each stem
// of the question ($stems: letters and digits only, so they carry no query syntax), the scope's current memories
// holding it, observations and fact records apart (believed, valid at $as_of; recorded by $known_at if given),
// up to $cap of each as the index gives them, then, for the stems common in them, the memories holding two of
// those (one call a kind: "(a b) | (a c) | ..."); fragments/stem_pools keeps $pool of each call's that are a
// function of the memories (a call that reached $cap gives none: FalkorDB's index yields matches in the order it
// indexed them, and a write that changes no word of a memory re-indexes it at the end; its list is emptied at
// once, c counting what it found), and
// fragments/lexical_cut scores and cuts them (one row: what BM25 needs of every match, and the matches that can
// make the cut, whole). A stem is asked for alone, never sorted: FalkorDB's index lists every match of a query
// before it can sort them (a pass over thousands for a common stem: 120-430 ms for a word 100,000 memories hold,
// against 0.35 cut at 200). One branch per stem slot, holding a sub-query per kind (FalkorDB applies a LIMIT
// inside CALL {} once, not per row: one row enters each, the slot's stem or null); the stems past the eighth are
// asked for together in a ninth ("a | b | ...": range() indexes them, as a list slice past the list's end,
// $stems[9..], hangs FalkorDB 4.x's server). Eight slots cover 95% of LoCoMo's questions: every branch costs
// even when its slot is empty (32 flat branches took 11 ms where 8 nested ones take 1). An empty slot is left
// out inside each sub-query: FalkorDB 4.x's server crashes when no row enters a sub-query of branches inside
// another sub-query (fragments/stem_slot, its own for FalkorDB).
// Calls the caller knows (engine/recalling.py _known_common: read in the same state of the scope) are not made:
// $known_fact and $known_observation name them (a stem, the ninth slot's stems or the pairs, as asked); those of
// the slots ($slots: what each slot asks) known to reach $cap come back as rows of their own ($known_stems and
// $known_kinds: $cap found, none kept; $capped_observation: the observations' among them), those known to find no
// observation as no row, as when made. capped, given back in the lexical row: the calls made that reached $cap
// with lasting matches (observations; fact records never closed, valid at any later instant), [t, kind], and
// those that found no observation, [t, 'no observation'].
CALL {
{{first_stem_slots}}
  UNION ALL
  UNWIND [$stems[5]] AS t
  {{stem_slot}}
  UNION ALL
  UNWIND [$stems[6]] AS t
  {{stem_slot}}
  UNION ALL
  UNWIND [$stems[7]] AS t
  {{stem_slot}}
  UNION ALL
  UNWIND [CASE WHEN size($stems) > 8
          THEN reduce(q = '', i IN range(8, size($stems) - 1) | q + CASE WHEN q = '' THEN '' ELSE ' | ' END + $stems[i])
          END] AS t
  {{stem_slot}}
}
{{stem_calls}}
