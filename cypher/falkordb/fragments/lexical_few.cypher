// FalkorDB's own: fragments/lexical_each for a question of at most five stems (recall/memory_lexical_few): only
// the first five stem slots. Every slot's branches cost the server even when its slot is empty (plan and run:
// the statement with nine slots and no stem 2.2 ms, with five 1.7, at load 8), so a question that needs no more
// is not given them; the same calls are made, the same answer comes back.
CALL {
{{first_stem_slots}}
}
{{stem_calls}}
