// recall/state_and_term_hits's first row, in both dialects' forms of it: the scope's state and whether the scope
// holds any fact record, its term columns null.
{{scope_state_for_read}}
OPTIONAL MATCH (:Entity {scope: $scope})-[r:FACT]->()
WITH s, r LIMIT 1
RETURN {{scope_state_map}} AS state, count(r) AS facts, null AS term, null AS hits
