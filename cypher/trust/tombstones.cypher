// Earlier rejections of the given facts (subject, predicate, object by entity key).
UNWIND $facts AS f
MATCH (t:Tombstone {scope: $scope, subject: f.subject})
WHERE t.predicate = f.predicate AND t.object = f.object
RETURN t.subject AS subject, t.predicate AS predicate, t.object AS object, t.reason AS reason,
       t.rejected_at AS rejected_at
ORDER BY rejected_at
