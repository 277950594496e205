// Store format 10: the scope's growth counters are counted again from its records (engine/migrations.py):
// those a counting cut short left behind go first.
MATCH (c:Growth)
WHERE c.scope = $scope
DETACH DELETE c
