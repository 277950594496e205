// Hard-deletes one entity, every record touching it, its observations, aliases, rejections and every audit
// entry that names it or one of its aliases (erasure must not leave the data in the log: an alias merge
// leaves the merged-in name's entries under the alias's key), except those that also log another entity's
// change: $rewrites gives them without what named the erased entity (engine/erasure.py), with the stored
// verdicts of the events left (none: a page of changes judges the rewritten entry's events when read, from
// records whose ends a merge may have moved since) and without stored values of records (they may name the erased
// entity); keeps the scope's counters right and moves its version so concurrent plans re-read; the entries
// recorded up to now show no stored values of records (st.values_from: changes/change_entries reads their records,
// which may be gone). A note without the name is added to the log.
MATCH (e:Entity {scope: $scope, key: $key})
// The entities at the other end of its records lose them from their count of records (engine/writes.py
// record_counts, kept on a COUNTED relationship of each to itself), one row each.
OPTIONAL MATCH (e)-[r:FACT]-(other:Entity)
WHERE other <> e
WITH e, other, count(r) AS lost
OPTIONAL MATCH (other)-[c:COUNTED]->(other)
FOREACH (x IN CASE WHEN c IS NULL THEN [] ELSE [c] END | SET x.records = x.records - lost)
WITH DISTINCT e
OPTIONAL MATCH (e)-[r:FACT]-()
WITH e, collect(DISTINCT r) AS records
OPTIONAL MATCH (o:Observation {scope: $scope})
WHERE o.entity = e.key
WITH e, records, collect(o) AS observations
OPTIONAL MATCH (al:Alias {scope: $scope})
WHERE al.target = e.key
WITH e, records, observations, collect(al) AS aliases
WITH e, records, observations, aliases, [e.key] + [x IN aliases | x.key] AS keys
OPTIONAL MATCH (t:Tombstone {scope: $scope}) {{scope_seek(t, Tombstone, subject, predicate, object)}} (t.subject IN keys OR t.object IN keys)
WITH e, records, observations, aliases, keys, collect(t) AS tombstones
OPTIONAL MATCH (entry:Audit {scope: $scope}) {{scope_seek(entry, Audit, at)}} any(k IN entry.entities WHERE k IN keys)
WITH e, records, observations, aliases, tombstones, collect(entry) AS entries
MATCH (s:Scope {scope: $scope})-[st:STATE]->(s)
// Counters read into variables first (see writes/apply_plan.cypher).
WITH e, records, observations, aliases, tombstones, entries, st, st.version AS version, st.facts AS facts,
     coalesce(st.candidates, 0) AS candidates, st.entities AS entities, st.tombstones AS rejections,
     coalesce(st.expired, 0) AS expired, coalesce(st.ended, 0) AS ended
SET st.version = version + 1, st.updated_at = $now, st.values_from = {{instant($now)}},
    st.facts = facts - size([x IN records WHERE x.expired_at IS NULL AND coalesce(x.status, "") <> $candidate])
                    - size([x IN observations WHERE x.expired_at IS NULL]),
    st.candidates = candidates - size([x IN records WHERE x.expired_at IS NULL AND x.status = $candidate]),
    st.entities = entities - 1, st.tombstones = rejections - size(tombstones),
    st.expired = expired - size([x IN records WHERE x.expired_at IS NOT NULL]),
    st.ended = ended - size([x IN records WHERE x.expired_at IS NULL AND coalesce(x.status, "") <> $candidate
                                                AND x.invalid_at IS NOT NULL AND x.ahead IS NULL])
{{grow}}
WITH e, records, observations, aliases, tombstones, entries
FOREACH (x IN observations | DELETE x)
FOREACH (x IN aliases | DELETE x)
FOREACH (x IN tombstones | DELETE x)
FOREACH (x IN entries |
  FOREACH (w IN [w IN $rewrites WHERE w.id = x.id] |
    SET x.entities = {{interned_all(w.entities)}}, x.facts = w.facts, x.detail = w.detail,
        x.verdicts = w.verdicts, x.verdict_records = w.verdict_records, x.verdict_before = w.verdict_before,
        x.verdict_by = w.verdict_by, x.verdict_why = w.verdict_why, x.verdict_values = null))
FOREACH (x IN [x IN entries WHERE NOT x.id IN [w IN $rewrites | w.id]] | DELETE x)
DETACH DELETE e
CREATE (note:Audit)
SET note = $audit
RETURN size(records) + size(observations) AS records, size(aliases) AS aliases
