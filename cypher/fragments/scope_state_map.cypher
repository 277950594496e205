// A scope's state, s (scope_state_for_read), as one map: version, counters and stored rules (a scope never
// written reads as version 0; the rules it has not stored come back null, and the library's defaults apply).
{version: coalesce(s.version, 0), facts: coalesce(s.facts, 0), candidates: s.candidates,
        entities: coalesce(s.entities, 0), tombstones: CASE WHEN s IS NULL THEN 0 ELSE s.tombstones END,
        format: s.format, updated_at: s.updated_at, last_batch: s.last_batch,
        max_facts: s.max_facts, max_entities: s.max_entities, max_candidates: s.max_candidates,
        single_valued: s.single_valued, candidate_below: s.candidate_below,
        merge_duplicates_above: s.merge_duplicates_above,
        embedder: s.embedder, dimensions: s.embedder_dimensions}
