// r holds at as_of (validity is half-open; $history: at any time) as the store believed at $known_at
// (null: the current belief, i.e. records not expired), in one of the trust states $statuses.
($history OR (r.valid_at <= as_of AND (r.invalid_at IS NULL OR r.invalid_at > as_of)))
  AND (($known_at IS NULL AND r.expired_at IS NULL)
       OR (r.recorded_at <= $known_at AND (r.expired_at IS NULL OR r.expired_at > $known_at)))
  AND {{state}} IN $statuses
