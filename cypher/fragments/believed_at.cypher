// r as the store believed it at $known_at (null: the current belief, i.e. records not expired), in one of
// the trust states $statuses.
(($known_at IS NULL AND r.expired_at IS NULL)
 OR (r.recorded_at <= $known_at AND (r.expired_at IS NULL OR r.expired_at > $known_at)))
AND {{state}} IN $statuses
