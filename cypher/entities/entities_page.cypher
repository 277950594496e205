// A page of the scope's entities, oldest first (created_at, then key), after the cursor ($after_at, $after_key;
// both null on the first page), those that existed at $known_at (null: now), each with the observations it held
// then. The page is cut before the observations are read: a page costs its own entities, not the scope's.
MATCH (e:Entity {scope: $scope})
WHERE ($known_at IS NULL OR e.created_at <= $known_at)
  AND ($after_at IS NULL OR e.created_at > $after_at OR (e.created_at = $after_at AND e.key > $after_key))
{{listed_entities}}
