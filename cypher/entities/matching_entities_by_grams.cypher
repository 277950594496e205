// matching_entities.cypher for a query of a gram or more (rules/grams.py): the same page, found through the
// substring index instead of a scan. The entities, aliases and observations whose grams hold every one of
// $grams (the query's) are the candidates, a superset of those that match; the substring itself is then
// checked on these, as matching_entities.cypher checks it, so the page is the same.
{{call()}}
  {{call()}}
    {{grams_hits(Entity, $grams)}}
    WITH node AS e
    WHERE e.scope = $scope
    RETURN e
    UNION
    {{grams_hits(Alias, $grams)}}
    WITH node
    WHERE node.scope = $scope
    WITH node.target AS entity_key  // sought by a variable, through the index
    MATCH (e:Entity {scope: $scope, key: entity_key})
    RETURN e
  }
  WITH e
  WHERE ($known_at IS NULL OR e.created_at <= $known_at)
    AND ($after_at IS NULL OR e.created_at > $after_at OR (e.created_at = $after_at AND e.key > $after_key))
    AND (toLower(e.name) CONTAINS $matching OR toLower(coalesce(e.type, '')) CONTAINS $matching
         OR any(a IN coalesce(e.aliases, []) WHERE toLower(a) CONTAINS $matching))
  RETURN e
  UNION
  {{grams_hits(Observation, $grams)}}
  WITH node AS o
  WHERE o.scope = $scope
    AND (($known_at IS NULL AND o.expired_at IS NULL)
         OR (o.recorded_at <= $known_at AND (o.expired_at IS NULL OR o.expired_at > $known_at)))
    AND toLower(o.text) CONTAINS $matching
  WITH o.entity AS entity_key
  MATCH (e:Entity {scope: $scope, key: entity_key})
  WHERE ($known_at IS NULL OR e.created_at <= $known_at)
    AND ($after_at IS NULL OR e.created_at > $after_at OR (e.created_at = $after_at AND e.key > $after_key))
  RETURN e
}
{{listed_entities}}
