// FalkorDB's own: each dialect says its indexes and constraints in syntax of its own.
// FalkorDB: unique constraints are created by the driver with GRAPH.CONSTRAINT
// (they need these exact-match indexes first); this file holds the indexes.
CREATE INDEX FOR (e:Entity) ON (e.scope, e.key);
CREATE INDEX FOR (a:Alias) ON (a.scope, a.key);
CREATE INDEX FOR (s:Scope) ON (s.scope);
CREATE INDEX FOR ()-[r:FACT]-() ON (r.id);
CREATE INDEX FOR ()-[r:FACT]-() ON (r.slot);
CREATE INDEX FOR ()-[r:FACT]-() ON (r.object_slot);
CREATE INDEX FOR ()-[r:FACT]-() ON (r.predicate_slot);
CREATE INDEX FOR ()-[r:FACT]-() ON (r.pinned);
CALL db.idx.fulltext.createNodeIndex({label: 'Entity', stopwords: []}, {field: 'search_text', nostem: true});
CALL db.idx.fulltext.createNodeIndex({label: 'Alias', stopwords: []}, {field: 'search_text', nostem: true})
;
CREATE INDEX FOR (t:Tombstone) ON (t.scope, t.subject);
CREATE INDEX FOR (o:Observation) ON (o.scope, o.entity);
CREATE INDEX FOR (n:Session) ON (n.scope, n.id);
CREATE INDEX FOR (o:Observation) ON (o.scope, o.id);
CALL db.idx.fulltext.createNodeIndex({label: 'Observation', stopwords: []}, {field: 'search_text', nostem: true})
;
CREATE INDEX FOR (a:Audit) ON (a.scope, a.at)
