// Store format 10: the scope's growth counters are counted again from its records (engine/migrations.py):
// those a counting cut short left behind go first.
MATCH (c:Growth)
WHERE c.key STARTS WITH ($scope + '|') AND c.scope = $scope  // a prefix seek of the key index (rules/growth.py)
DETACH DELETE c
