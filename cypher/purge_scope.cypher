// Hard-deletes everything one scope holds (GDPR erasure of a tenant or session),
// its audit log and rejections included.
OPTIONAL MATCH (e:Entity {scope: $scope})
OPTIONAL MATCH (e)-[r:FACT]->()
WITH collect(DISTINCT e) AS entities, count(r) AS facts
OPTIONAL MATCH (al:Alias {scope: $scope})
WITH entities, facts, collect(al) AS aliases
OPTIONAL MATCH (s:Scope {scope: $scope})
WITH entities, facts, aliases, collect(s) AS scopes
OPTIONAL MATCH (t:Tombstone {scope: $scope})
WITH entities, facts, aliases, scopes, collect(t) AS tombstones
OPTIONAL MATCH (entry:Audit {scope: $scope})
WITH entities, facts, aliases, scopes, tombstones, collect(entry) AS entries
FOREACH (x IN entities | DETACH DELETE x)
FOREACH (x IN aliases | DELETE x)
FOREACH (x IN scopes | DELETE x)
FOREACH (x IN tombstones | DELETE x)
FOREACH (x IN entries | DELETE x)
RETURN size(entities) AS entities, facts, size(aliases) AS aliases
