// What erasing entity $key must take out of the audit log: its keys (its own and its aliases'), the ids of its
// observations, and every entry that names one of the keys (engine/erasure.py leaves out of each what names the
// entity, and keeps it if another entity's change is left).
MATCH (e:Entity {scope: $scope, key: $key})
OPTIONAL MATCH (al:Alias {scope: $scope})
WHERE al.target = e.key
WITH e, [e.key] + collect(al.key) AS keys
OPTIONAL MATCH (o:Observation {scope: $scope})
WHERE o.entity = e.key
WITH keys, collect(o.id) AS observations
OPTIONAL MATCH (x:Audit {scope: $scope}) {{scope_seek(x, Audit, at)}} any(k IN x.entities WHERE k IN keys)
RETURN keys, observations, collect(CASE WHEN x IS NULL THEN null ELSE {{audit}} END) AS entries
