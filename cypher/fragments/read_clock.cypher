// The instant a read asks about, as `as_of`: $as_of if given, else now, where now is never earlier
// than the scope's last write (belief time never goes back, whatever the wall clock does, so a
// read sees every write that returned even after the clock was stepped back).
OPTIONAL MATCH (clock:Scope {scope: $scope})
WITH coalesce($as_of, CASE WHEN clock.updated_at > $now THEN clock.updated_at ELSE $now END) AS as_of
