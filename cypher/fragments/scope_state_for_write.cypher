// The scope's node, s, and the relationship that holds its state (version, counters, rules, clock), st: a
// STATE relationship of the node to itself. Not the node: FalkorDB merges the labels of nodes created since
// into a matrix as large as the graph before it sets any node's property, so a state kept on the node made
// every write after one that created a node cost more as the store grew (benchmarks/node_update_cost.py).
// A scope written before store format 5 kept its state on its node: the relationship starts from it.
MERGE (s:Scope {scope: $scope})
MERGE (s)-[st:STATE]->(s)
ON CREATE SET st += properties(s), st.version = coalesce(s.version, 0), st.facts = coalesce(s.facts, 0),
              st.candidates = coalesce(s.candidates, 0), st.entities = coalesce(s.entities, 0),
              st.tombstones = coalesce(s.tombstones, 0), st.created_at = coalesce(s.created_at, $now),
              st.format = coalesce(s.format, $format)
