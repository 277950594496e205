// Store format 8: marks the scope's records whose validity starts or ends after they were recorded (rules/
// timeline.py Record.ahead; writes set it as they create a record), which its count of facts valid now reads apart.
MATCH (:Entity {scope: $scope})-[r:FACT]->()
WHERE r.valid_at > r.recorded_at OR (r.invalid_at IS NOT NULL AND r.invalid_at > r.recorded_at)
SET r.ahead = true
