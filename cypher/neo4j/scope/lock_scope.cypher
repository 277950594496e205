// Takes the scope's write lock for the rest of the transaction: Neo4j holds a node's write lock until
// commit, so the writers of one scope queue here, in the order they arrive, instead of racing. MATCH
// takes no shared lock first (MERGE would, and two writers upgrading shared locks deadlock), so the
// scope's node must exist: a scope's first write creates it with scope/create_scope first.
// Any write to the node takes the lock; the token names the writer (for a person looking at the graph).
// (FalkorDB has no multi-statement transaction; its backend holds a lock of its own on the server.)
MATCH (s:Scope {scope: $scope})
SET s.locked_by = $token
RETURN s.version AS version
