// Store format 15 where the memories hold their search token already (Neo4j: the scope's since format 4 and 6, the
// history token of expired ones since 14: ./set_history_tokens.cypher): nothing to do (see
// ../falkordb/migrations/set_memory_tokens.cypher, which sets FalkorDB's).
RETURN 0 AS observations, 0 AS records, 0 AS updated
