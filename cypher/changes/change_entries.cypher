// The audit entries of the scope recorded from $since up to $until (null: now), oldest first, from the cursor
// on ($after_at, $after_id: that entry included; both null on the first page), at most $limit; with $keys,
// only the entries that touched one of them (engine/changes.py reads them as changes). An entry that stores
// its verdicts (rules/changes.py verdicts) is read without its detail: its events are its verdict_records.
MATCH (x:Audit {scope: $scope})
WHERE x.at >= $since AND ($until IS NULL OR x.at < $until)
  AND ($after_at IS NULL OR x.at > $after_at OR (x.at = $after_at AND x.id >= $after_id))
  AND ($keys IS NULL OR any(k IN $keys WHERE k IN x.entities))
WITH x
ORDER BY x.at, x.id
LIMIT $limit
RETURN {id: x.id, at: x.at, action: x.action, client: x.client, source: x.source, model: x.model,
        session: x.session, entities: x.entities, facts: x.facts, secrets: x.secrets,
        detail: CASE WHEN x.verdicts IS NULL THEN x.detail END} AS entry,
       x.verdicts AS verdicts, x.verdict_records AS verdict_records, x.verdict_before AS verdict_before,
       x.verdict_by AS verdict_by, x.verdict_why AS verdict_why
