// The audit log of the scope, newest first. Each filter given narrows it: $entities (the entries that
// touched one of these keys), $action (that action, or a kind of it: 'feedback' matches 'feedback:wrong'),
// $client, $session, $since <= at < $until, and after the entry ($after_at, $after_id) of a page before.
// $brief: each entry in brief (fragments/audit_brief), else whole.
MATCH (x:Audit {scope: $scope}) {{scope_seek(x, Audit, at)}} ($entities IS NULL OR any(k IN $entities WHERE k IN x.entities))
  AND ($action IS NULL OR x.action = $action OR x.action STARTS WITH ($action + ':'))
  AND ($client IS NULL OR x.client = $client)
  AND ($session IS NULL OR x.session = $session)
  AND ($since IS NULL OR x.at >= $since)
  AND ($until IS NULL OR x.at < $until)
  AND ($after_at IS NULL OR x.at < $after_at OR (x.at = $after_at AND x.id > $after_id))
WITH x
ORDER BY x.at DESC, x.id
LIMIT $limit
RETURN CASE WHEN $brief IS NULL THEN {{audit}} ELSE {{audit_brief}} END AS entry
