// The instant a read asks about, as `as_of`: $as_of if given, else now, where now is never earlier
// than the scope's last write (belief time never goes back, whatever the wall clock does, so a
// read sees every write that returned even after the clock was stepped back).
{{scope_state_for_read}}
WITH coalesce($as_of, CASE WHEN s.updated_at > $now THEN s.updated_at ELSE $now END) AS as_of
