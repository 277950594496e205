// A page of the scope's entities whose name, an alias, the type or an observation held at $known_at (null: the
// current belief) contains $matching (given lower-cased; compared with toLower, so case-insensitive), otherwise
// as entities_page.cypher: oldest first after the cursor, those that existed at $known_at, with their observations.
// This scan serves a query shorter than a gram (rules/grams.py; matching_entities_by_grams.cypher serves the
// others): entities and observations are each scanned once (a union, not an observation lookup
// per entity), then the page is cut and only its entities' observations are read.
{{call()}}
  MATCH (e:Entity {scope: $scope})
  WHERE ($known_at IS NULL OR e.created_at <= $known_at)
    AND ($after_at IS NULL OR e.created_at > $after_at OR (e.created_at = $after_at AND e.key > $after_key))
    AND (toLower(e.name) CONTAINS $matching OR toLower(coalesce(e.type, '')) CONTAINS $matching
         OR any(a IN coalesce(e.aliases, []) WHERE toLower(a) CONTAINS $matching))
  RETURN e
  UNION
  MATCH (o:Observation {scope: $scope}) {{scope_seek(o, Observation, id)}}
  (($known_at IS NULL AND o.expired_at IS NULL)
         OR (o.recorded_at <= $known_at AND (o.expired_at IS NULL OR o.expired_at > $known_at)))
    AND toLower(o.text) CONTAINS $matching
  WITH o.entity AS entity_key  // sought by a variable, through the index (see changes/changed_observations)
  MATCH (e:Entity {scope: $scope, key: entity_key})
  WHERE ($known_at IS NULL OR e.created_at <= $known_at)
    AND ($after_at IS NULL OR e.created_at > $after_at OR (e.created_at = $after_at AND e.key > $after_key))
  RETURN e
}
{{listed_entities}}
