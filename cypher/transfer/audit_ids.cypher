// The id of every audit entry of the scope (an import adds the entries of its export not held already).
MATCH (x:Audit {scope: $scope}) {{audit_seek(x)}} true
RETURN x.id AS id
