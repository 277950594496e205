// r holds at as_of (validity is half-open; $history: at any time) as the store believed at $known_at
// (null: the current belief, i.e. records not expired), in one of the trust states $statuses.
($history OR (r.valid_at <= as_of AND (r.invalid_at IS NULL OR r.invalid_at > as_of)))
  AND {{believed_at}}
