// Store format 4: the scope's entities, aliases and live observations carry its search token ($scope_token,
// computed by the caller; null takes it away), which Neo4j's fulltext indexes hold beside their words.
OPTIONAL MATCH (n:Entity {scope: $scope})
WHERE coalesce(n.scope_token, '') <> coalesce($scope_token, '')
SET n.scope_token = $scope_token
WITH count(n) AS entities
OPTIONAL MATCH (al:Alias {scope: $scope}) {{scope_seek(al, Alias, key)}} coalesce(al.scope_token, '') <> coalesce($scope_token, '')
SET al.scope_token = $scope_token
WITH entities, count(al) AS aliases
OPTIONAL MATCH (o:Observation {scope: $scope}) {{scope_seek(o, Observation, id)}} o.expired_at IS NULL AND coalesce(o.scope_token, '') <> coalesce($scope_token, '')
SET o.scope_token = $scope_token
WITH entities, aliases, count(o) AS observations
RETURN entities + aliases + observations AS updated
