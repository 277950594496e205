// Neo4j's own: FalkorDB locks a scope with a command of its own on the server (backends/falkordb_steps.py).
// Takes the scope's write lock for the rest of the transaction: Neo4j holds the write lock of what a
// transaction changed until commit, so the writers of one scope queue here, on the relationship holding
// the scope's state, in the order they arrive, instead of racing. MATCH takes no shared lock first (MERGE
// would, and two writers upgrading shared locks deadlock), so the scope's node and relationship must
// exist: a scope's first write creates them with scope/create_scope first (as it does for a scope written
// before store format 5, whose node held its state).
// Any write to the relationship takes the lock; the token names the writer (for a person looking at the graph).
// (FalkorDB has no multi-statement transaction; its backend holds a lock of its own on the server.)
MATCH (s:Scope {scope: $scope})-[st:STATE]->(s)
SET st.locked_by = $token
RETURN st.version AS version
