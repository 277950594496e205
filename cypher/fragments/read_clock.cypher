// The instant a read asks about, as `as_of`: $as_of if given, else now, where now is never earlier
// than the scope's last write (belief time never goes back, whatever the wall clock does, so a
// read sees every write that returned even after the clock was stepped back).
OPTIONAL MATCH (clock_scope:Scope {scope: $scope})
OPTIONAL MATCH (clock_scope)-[clock_state:STATE]->(clock_scope)
// A scope written before store format 5 keeps its clock on its node (see scope_state_for_read).
WITH coalesce(clock_state, clock_scope) AS clock
WITH coalesce($as_of, CASE WHEN clock.updated_at > $now THEN clock.updated_at ELSE $now END) AS as_of
