// The facts of a page of entities ($keys), for Memory.entities(with_facts=True): those each entity is the
// subject of, and (given $matching, lower-cased) those it is the object of whose subject the same listing
// leaves out (it did not exist at $known_at, or neither its name, an alias, its type nor an observation it held
// then contains $matching), as rows of the entity's key and the fact. Believed facts valid at $as_of (null: now
// by the scope's clock) as believed at $known_at; no supersession links are read. Each entity is sought by its
// key first, its edges walked from it (a labelled far end first would scan every entity on FalkorDB).
{{read_clock}}
UNWIND $keys AS key
MATCH (a:Entity {scope: $scope, key: key})
{{key_hint(a)}}
MATCH (a)-[r:FACT]->(b:Entity)
WHERE {{held}}
RETURN key, {{fact}} AS fact
UNION ALL
{{read_clock}}
UNWIND CASE WHEN $matching IS NULL THEN [] ELSE $keys END AS key
MATCH (b:Entity {scope: $scope, key: key})
{{key_hint(b)}}
MATCH (a)-[r:FACT]->(b)
WHERE {{held}}
  AND NOT (($known_at IS NULL OR a.created_at <= $known_at)
           AND (toLower(a.name) CONTAINS $matching OR toLower(coalesce(a.type, '')) CONTAINS $matching
                OR any(x IN coalesce(a.aliases, []) WHERE toLower(x) CONTAINS $matching)))
OPTIONAL MATCH (o:Observation {scope: $scope, entity: a.key})
WHERE (($known_at IS NULL AND o.expired_at IS NULL)
       OR (o.recorded_at <= $known_at AND (o.expired_at IS NULL OR o.expired_at > $known_at)))
  AND toLower(o.text) CONTAINS $matching
WITH key, r, a, b, count(o) AS said
WHERE said = 0 OR ($known_at IS NOT NULL AND a.created_at > $known_at)
RETURN key, {{fact}} AS fact
