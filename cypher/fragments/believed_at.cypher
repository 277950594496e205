// r as the store believed it at $known_at (null: the current belief, i.e. records not expired: phrase
// known_then), in one of the trust states $statuses.
{{known_then(r)}}
AND {{state}} IN $statuses
