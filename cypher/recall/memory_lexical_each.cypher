// Recall's memories of a larger scope (recall/memory_lexical reads a small one's) with an embedder: the full-text
// leg stem by stem (fragments/lexical_each, each dialect's own: their fulltext procedures differ), then the vector
// and window legs (fragments/memory_vector_legs). Rows: leg, stem, kind, stems, memory, cosine.
{{lexical_each}}
{{memory_vector_legs}}
