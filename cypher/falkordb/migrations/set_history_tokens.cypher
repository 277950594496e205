// FalkorDB's own: it stores no search token (../../migrations/set_history_tokens.cypher sets Neo4j's).
// Store format 14 where the fulltext search filtered by the scope property itself (FalkorDB): an expired memory was
// found by its scope and times alone, so nothing is set (see set_scope_tokens: no SET through an OPTIONAL MATCH);
// format 15 gives every memory its token (set_memory_tokens).
RETURN 0 AS updated
