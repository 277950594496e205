// The timelines of the fact records ($asked: {id, at: the entry's instant, i: its place in the page}) that
// changed_records.cypher found ended or withdrawn: the records of each one's timeline (its slot index: same
// subject and predicate) that changed at that instant or that begin where it ends (rules/changes.py: what
// superseded it). One row: `judged` ({i, mates: their ids}) and `records`, each projected once, leaving out
// the ones already read ($known).
UNWIND $asked AS x
WITH x, {{instant(x.at)}} AS at
MATCH ()-[r:FACT {id: x.id}]->()
WITH x, at, r, startNode(r) AS a
WHERE a.scope = $scope
WITH x, at, r.slot AS slot, r.invalid_at AS ends, a.key AS subject
{{call(at, slot, ends, subject)}}
  MATCH ()-[r:FACT]->()
  WHERE r.slot = slot
    AND (r.recorded_at = at OR r.expired_at = at OR r.valid_at = ends)
  WITH r, startNode(r) AS a, subject
  WHERE a.scope = $scope AND a.key = subject
  RETURN collect(r) AS changed
}
WITH collect({i: x.i, mates: [m IN changed | m.id]}) AS judged, collect(changed) AS found
{{call(found)}}
  UNWIND found AS some
  UNWIND some AS r
  WITH DISTINCT r
  WITH r WHERE NOT r.id IN $known
  WITH r, startNode(r) AS a, endNode(r) AS b
  RETURN collect({{fact}}) AS records
}
RETURN judged, records
