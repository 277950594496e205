// Hard-deletes everything one scope holds (erasure of a tenant or session), its audit log,
// rejections and growth counters included. The scope's node and state stay, with its stored rules, its counters at zero and its
// version moved on: a version never repeats, so a plan made before the purge cannot pass the guard.
OPTIONAL MATCH (e:Entity {scope: $scope})
OPTIONAL MATCH (e)-[r:FACT]->(b:Entity)
WITH collect(DISTINCT e) AS entities, count(r) AS records, count(DISTINCT CASE WHEN r IS NULL THEN null ELSE [e.key, r.predicate, b.key] END) AS facts
OPTIONAL MATCH (al:Alias {scope: $scope}) {{scope_seek(al, Alias, key)}} true
WITH entities, records, facts, collect(al) AS aliases
OPTIONAL MATCH (o:Observation {scope: $scope}) {{scope_seek(o, Observation, id)}} true
WITH entities, records, facts, aliases, collect(o) AS observations
FOREACH (x IN observations | DELETE x)
WITH entities, records + size(observations) AS records, facts, aliases
OPTIONAL MATCH (t:Tombstone {scope: $scope}) {{scope_seek(t, Tombstone, subject, predicate, object)}} true
WITH entities, records, facts, aliases, collect(t) AS tombstones
OPTIONAL MATCH (entry:Audit {scope: $scope}) {{scope_seek(entry, Audit, at)}} true
WITH entities, records, facts, aliases, tombstones, collect(entry) AS entries
FOREACH (x IN entities | DETACH DELETE x)
FOREACH (x IN aliases | DELETE x)
FOREACH (x IN tombstones | DELETE x)
FOREACH (x IN entries | DELETE x)
WITH entities, records, facts, aliases
// A slice's key starts with its scope (rules/growth.py): a prefix seek of the key index, not every scope's slices.
OPTIONAL MATCH (c:Growth)
WHERE c.key STARTS WITH ($scope + '|') AND c.scope = $scope
WITH entities, records, facts, aliases, collect(c) AS slices
FOREACH (x IN slices | DETACH DELETE x)
WITH entities, records, facts, aliases
{{scope_state_for_write}}
WITH entities, records, facts, aliases, st, st.version AS version  // read first (see writes/apply_plan.cypher)
SET st.version = version + 1, st.updated_at = $now, st.facts = 0, st.candidates = 0, st.entities = 0, st.tombstones = 0,
    st.expired = 0, st.ended = 0
RETURN size(entities) AS entities, records, facts, size(aliases) AS aliases
