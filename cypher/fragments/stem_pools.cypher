// Between the full-text calls of recall/memory_lexical_each and fragments/lexical_cut: which memories each stem
// of the question gives, a function of the memories alone, never of the index's order (issue 28). In: lists, one
// entry per call (s: the stem, or the pairs of common stems asked together; k: the kind of memory; f: the
// current memories of that kind it found, or none if p reached $cap; p: how many the index gave, at most $cap,
// the first the index yields; c: how many current memories it found, f's or not; capped: carried to lexical_cut). Out: a row a memory (kind, m,
// stems, hit: the calls that gave it) and floor (per stem of $stems, how many memories were found for it: what
// lexical_cut counts as its frequency). A call the index gave fewer than
// $cap gave every match: its $pool shortest (the size of their search text; BM25 ranks the shorter of the
// memories holding a stem once higher), then by what they say (their search text: the same on both backends),
// then by id, go on. A call that reached $cap is common: which $cap
// the index gave is its own order (a memory re-indexed by a write that changes none of its words moves in it;
// an imported store has its own), so none goes on; floor keeps BM25 weighing the stem as common. Sorting every
// match instead costs a pass over thousands for a common stem (2.9x recall's p50 at 100,000 writes).
WITH s, k, f, p, c, capped, range(0, size(s) - 1) AS groups
WITH s, k, f, p, groups, capped,
     [t IN $stems | reduce(n = 0, g IN groups | n + CASE WHEN s[g] = t THEN c[g] ELSE 0 END)] AS floor,
     [g IN groups WHERE c[g] > 0 AND p[g] < $cap] AS kept
UNWIND kept AS g
UNWIND f[g] AS m
WITH s, k, g, m, floor, capped ORDER BY g, size(m.search_text), m.search_text, m.id
WITH s, k, g, collect(m) AS ms, floor, capped
UNWIND [i IN range(0, CASE WHEN size(ms) < $pool THEN size(ms) ELSE $pool END - 1) | ms[i]] AS m
WITH k[g] AS kind, m, s[g] AS stem, floor, capped
WITH kind, m, m.search_text AS stems, collect(stem) AS hit, floor, capped
