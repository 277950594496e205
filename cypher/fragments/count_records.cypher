// Each entity's count of fact records (engine/writes.py record_counts), which the digest ranks by: on a COUNTED
// relationship of the entity to itself (store format 12), as the scope's STATE and the growth counters' GREW. A
// property set on an Entity node re-adds the node to every index of its label, the full-text one and its grams
// included, whatever property changed (~40% of the server's CPU for a batch of 1,000 facts at 100k:
// benchmarks/results/2026-12-06-2cpu-apply-cpu-100k.md); a set on the relationship updates its own index only.
// A row x is [key, delta].
UNWIND $counts AS x
MATCH (n:Entity {scope: $scope, key: x[0]})
{{count_increment}}
