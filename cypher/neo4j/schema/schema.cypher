// Neo4j's own: each dialect says its indexes and constraints in syntax of its own.
// Neo4j 5 (Community features only). Uniqueness holds the scope inside the key.
CREATE CONSTRAINT entity_key IF NOT EXISTS FOR (e:Entity) REQUIRE (e.scope, e.key) IS UNIQUE;
CREATE CONSTRAINT alias_key IF NOT EXISTS FOR (a:Alias) REQUIRE (a.scope, a.key) IS UNIQUE;
CREATE CONSTRAINT scope_key IF NOT EXISTS FOR (s:Scope) REQUIRE s.scope IS UNIQUE;
CREATE CONSTRAINT session_key IF NOT EXISTS FOR (n:Session) REQUIRE (n.scope, n.id) IS UNIQUE;
CREATE INDEX entity_scope IF NOT EXISTS FOR (e:Entity) ON (e.scope);
// Each entity's count of fact records, on its COUNTED relationship to itself (fragments/count_records): the digest
// reads the scope's busiest entities in the index's order (digest/most_records). (Stores made before format 12
// keep an empty index entity_records: no entity holds the count after the upgrade.)
CREATE INDEX entity_counted IF NOT EXISTS FOR ()-[c:COUNTED]-() ON (c.scope, c.records);
CREATE INDEX alias_target IF NOT EXISTS FOR (a:Alias) ON (a.scope, a.target);
CREATE INDEX fact_id IF NOT EXISTS FOR ()-[r:FACT]-() ON (r.id);
CREATE INDEX fact_slot IF NOT EXISTS FOR ()-[r:FACT]-() ON (r.slot);
CREATE INDEX fact_object_slot IF NOT EXISTS FOR ()-[r:FACT]-() ON (r.object_slot);
CREATE INDEX fact_predicate_slot IF NOT EXISTS FOR ()-[r:FACT]-() ON (r.predicate_slot);
CREATE INDEX fact_pinned IF NOT EXISTS FOR ()-[r:FACT]-() ON (r.pinned);
// The trust state, stored only when it is not believed: the review lists (facts/facts_in_states) seek it.
CREATE INDEX fact_status IF NOT EXISTS FOR ()-[r:FACT]-() ON (r.status);
// Records whose validity starts or ends after they were recorded (few): the scope's count of facts valid now.
CREATE INDEX fact_ahead IF NOT EXISTS FOR ()-[r:FACT]-() ON (r.ahead);
// Each record's exact end keys (store format 13), which fragments/links seeks by equality only.
CREATE INDEX fact_starts IF NOT EXISTS FOR ()-[r:FACT]-() ON (r.starts);
CREATE INDEX fact_ends IF NOT EXISTS FOR ()-[r:FACT]-() ON (r.ends);
CREATE INDEX fact_predicate IF NOT EXISTS FOR ()-[r:FACT]-() ON (r.predicate, r.valid_at);
CREATE INDEX fact_valid IF NOT EXISTS FOR ()-[r:FACT]-() ON (r.valid_at, r.invalid_at)
;
// The fulltext indexes hold each node's scope token (rules/recall.py scope_token) beside its words: a search
// requires the token, so the index keeps to one scope and cuts its best hits itself, however many scopes
// the server holds. The token-less indexes of store format 3 (entity_search, observation_search) are dropped:
// every write would keep them up to date for no reader (this version upgrades format-3 scopes on open and
// searches the scoped indexes only).
DROP INDEX entity_search IF EXISTS
;
DROP INDEX observation_search IF EXISTS
;
CREATE FULLTEXT INDEX entity_scoped_search IF NOT EXISTS FOR (n:Entity|Alias) ON EACH [n.search_text, n.scope_token]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}}
;
CREATE INDEX observation_entity IF NOT EXISTS FOR (o:Observation) ON (o.scope, o.entity);
CREATE INDEX observation_id IF NOT EXISTS FOR (o:Observation) ON (o.scope, o.id);
CREATE FULLTEXT INDEX observation_scoped_search IF NOT EXISTS FOR (n:Observation) ON EACH [n.search_text, n.scope_token]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}}
;
// Facts as sentences (their search text holds stems already: rules/stems.py) for recall's full-text leg, with the
// scope's token while they are current, as observations.
CREATE FULLTEXT INDEX fact_scoped_search IF NOT EXISTS FOR ()-[r:FACT]-() ON EACH [r.search_text, r.scope_token]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}}
;
// The substring index (rules/grams.py): each label's grams, words a whitespace analyzer keeps whole.
CREATE FULLTEXT INDEX entity_grams IF NOT EXISTS FOR (n:Entity) ON EACH [n.grams]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}}
;
CREATE FULLTEXT INDEX alias_grams IF NOT EXISTS FOR (n:Alias) ON EACH [n.grams]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}}
;
CREATE FULLTEXT INDEX observation_grams IF NOT EXISTS FOR (n:Observation) ON EACH [n.grams]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}}
;
// Observations valid in a window a question names (recall's window leg).
CREATE INDEX observation_valid IF NOT EXISTS FOR (o:Observation) ON (o.scope, o.valid_at);
CREATE INDEX tombstone_fact IF NOT EXISTS FOR (t:Tombstone) ON (t.scope, t.subject, t.predicate, t.object);
CREATE INDEX audit_scope IF NOT EXISTS FOR (a:Audit) ON (a.scope, a.at)
;
// The scope's growth counters (rules/growth.py): a write merges a slice by its key, a growth read seeks slices by
// the slice they are in (their bucket).
CREATE INDEX growth_key IF NOT EXISTS FOR (c:Growth) ON (c.key)
;
CREATE INDEX growth_bucket IF NOT EXISTS FOR (c:Growth) ON (c.bucket)
;
// A new fulltext index fills in the background: wait, so the first search sees every node.
CALL db.awaitIndex('entity_scoped_search', 600)
;
CALL db.awaitIndex('observation_scoped_search', 600)
;
CALL db.awaitIndex('fact_scoped_search', 600)
;
CALL db.awaitIndex('entity_grams', 600)
;
CALL db.awaitIndex('alias_grams', 600)
;
CALL db.awaitIndex('observation_grams', 600)
