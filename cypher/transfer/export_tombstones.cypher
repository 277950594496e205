// Every rejection of the scope, for export.
MATCH (t:Tombstone {scope: $scope}) {{scope_seek(t, Tombstone, subject, predicate, object)}} true
RETURN t.subject AS subject, t.predicate AS predicate, t.object AS object, t.reason AS reason,
       t.rejected_at AS rejected_at, t.by AS by
ORDER BY rejected_at, subject
