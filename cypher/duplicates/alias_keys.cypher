// The aliases that name an entity (what a merge retargets; engine/unmerge.py keeps them to undo it).
MATCH (al:Alias {scope: $scope})
WHERE al.target = $key
RETURN al.key AS key, al.name AS name
