// r holds at as_of, or over a period (rules/periods.py: it began by $starts_by and ends after $ends_after,
// both null for an instant), or at any time ($history); as the store believed at $known_at, in one of the
// trust states $statuses. The facts reads take it.
($history OR (r.valid_at <= coalesce($starts_by, as_of)
              AND (r.invalid_at IS NULL OR r.invalid_at > coalesce($ends_after, as_of))))
  AND {{believed_at}}
