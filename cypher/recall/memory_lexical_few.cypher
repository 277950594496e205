// recall/memory_lexical_alone for a question of at most five stems (recalling.FEW_STEMS): FalkorDB's
// fragments/lexical_few asks only the first five stem slots (a slot costs the server even when empty).
{{lexical_few}}
