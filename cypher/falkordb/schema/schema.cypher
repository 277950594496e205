// FalkorDB's own: each dialect says its indexes and constraints in syntax of its own.
// FalkorDB: unique constraints are created by the driver with GRAPH.CONSTRAINT
// (they need these exact-match indexes first); this file holds the indexes. FalkorDB indexes each property of
// a label on its own (ON (o.scope, o.id) indexes both): a statement naming a property indexed already fails
// as a whole ("already indexed", which the driver tolerates), so a second property is indexed alone.
CREATE INDEX FOR (e:Entity) ON (e.scope, e.key);
CREATE INDEX FOR (a:Alias) ON (a.scope, a.key);
// Each entity's count of fact records, on its COUNTED relationship to itself (fragments/count_records): the digest
// seeks the scope's busiest entities (digest/most_records). (Stores made before format 12 keep an unused index of
// Entity.records: no entity holds the property after the upgrade.)
CREATE INDEX FOR ()-[c:COUNTED]-() ON (c.scope, c.records);
CREATE INDEX FOR (s:Scope) ON (s.scope);
CREATE INDEX FOR ()-[r:FACT]-() ON (r.id);
CREATE INDEX FOR ()-[r:FACT]-() ON (r.slot);
CREATE INDEX FOR ()-[r:FACT]-() ON (r.object_slot);
CREATE INDEX FOR ()-[r:FACT]-() ON (r.predicate_slot);
CREATE INDEX FOR ()-[r:FACT]-() ON (r.pinned);
// The trust state, stored only when it is not believed: the review lists (facts/facts_in_states) seek it.
CREATE INDEX FOR ()-[r:FACT]-() ON (r.status);
// Records whose validity starts or ends after they were recorded (few): the scope's count of facts valid now.
CREATE INDEX FOR ()-[r:FACT]-() ON (r.ahead);
// Each record's exact end keys (store format 13), which fragments/links seeks by equality only.
CREATE INDEX FOR ()-[r:FACT]-() ON (r.starts);
CREATE INDEX FOR ()-[r:FACT]-() ON (r.ends);
CALL db.idx.fulltext.createNodeIndex({label: 'Entity', stopwords: []}, {field: 'search_text', nostem: true});
CALL db.idx.fulltext.createNodeIndex({label: 'Alias', stopwords: []}, {field: 'search_text', nostem: true})
;
CREATE INDEX FOR (t:Tombstone) ON (t.scope, t.subject);
CREATE INDEX FOR (o:Observation) ON (o.scope, o.entity);
CREATE INDEX FOR (n:Session) ON (n.scope, n.id);
CREATE INDEX FOR (o:Observation) ON (o.id);
CALL db.idx.fulltext.createNodeIndex({label: 'Observation', stopwords: []}, {field: 'search_text', nostem: true})
;
// The substring index (rules/grams.py): a second field of each label's fulltext index (its configuration is set
// above, so the label alone is named; a field indexed already fails as "already indexed", which is tolerated).
CALL db.idx.fulltext.createNodeIndex('Entity', {field: 'grams', nostem: true});
CALL db.idx.fulltext.createNodeIndex('Alias', {field: 'grams', nostem: true});
CALL db.idx.fulltext.createNodeIndex('Observation', {field: 'grams', nostem: true})
;
// Facts as sentences (their search text holds stems already: rules/stems.py), for recall's full-text leg.
CREATE FULLTEXT INDEX FOR ()-[r:FACT]-() ON (r.search_text) OPTIONS {stopwords: [], nostem: true};
// The memories' search token (store format 15: phrase memory_tokens), a field of their fulltext indexes beside their
// words, so a search of memories keeps to the scope inside the index. Added to an index that exists already, the
// field makes the server index every memory again (in the background: engine/migrations.py). (The relationship
// index's configuration is set above: naming options again fails, "Can not override index configuration".)
CALL db.idx.fulltext.createNodeIndex('Observation', {field: 'scope_token', nostem: true});
CREATE FULLTEXT INDEX FOR ()-[r:FACT]-() ON (r.scope_token);
// Observations valid in a window a question names (recall's window leg).
CREATE INDEX FOR (o:Observation) ON (o.valid_at);
CREATE INDEX FOR (a:Audit) ON (a.scope, a.at)
;
// The scope's growth counters (rules/growth.py): a write merges a slice by its key, a growth read seeks slices by
// the slice they are in (their bucket).
CREATE INDEX FOR (c:Growth) ON (c.key, c.bucket)
