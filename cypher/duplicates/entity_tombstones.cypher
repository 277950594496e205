// The rejections naming an entity (what a merge retargets; engine/unmerge.py keeps them to undo it).
MATCH (t:Tombstone {scope: $scope}) {{scope_seek(t, Tombstone, subject, predicate, object)}} (t.subject = $key OR t.object = $key)
RETURN t.subject AS subject, t.predicate AS predicate, t.object AS object, t.reason AS reason,
       t.rejected_at AS rejected_at, t.by AS by
