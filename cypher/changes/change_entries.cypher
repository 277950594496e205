// A page of changes' one read (engine/changes.py): the audit entries of the scope recorded from $since up to
// $until (null: now), oldest first, from the cursor on ($after_at, $after_id: that entry included; both null on
// the first page), at most $limit; with $keys, only the entries that touched one of them. Of those, the ones
// whose events begin before the ($skip + $events)-th a page takes (an entry that stores its verdicts,
// rules/changes.py verdicts, says how many it names; one that does not counts as none: $limit bounds those),
// as `entries`: each a list of the values its changes show (id, at, action, client, source, model, session),
// its detail (only if it stores no verdicts: its events are judged from it), its stored verdicts and the values
// of their records (below), in the order engine/changes.py _entry names them (VERDICT_COLUMNS); `read`, how
// many entries were read; and
// `records`, the fact records (fragments/fact_values) that the stored verdicts in $shown (the ones that show a
// change) of those events name: each event's record, the ones it replaced and what superseded it. An entry that
// stores what its changes show of those records (verdict_values, engine/writes.py) gives them in its list instead,
// unless it was recorded before the scope's last merge, unmerge or erasure (st.values_from: its records may have
// moved, been renamed or gone; null otherwise), and its records are not read. So a page over stored verdicts is
// one round trip; a record not among them is read by id.
OPTIONAL MATCH (scope_node:Scope {scope: $scope})-[st:STATE]->(scope_node)
WITH st.values_from AS guard
MATCH (x:Audit {scope: $scope})
WHERE x.at >= $since AND ($until IS NULL OR x.at < $until)
  AND ($after_at IS NULL OR x.at > $after_at OR (x.at = $after_at AND x.id >= $after_id))
  AND ($keys IS NULL OR any(k IN $keys WHERE k IN x.entities))
WITH x, guard
ORDER BY x.at, x.id
LIMIT $limit
WITH collect([x, CASE WHEN guard IS NULL OR x.at > guard THEN x.verdict_values END]) AS found
WITH [f IN found | f[0]] AS xs, [f IN found | f[1]] AS given
// where each entry's events begin among the events a page takes (not an update that is no change, stored as
// '-', nor a withdrawn record that is none, 'x'), and how many of the first entry's a page took before ($skip: the cursor's offset in it)
WITH xs, given, reduce(s = [0], x IN xs | s + [s[-1] + coalesce(size(replace(replace(x.verdicts, '-', ''), 'x', '')), 0)])
     AS starts,
     CASE WHEN size(xs) = 0 OR xs[0].verdicts IS NULL THEN 0
          ELSE size(replace(replace(substring(xs[0].verdicts, 0, $skip), '-', ''), 'x', '')) END AS skipped
// (the entry after the cursor's is kept whatever its guessed start: a page reads on past the cursor)
WITH size(xs) AS read, [k IN range(0, size(xs) - 1) WHERE k <= 1 OR starts[k] < skipped + $events | k] AS taken,
     xs, given, starts, skipped
WITH read, [k IN taken | xs[k]] AS kept, [k IN taken | given[k]] AS values, starts, skipped
WITH read, kept, values, starts, skipped,
     [k IN range(0, size(kept) - 1) | [kept[k].id, kept[k].at, kept[k].action, kept[k].client, kept[k].source,
                                       kept[k].model, kept[k].session,
                                       CASE WHEN kept[k].verdicts IS NULL THEN kept[k].detail END, kept[k].verdicts,
                                       kept[k].verdict_records, kept[k].verdict_before, kept[k].verdict_by,
                                       kept[k].verdict_why, values[k]]]
     AS entries
{{call(kept, values, starts, skipped)}}
  UNWIND range(0, size(kept) - 1) AS k
  WITH kept[k] AS x, values[k] AS stored, starts[k] AS start, k, skipped
  WHERE x.verdicts IS NOT NULL AND stored IS NULL
  UNWIND range(0, size(x.verdict_records) - 1) AS i
  WITH x, i, k, skipped, start + size(replace(replace(substring(x.verdicts, 0, i), '-', ''), 'x', '')) AS n
  WHERE (k > 0 OR i >= $skip) AND n < skipped + $events AND substring(x.verdicts, i, 1) IN $shown
  UNWIND [x.verdict_records[i], coalesce(x.verdict_by[i], '')] + split(coalesce(x.verdict_before[i], ''), ' ') AS id
  WITH DISTINCT id
  WITH id WHERE id <> ''
  MATCH ()-[r:FACT {id: id}]->()
  WITH r, startNode(r) AS a, endNode(r) AS b
  WHERE a.scope = $scope
  // fragments/fact_values, its ends' keys only where an entity filter reads them (null otherwise: two values
  // fewer to read per record)
  RETURN collect([a.name, CASE WHEN $keys IS NULL THEN null ELSE a.key END,
                  b.name, CASE WHEN $keys IS NULL THEN null ELSE b.key END, {{fact_field_values}}]) AS records
}
RETURN read, entries, records
