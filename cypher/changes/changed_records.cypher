// The fact records audit entries name ($asked: {id, at: the entry's instant, i: its place in the page, updated})
// that the entry's write created or withdrew (recorded or expired at its instant) or, `updated`, changed in
// place; each with its `mates` (rules/changes.py judges them): the records of its own fact (between its two
// entities) believed around that instant and, for a record that may have ended or been withdrawn, those of its
// timeline (its slot index) that changed at that instant or that begin where it ends (what superseded it).
// One row: `judged` ([i, id, mates: their ids]) and `records`, each record found projected once (a record is
// its own mate, and the records of one write each other's: sending every mate with every record was most of
// the statement's time, 65 of 106 ms at 100k writes on FalkorDB), as lists of values, not maps (no field
// names to send and decode: ~130 records a page).
UNWIND $asked AS x
// the instant once per record (Neo4j parses it from text)
WITH x, {{instant(x.at)}} AS at
MATCH ()-[r:FACT {id: x.id}]->()
WITH x, at, r, startNode(r) AS a, endNode(r) AS b
WHERE a.scope = $scope AND (x.updated OR r.recorded_at = at OR r.expired_at = at)
WITH x, at, r, a, b, r.predicate AS predicate
{{call(at, a, b, predicate)}}
  MATCH (a)-[m:FACT]->(b)
  WHERE m.predicate = predicate AND m.recorded_at <= at
    AND (m.expired_at IS NULL OR m.expired_at >= at)
  RETURN collect(m) AS held
}
// Only a record that ended (created then with an end, in place of a record of its fact withdrawn then that
// began with it and ended later) or was removed (withdrawn then, with no other interval of its fact created
// then) can have been superseded, and only its timeline says by what (rules/changes.py, judge): the others'
// slot is null, which finds nothing (a slot's index finds all of its records: 6,268 read for 125 events at 1M
// writes on FalkorDB when every record read its timeline).
WITH x, at, r, a, b, held, r.invalid_at AS ends, a.key AS subject,
     CASE WHEN NOT x.updated AND (
       (r.expired_at = at AND r.recorded_at <> at
        AND none(m IN held WHERE m.recorded_at = at AND coalesce(m.expired_at <> at, true)
                 AND none(o IN held WHERE o.recorded_at < at AND o.valid_at = m.valid_at
                          AND coalesce(o.invalid_at = m.invalid_at, o.invalid_at IS NULL AND m.invalid_at IS NULL)
                          AND (coalesce(o.status, 'believed') = 'candidate')
                            = (coalesce(m.status, 'believed') = 'candidate'))))
       OR (r.recorded_at = at AND r.invalid_at IS NOT NULL
           AND any(m IN held WHERE m.expired_at = at AND m.recorded_at <> at AND m.valid_at = r.valid_at
                   AND coalesce(m.invalid_at > r.invalid_at, true))))
     THEN r.slot END AS slot
{{call(at, slot, ends, subject)}}
  MATCH ()-[t:FACT]->()
  WHERE t.slot = slot
    AND (t.recorded_at = at OR t.expired_at = at OR t.valid_at = ends)
  WITH t, startNode(t) AS a, subject
  WHERE a.scope = $scope AND a.key = subject
  RETURN collect(t) AS changed
}
WITH collect([x.i, r.id, [m IN changed + held | m.id]]) AS judged, collect([r] + changed + held) AS found
{{call(found)}}
  UNWIND found AS some
  UNWIND some AS r
  WITH DISTINCT r
  WITH r, startNode(r) AS a, endNode(r) AS b
  RETURN collect({{fact_values}}) AS records
}
RETURN judged, records
