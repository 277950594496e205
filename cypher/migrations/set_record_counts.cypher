// Store format 9: each entity's count of fact records, measured (the writes keep it from then on:
// engine/writes.py record_counts), which the digest ranks the scope's entities by (digest/most_records).
MATCH (e:Entity {scope: $scope})
SET e.records = {{records(e)}}
