// recall/memory_lexical for a scope whose vector leg is a scan (fetch 0: fewer memories than
// recalling.INDEXED_FROM, or no index of the vectors' dimension): without the branches that ask the vector
// indexes (fragments/memory_index_legs), which a scan never runs but which cost the server still (on FalkorDB
// ~17% of the statement's time on LoCoMo: each branch's plan is built and run for every recall).
{{memory_lexical_legs}}
{{memory_scan_legs}}
