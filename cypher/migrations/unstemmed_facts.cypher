// Fact records of a scope without a search text (written before store format 6), a page at a time, with what
// their sentence is made of (their entities by name).
MATCH (a:Entity {scope: $scope})-[r:FACT]->(b:Entity)
WHERE r.search_text IS NULL
RETURN r.id AS id, a.name AS subject, r.predicate AS predicate, b.name AS object, r.source AS source
LIMIT $limit
