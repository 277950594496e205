// The sessions a durable scope registered (all of them when $ids is null), oldest first.
MATCH (n:Session {scope: $scope}) {{scope_seek(n, Session, id)}} ($ids IS NULL OR n.id IN $ids)
WITH n
ORDER BY n.registered_at, n.id
RETURN {id: n.id, scope: n.scope, registered_at: n.registered_at, expires_at: n.expires_at,
        revoked_at: n.revoked_at} AS session
