// Hard-deletes one entity, every record touching it and its aliases; keeps the
// scope's counters right and moves its version so concurrent plans re-read.
MATCH (e:Entity {scope: $scope, key: $key})
OPTIONAL MATCH (e)-[r:FACT]-()
WITH e, collect(DISTINCT r) AS records
OPTIONAL MATCH (al:Alias {scope: $scope})
WHERE al.target = e.key
WITH e, records, collect(al) AS aliases
MERGE (s:Scope {scope: $scope})
ON CREATE SET s.version = 0, s.facts = 0, s.entities = 0, s.created_at = $now
SET s.version = s.version + 1,
    s.facts = s.facts - size([x IN records WHERE x.expired_at IS NULL]),
    s.entities = s.entities - 1
WITH e, records, aliases
FOREACH (x IN aliases | DELETE x)
DETACH DELETE e
RETURN 1 AS entities, size(records) AS facts, size(aliases) AS aliases
