// Every alias of the scope, for export.
MATCH (al:Alias {scope: $scope}) {{scope_seek(al, Alias, key)}} true
RETURN al.key AS key, al.name AS name, al.target AS target
ORDER BY key
