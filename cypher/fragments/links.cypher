// What replaced a record r (of subject a and object b) and what it replaced, as `links`: the records of its
// timeline (its slot: the same subject and predicate) with another object that begin where r ends or end
// where r begins, in the same belief ($known_at) and timeline (candidates apart), each with its id, object and
// validity. Found through the slot's index for the rows a read returns only (after its LIMIT).
// The edge is sought alone, its ends read after (a labelled end first would scan every entity on FalkorDB).
{{call(r, a, b)}}
  MATCH ()-[p:FACT]->()
  WHERE p.slot = r.slot AND (p.invalid_at = r.valid_at OR p.valid_at = r.invalid_at)
  WITH r, a, b, p, endNode(p) AS pb
  WHERE startNode(p) = a AND pb <> b
    AND (($known_at IS NULL AND p.expired_at IS NULL)
         OR (p.recorded_at <= $known_at AND (p.expired_at IS NULL OR p.expired_at > $known_at)))
    AND coalesce(p.status = $candidate, false) = coalesce(r.status = $candidate, false)
  RETURN collect({id: p.id, object: pb.name, valid_at: {{micros(p.valid_at)}},
                  invalid_at: {{micros(p.invalid_at)}}}) AS links
}
