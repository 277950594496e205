// Neo4j's own: only its scope lock (lock_scope.cypher) needs the scope's node and relationship first.
// Creates a scope's node and the relationship holding its state before its first locked write (see
// lock_scope.cypher); idempotent. For a scope written before store format 5 it moves the state from the
// node (fragments/scope_state_for_write).
{{scope_state_for_write}}
RETURN st.version AS version
