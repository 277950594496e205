// Store format 13: sets the exact end keys (`starts`, `ends`: fragments/links) of the fact records of $limit
// entities of the scope after key $after, each entity's records as subject; the last entity's key comes back
// (null: none is left).
MATCH (a:Entity {scope: $scope})
WHERE a.key > $after
WITH a
ORDER BY a.key
LIMIT $limit
{{call(a)}}
  MATCH (a)-[r:FACT]->()
  SET r.starts = {{record_key(r.slot, r.valid_at)}}, r.ends = {{record_key(r.slot, r.invalid_at)}}
  RETURN count(r) AS keyed
}
RETURN max(a.key) AS last, sum(keyed) AS keyed
