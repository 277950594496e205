// Hard-deletes one entity, every record touching it, its aliases, rejections and the
// audit entries that name it (erasure must not leave the data in the log); keeps the
// scope's counters right and moves its version so concurrent plans re-read.
MATCH (e:Entity {scope: $scope, key: $key})
OPTIONAL MATCH (e)-[r:FACT]-()
WITH e, collect(DISTINCT r) AS records
OPTIONAL MATCH (al:Alias {scope: $scope})
WHERE al.target = e.key
WITH e, records, collect(al) AS aliases
OPTIONAL MATCH (t:Tombstone {scope: $scope})
WHERE t.subject = e.key OR t.object = e.key
WITH e, records, aliases, collect(t) AS tombstones
OPTIONAL MATCH (entry:Audit {scope: $scope})
WHERE e.key IN entry.entities
WITH e, records, aliases, tombstones, collect(entry) AS entries
MERGE (s:Scope {scope: $scope})
ON CREATE SET s.version = 0, s.facts = 0, s.entities = 0, s.created_at = $now
SET s.version = s.version + 1,
    s.facts = s.facts - size([x IN records WHERE x.expired_at IS NULL]),
    s.entities = s.entities - 1
WITH e, records, aliases, tombstones, entries
FOREACH (x IN aliases | DELETE x)
FOREACH (x IN tombstones | DELETE x)
FOREACH (x IN entries | DELETE x)
DETACH DELETE e
CREATE (note:Audit)
SET note = $audit
RETURN 1 AS entities, size(records) AS facts, size(aliases) AS aliases
