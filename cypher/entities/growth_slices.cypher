// The scope's growth counters in the given slices of recorded time ($buckets: rules/growth.py buckets), for
// Memory.growth in store format 10 and later: a few slices, whatever the size of the scope.
UNWIND $buckets AS b
MATCH (c:Growth {bucket: b})-[g:GREW]->(c)
RETURN c.bucket AS bucket, c.start AS start, g.facts_made AS facts_made, g.facts_gone AS facts_gone,
       g.candidates_made AS candidates_made, g.candidates_gone AS candidates_gone, g.entities_made AS entities_made,
       g.observations_made AS observations_made, g.observations_gone AS observations_gone
