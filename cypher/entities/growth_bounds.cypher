// The span of Memory.growth: now (never earlier than the scope's last write) and the scope's first
// audit entry, where its chart starts unless asked otherwise.
{{read_clock}}
OPTIONAL MATCH (x:Audit {scope: $scope})
RETURN as_of AS now, min(x.at) AS first
