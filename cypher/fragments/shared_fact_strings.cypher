// The values of a new fact record r that many records repeat (x.shared: its predicate, provenance
// and trust state; synapse_graph/engine/writes.py SHARED_FACT_VALUES). A dialect that can keep one copy
// of a repeated string sets them its own way (FalkorDB: intern()).
SET r += x.shared
