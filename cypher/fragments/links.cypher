// What replaced a record r (of subject a and object b) and what it replaced, as `links`: the records of its
// timeline (its slot: the same subject and predicate) with another object that begin where r ends or end
// where r begins, in the same belief ($known_at) and timeline (candidates apart), each with its id, object and
// validity. Found by two exact seeks of the records' end keys (store format 13: `ends`, its slot and where it
// ends, equal to r's `starts`; `starts` equal to r's `ends`), which read only the records that meet r, however
// many its slot holds (a hub subject's: thousands); for the rows a read returns only (after its LIMIT). A record
// both seeks find (r and it of no length, at one instant) counts once. The keys are sought only here: by
// equality, on a directed pattern (FalkorDB's edge index scan of an undirected one returns one direction only).
// The edge is sought alone, its ends read after (a labelled end first would scan every entity on FalkorDB); on
// FalkorDB its start is the subject a (phrase linked_from), which only changes the plan while the index is built.
{{call(r, a, b)}}
  OPTIONAL MATCH {{linked_from(a)}}-[p:FACT]->()
  WHERE p.ends = r.starts
  WITH r, a, b, collect(p) AS before
  OPTIONAL MATCH {{linked_from(a)}}-[q:FACT]->()
  WHERE q.starts = r.ends
  WITH r, a, b, before, collect(q) AS after
  UNWIND before + [x IN after WHERE NOT x IN before] AS p
  WITH r, a, b, p, endNode(p) AS pb
  WHERE startNode(p) = a AND pb <> b
    AND (($known_at IS NULL AND p.expired_at IS NULL)
         OR (p.recorded_at <= $known_at AND (p.expired_at IS NULL OR p.expired_at > $known_at)))
    AND coalesce(p.status = $candidate, false) = coalesce(r.status = $candidate, false)
  RETURN collect({id: p.id, object: pb.name, valid_at: {{micros(p.valid_at)}},
                  invalid_at: {{micros(p.invalid_at)}}}) AS links
}
