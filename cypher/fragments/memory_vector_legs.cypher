// Recall's vector and window legs (with a $vector; nothing without), as branches that end a recall/memory_lexical
// statement (its rows: leg, stem, kind, stems, memory, cosine).
// The vector leg: the scope's current observations and fact records (believed, valid at $as_of; recorded by
// $known_at if given) nearest to $vector by the cosine of their embeddings by $model, the best $k of each kind,
// whole, with their stems. The memories' vector indexes (recall/vector_index) give the nearest $fetch of every
// scope's ($fetch > $k: others' are among them), of which the scope's are kept and ranked by their exact
// cosines. When fewer than $k of the scope's were in a full answer (other scopes' memories crowded it) and the
// scope holds more (counted up to $k, and only then), a row of leg 'short' and no memory says so for that kind,
// and the caller scans the scope (recall/memory_vector_scan); the count runs only then (an UNWIND of no row
// when not crowded: Neo4j plans a WHERE on crowded after the seek of the scope's memories, read on every recall).
// With $fetch 0 the indexes are not asked: the kinds in $kinds are scanned here instead (a small scope; or the
// indexes hold vectors of another dimension).
// The window leg: the best $k observations valid in the window [$start, $end) the question names, when it names
// one, by exact cosines (a range of the (scope, valid_at) index: bounded by the window).
// A memory's cosine is taken from $observation_cosines or $fact_cosines where they hold its id (fragments/vector_scan).
{{memory_index_legs}}
{{memory_scan_legs}}
