// Store format 10: growth counters counted from the scope's records (engine/migrations.py), $grown as writes
// give them (fragments/grow).
MATCH (s:Scope {scope: $scope})
{{grow}}
RETURN count(*) AS done
