// Pairs of entities recorded as distinct (reject_duplicate): rejected SAME_AS facts, whose ends merges
// move like any rejection's (writes/apply_plan retargets them).
MATCH (t:Tombstone {scope: $scope}) {{scope_seek(t, Tombstone, subject, predicate, object)}} t.predicate = 'SAME_AS'
RETURN t.subject AS a, t.object AS b
