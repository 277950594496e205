// What erasing entity $key must take out of the audit log: its keys (its own and its aliases'), the ids of its
// observations, and every entry that names one of the keys (engine/erasure.py leaves out of each what names the
// entity, and keeps it if another entity's change is left), each with the verdicts it stored of its events (in the
// order of engine/changes.py VERDICT_COLUMNS: the rewritten entry keeps those of the events left).
MATCH (e:Entity {scope: $scope, key: $key})
OPTIONAL MATCH (al:Alias {scope: $scope})
WHERE al.target = e.key
WITH e, [e.key] + collect(al.key) AS keys
OPTIONAL MATCH (o:Observation {scope: $scope})
WHERE o.entity = e.key
WITH keys, collect(o.id) AS observations
OPTIONAL MATCH (x:Audit {scope: $scope}) {{scope_seek(x, Audit, at)}} any(k IN x.entities WHERE k IN keys)
RETURN keys, observations,
       collect(CASE WHEN x IS NULL THEN null
                    ELSE {entry: {{audit}}, verdicts: [x.verdicts, x.verdict_records, x.verdict_before, x.verdict_by,
                                                     x.verdict_why]} END) AS entries
