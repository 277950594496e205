// Creates a scope's node before its first locked write (see lock_scope.cypher); idempotent.
MERGE (s:Scope {scope: $scope})
ON CREATE SET s.version = 0, s.facts = 0, s.candidates = 0, s.entities = 0, s.tombstones = 0,
              s.created_at = $now, s.format = $format
RETURN s.version AS version
