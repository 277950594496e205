// The scope's growth counters a write changes ($grown: rules/growth.py Changes.rows), one row per slice of
// recorded time, given on a part of the statement that has one row. A slice's node holds what names it, given as
// it is created; its counters are on a GREW relationship of the node to itself (a property set on a node costs
// FalkorDB a merge of the labels of nodes created since: fragments/scope_state_for_write).
FOREACH (x IN $grown |
  MERGE (c:Growth {key: x.key, bucket: x.bucket, start: x.start, scope: $scope})
  MERGE (c)-[g:GREW]->(c)
  SET g.facts_made = coalesce(g.facts_made, 0) + x.facts_made, g.facts_gone = coalesce(g.facts_gone, 0) + x.facts_gone,
      g.candidates_made = coalesce(g.candidates_made, 0) + x.candidates_made,
      g.candidates_gone = coalesce(g.candidates_gone, 0) + x.candidates_gone,
      g.entities_made = coalesce(g.entities_made, 0) + x.entities_made,
      g.observations_made = coalesce(g.observations_made, 0) + x.observations_made,
      g.observations_gone = coalesce(g.observations_gone, 0) + x.observations_gone)
