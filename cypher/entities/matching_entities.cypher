// A page of the scope's entities whose name, an alias, the type or an observation held at $known_at (null: the
// current belief) contains $matching (given lower-cased; compared with toLower, so case-insensitive), otherwise
// as entities_page.cypher: oldest first after the cursor, those that existed at $known_at, with their observations.
// Substrings have no index: the scope's entities after the cursor are scanned, in the database.
MATCH (e:Entity {scope: $scope})
WHERE ($known_at IS NULL OR e.created_at <= $known_at)
  AND ($after_at IS NULL OR e.created_at > $after_at OR (e.created_at = $after_at AND e.key > $after_key))
WITH e, (toLower(e.name) CONTAINS $matching OR toLower(coalesce(e.type, '')) CONTAINS $matching
         OR any(a IN coalesce(e.aliases, []) WHERE toLower(a) CONTAINS $matching)) AS named
OPTIONAL MATCH (o:Observation {scope: $scope, entity: e.key})
WHERE (($known_at IS NULL AND o.expired_at IS NULL)
       OR (o.recorded_at <= $known_at AND (o.expired_at IS NULL OR o.expired_at > $known_at)))
WITH e, named, collect(o) AS notes
WHERE named OR any(o IN notes WHERE toLower(o.text) CONTAINS $matching)
WITH e, notes
ORDER BY e.created_at, e.key
LIMIT $limit
RETURN {{entity}} AS entity, [o IN notes | {{observation}}] AS observations
ORDER BY e.created_at, e.key
