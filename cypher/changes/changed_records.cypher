// The fact records audit entries name ($asked: {id, at: the entry's instant, i: its place in the page, updated})
// that the entry's write created or withdrew (recorded or expired at its instant) or, `updated`, changed in
// place; each with its `mates` (rules/changes.py judges them): the records of its timeline (its slot index)
// that changed at that instant or that begin where it ends, and those of its own fact (between its two
// entities) believed around that instant. One row: `judged` ({i, id, mates: their ids}) and `records`, each
// record found projected once (a record is its own mate, and the records of one write each other's: sending
// every mate with every record was most of the statement's time, 65 of 106 ms at 100k writes on FalkorDB).
UNWIND $asked AS x
// the instant once per record (Neo4j parses it from text)
WITH x, {{instant(x.at)}} AS at
MATCH ()-[r:FACT {id: x.id}]->()
WITH x, at, r, startNode(r) AS a, endNode(r) AS b
WHERE a.scope = $scope AND (x.updated OR r.recorded_at = at OR r.expired_at = at)
WITH x, at, r, a, b, r.slot AS slot, r.invalid_at AS ends, r.predicate AS predicate, a.key AS subject
{{call(at, slot, ends, subject)}}
  MATCH ()-[r:FACT]->()
  WHERE r.slot = slot
    AND (r.recorded_at = at OR r.expired_at = at OR r.valid_at = ends)
  WITH r, startNode(r) AS a, subject
  WHERE a.scope = $scope AND a.key = subject
  RETURN collect(r) AS changed
}
{{call(at, a, b, predicate)}}
  MATCH (a)-[m:FACT]->(b)
  WHERE m.predicate = predicate AND m.recorded_at <= at
    AND (m.expired_at IS NULL OR m.expired_at >= at)
  RETURN collect(m) AS held
}
WITH collect({i: x.i, id: r.id, mates: [m IN changed + held | m.id]}) AS judged, collect([r] + changed + held) AS found
{{call(found)}}
  UNWIND found AS some
  UNWIND some AS r
  WITH DISTINCT r
  WITH r, startNode(r) AS a, endNode(r) AS b
  RETURN collect({{fact}}) AS records
}
RETURN judged, records
