// Recall's memories of a larger scope without an embedder: the full-text leg stem by stem alone
// (fragments/lexical_each), one row (leg 'lexical'). recall/memory_lexical_each adds the vector and window legs,
// whose branches find nothing without a vector and still cost the server to plan and run: at 100,000 writes
// about half of this statement's time with no stem to ask (benchmarks/results/2026-12-07-...-big28).
{{lexical_each}}
