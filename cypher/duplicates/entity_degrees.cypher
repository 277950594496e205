// How many facts each of some entities has (a neighbour many entities share says little of two of them).
UNWIND $keys AS key
MATCH (n:Entity {scope: $scope, key: key})
RETURN key, {{degree(n)}} AS degree
