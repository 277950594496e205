// The span of Memory.growth: now (never earlier than the scope's last write) and the scope's first
// audit entry, where its chart starts unless asked otherwise; and the scope's store format (from 10 on,
// its writes keep growth counters: entities/growth_slices).
{{read_clock}}
OPTIONAL MATCH (x:Audit {scope: $scope}) {{scope_seek(x, Audit, at)}} true
WITH as_of, min(x.at) AS first
OPTIONAL MATCH (:Scope {scope: $scope})-[st:STATE]->()
RETURN as_of AS now, first, st.format AS format
