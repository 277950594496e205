// The id of every audit entry of the scope (an import adds the entries of its export not held already).
MATCH (x:Audit {scope: $scope}) {{scope_seek(x, Audit, at)}} true
RETURN x.id AS id
