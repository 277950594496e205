// The state of scope $scope (version, counters, rules, clock) as s: its STATE relationship (see
// scope_state_for_write), or its node for a scope written before store format 5 and not opened for
// writing since (engine/migrations.py moves it); null for a scope never written.
OPTIONAL MATCH (scope_node:Scope {scope: $scope})
OPTIONAL MATCH (scope_node)-[scope_state:STATE]->(scope_node)
WITH coalesce(scope_state, scope_node) AS s
