// Whether the scope holds any fact record (recall reads the facts around the entities a question names only
// then): the first one found ends the search.
MATCH (:Entity {scope: $scope})-[r:FACT]->()
WITH r LIMIT 1
RETURN count(r) AS facts
