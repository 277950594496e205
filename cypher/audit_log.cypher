// The audit log of the scope, newest first; with $entity, only entries that touched it.
MATCH (a:Audit {scope: $scope})
WHERE $entity IS NULL OR $entity IN a.entities
RETURN a.id AS id, a.at AS at, a.action AS action, a.client AS client, a.source AS source,
       a.model AS model, a.session AS session, a.entities AS entities, a.facts AS facts,
       a.detail AS detail, a.secrets AS secrets
ORDER BY at DESC, id
LIMIT $limit
