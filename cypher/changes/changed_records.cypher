// The fact records audit entries name ($asked: {id, at: the entry's instant, i: its place in the page, updated})
// that the entry's write created or withdrew (recorded or expired at its instant) or, `updated`, changed in
// place; each with its `mates` (rules/changes.py judges them): the records of its own fact (between its two
// entities) believed around that instant. The records of its timeline are read only for the few records that
// need them (changed_timelines.cypher): reading them for every record was most of a first page's server time
// (a timeline's slot index finds all of its records: 6,268 read for 125 events at 1M writes on FalkorDB).
// One row: `judged` ({i, id, mates: their ids}) and `records`, each record found projected once (a record is
// its own mate, and the records of one write each other's: sending every mate with every record was most of
// the statement's time, 65 of 106 ms at 100k writes on FalkorDB).
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
WITH collect({i: x.i, id: r.id, mates: [m IN held | m.id]}) AS judged, collect([r] + held) AS found
{{call(found)}}
  UNWIND found AS some
  UNWIND some AS r
  WITH DISTINCT r
  WITH r, startNode(r) AS a, endNode(r) AS b
  RETURN collect({{fact}}) AS records
}
RETURN judged, records
