// Version and counters of one scope; an absent scope reads as version 0.
// tombstones and format are null for a scope written before they were kept.
OPTIONAL MATCH (s:Scope {scope: $scope})
RETURN coalesce(s.version, 0) AS version,
       coalesce(s.facts, 0) AS facts,
       coalesce(s.entities, 0) AS entities,
       s.last_batch AS last_batch,
       s.updated_at AS updated_at,
       CASE WHEN s IS NULL THEN 0 ELSE s.tombstones END AS tombstones,
       s.format AS format
