// Hard-deletes one page of what a scope holds (erasure of a tenant or session), its audit log, rejections and
// growth counters included: at most $page entities, with every fact record they take part in, and at most $page
// of each other kind. Memory.purge(scope=...) sends it again, each page in a transaction of its own, until a page
// finds nothing (deleted 0): a whole scope in one transaction took a 1 GB Neo4j heap down at 90k facts. Counted
// once: a fact's records all join its subject and object, so the first page holding either deletes them all.
// The scope's node and state stay, with its stored rules, its counters at zero and its version moved on at every
// page: a version never repeats, so a plan made before the purge cannot pass the guard.
OPTIONAL MATCH (e:Entity {scope: $scope})
WITH e LIMIT $page
OPTIONAL MATCH (e)-[r:FACT]-(:Entity)
WITH collect(DISTINCT e) AS entities, collect(DISTINCT r) AS rs,
     count(DISTINCT CASE WHEN r IS NULL THEN null ELSE [startNode(r).key, r.predicate, endNode(r).key] END) AS facts
WITH entities, size(rs) AS records, facts
OPTIONAL MATCH (al:Alias {scope: $scope}) {{scope_seek(al, Alias, key)}} true
WITH entities, records, facts, al LIMIT $page
WITH entities, records, facts, collect(al) AS aliases
OPTIONAL MATCH (o:Observation {scope: $scope}) {{scope_seek(o, Observation, id)}} true
WITH entities, records, facts, aliases, o LIMIT $page
WITH entities, records, facts, aliases, collect(o) AS observations
OPTIONAL MATCH (t:Tombstone {scope: $scope}) {{scope_seek(t, Tombstone, subject, predicate, object)}} true
WITH entities, records, facts, aliases, observations, t LIMIT $page
WITH entities, records, facts, aliases, observations, collect(t) AS tombstones
OPTIONAL MATCH (entry:Audit {scope: $scope}) {{scope_seek(entry, Audit, at)}} true
WITH entities, records, facts, aliases, observations, tombstones, entry LIMIT $page
WITH entities, records, facts, aliases, observations, tombstones, collect(entry) AS entries
// A slice's key starts with its scope (rules/growth.py): a prefix seek of the key index, not every scope's slices.
OPTIONAL MATCH (c:Growth)
WHERE c.key STARTS WITH ($scope + '|') AND c.scope = $scope
WITH entities, records, facts, aliases, observations, tombstones, entries, c LIMIT $page
WITH entities, records, facts, aliases, observations, tombstones, entries, collect(c) AS slices
FOREACH (x IN observations | DELETE x)
FOREACH (x IN entities | DETACH DELETE x)
FOREACH (x IN aliases | DELETE x)
FOREACH (x IN tombstones | DELETE x)
FOREACH (x IN entries | DELETE x)
FOREACH (x IN slices | DETACH DELETE x)
WITH size(entities) AS entities, records + size(observations) AS records, facts, size(aliases) AS aliases,
     size(entities) + size(aliases) + size(observations) + size(tombstones) + size(entries) + size(slices) AS deleted
{{scope_state_for_write}}
WITH entities, records, facts, aliases, deleted, st, st.version AS version  // read first (see writes/apply_plan.cypher)
SET st.version = version + 1, st.updated_at = $now, st.values_from = {{instant($now)}}, st.facts = 0, st.candidates = 0,
    st.entities = 0, st.tombstones = 0,
    st.expired = 0, st.ended = 0
RETURN entities, records, facts, aliases, deleted
