// Recall's memories of a small scope (fewer than recalling.SMALL_SCOPE; recall/memory_lexical_each reads a larger
// one's): the names and the full-text leg (fragments/memory_lexical_legs, each dialect's own: their fulltext
// procedures differ), then the vector and window legs (fragments/memory_vector_legs), the vector leg by the
// memories' vector indexes ($fetch > 0). Rows: leg, stem, kind, stems, memory, cosine.
{{memory_lexical_legs}}
{{memory_vector_legs}}
