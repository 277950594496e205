// The values of a new audit entry that many entries repeat (x.shared: its scope, action, provenance and the
// entity keys it lists; synapse_graph/engine/writes.py SHARED_AUDIT_VALUES). A dialect that can keep one
// copy of a repeated string sets them its own way (FalkorDB: intern()).
SET entry += x.shared
