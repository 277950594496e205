// Records that a scope's facts all have slots (store format $format) and how many tombstones it holds.
MATCH (s:Scope {scope: $scope})
OPTIONAL MATCH (t:Tombstone {scope: $scope})
WITH s, count(t) AS tombstones
SET s.format = $format, s.tombstones = tombstones
RETURN s.format AS format
