// How Neo4j 5 says the phrases the dialects say differently (see ../falkordb/phrases.cypher, which says
// how a statement uses them).

// A sub-query with a scope clause, CALL (a, b) { ... }: Neo4j 5 deprecates an importing WITH.
call() = CALL () {
call(variables) = CALL (variables) {

// An instant a write's rows carry: inside a list it arrives as ISO-8601 text (backends/neo4j.py), and is
// stored as a DATETIME.
instant(value) = datetime(value)
// A stored DATETIME, read back as epoch microseconds computed by the server (epochSeconds is floored and
// microsecond is never negative, so instants before 1970 are exact too); hydrating DATETIME values in the
// Python driver costs more than the query.
micros(value) = value.epochSeconds * 1000000 + value.microsecond

// A fact record's exact key of one end (see ../falkordb/phrases.cypher): its slot and the instant's epoch
// microseconds as text; of an instant a write's row carries (ISO-8601 text), as stored (a DATETIME).
record_key(slot, instant) = toString(slot) + '@' + toString({{micros(instant)}})
new_record_key(slot, instant) = {{record_key(slot, datetime(instant))}}

// A node's id: its element id (Neo4j 5 deprecates id()).
node_id(node) = elementId(node)
// No node ids: Neo4j finds an entity by its (scope, key) index as fast as by element id (which it parses
// first), so every later statement of a write seeks entities by key (measured in 100k loads: the batch's
// writes/current_records took 9.45 s with element ids against 4.33 s without); its keys carry none, and
// the sub-query that seeks by id reads nothing.
node_ids(node) = []
// The start of a record fragments/links seeks by an end key: any (the relationship index is sought).
linked_from(node) = ()
// The hint keeps the planner on the (scope, key) unique index: it would otherwise scan every entity of
// the scope through the scope index.
key_hint(node) = USING INDEX node:Entity(scope, key)
// The hint keeps a read of one slot on that slot's relationship index: the planner would otherwise seek the
// entity by key and walk all its facts (every fact of a busy object such as an employer).
slot_hint(rel, property) = USING INDEX rel:FACT(property)
// A scope's nodes of a label read by the scope alone (recall's vector scan of observations, a purge, an export,
// the stats): the hint keeps the planner on the label's index that leads with the scope, which it would otherwise
// pass over for a scan of the label, every scope's (21,144 observations read on the dev server for a LoCoMo
// conversation's 184; issue 28). Neo4j uses a composite index only with a predicate on each of its properties:
// the phrase says each of the others (which every node of the label holds) is not null, and opens the WHERE
// clause; the caller's predicates follow it ({{scope_seek(t, Tombstone, subject, predicate, object)}}).
scope_seek(node, label, properties) = USING INDEX node:label(scope, properties) WHERE {{present(node, properties)}}
// node.property IS NOT NULL AND, for each property given.
present(node, property...) = node.property IS NOT NULL AND

// Neo4j has no interned strings: the value as it is.
interned(value) = value
interned_all(strings) = strings

// How many facts touch the entity: a COUNT subquery (no indegree/outdegree), which the planner answers
// from the node's relationship counts.
degree(node) = COUNT { (node)-[:FACT]-() }

// How many fact records the entity is an end of, one per end (a record about itself counts twice): the count
// that writes keep on the entity as `records` (engine/writes.py record_counts), measured.
records(node) = COUNT { (node)-[:FACT]->() } + COUNT { (node)<-[:FACT]-() }

// The scope's search token (rules/recall.py scope_token), which Neo4j's fulltext indexes hold beside the
// words so that a search keeps to one scope (recall/search_lexical): a map entry of a new node, or a
// property set (null takes the node out of the search).
token_entry(token) = , scope_token: token
token_property(node, token) = , node.scope_token = token
// The scope's history token: what an expired memory (observation, fact record) holds instead of the scope's
// token from store format 14, so a search as believed at an earlier time ($known_at) finds the memories
// corrected or forgotten since (recall/memory_lexical asks for both tokens then; a current search, the scope's
// token alone, never sees them).
history_token(token) = token + 'h'
expired_token_property(node, token) = , node.scope_token = {{history_token(token)}}
memory_token_entry(expired, token) = , scope_token: CASE WHEN expired IS NULL THEN token ELSE {{history_token(token)}} END
memory_token_property(node, expired, token) = , node.scope_token = CASE WHEN expired IS NULL THEN token ELSE {{history_token(token)}} END
// The Lucene clause keeping a search of memories to the scope: its token; as believed at an earlier time
// ($known_at), its history token too (the filters then keep what was believed at $known_at: known_then).
memory_tokens() = '+scope_token:(' + $scope_token + CASE WHEN $known_at IS NULL THEN '' ELSE ' ' + {{history_token($scope_token)}} END + ')^0'

// An entity-name embedding as stored: a LIST<FLOAT>, which Neo4j's vector index reads.
vector(value) = value
// The cosine similarity of a stored embedding and a query vector: vector.similarity.cosine gives (1 + cos) / 2.
cosine(stored, query) = 2.0 * vector.similarity.cosine(stored, query) - 1.0
// A query vector made once for bound_cosine (see ../falkordb/phrases.cypher): the parameter as it is.
query_vector(value) = value
bound_cosine(stored, query) = 2.0 * vector.similarity.cosine(stored, query) - 1.0

// A memory's embedding as stored (an observation node, a fact relationship): a float[] written by the vector
// procedures, whose cosine reads faster than a LIST<FLOAT> property's (docs/recall-design.md).
node_vector(node, value) = CALL db.create.setNodeVectorProperty(node, 'embedding', value)
relationship_vector(rel, value) = CALL db.create.setRelationshipVectorProperty(rel, 'embedding', value)
// The nodes of a label whose grams hold every one of the tokens (rules/grams.py), from the label's grams
// fulltext index (schema/schema.cypher), every scope's: the caller keeps its scope's.
grams_hits(label, tokens) = CALL db.index.fulltext.queryNodes(toLower('label') + '_grams', reduce(q = '', t IN tokens | q + ' +grams:' + t)) YIELD node

// The nearest memories to a query vector by the memories' vector indexes (recall/vector_index): every scope's,
// the best `count` of them (nearest first), as o (an observation) or r (a fact record).
nearest_observations(count, query) = CALL db.index.vector.queryNodes('observation_embedding', count, query) YIELD node AS o
nearest_facts(count, query) = CALL db.index.vector.queryRelationships('fact_embedding', count, query) YIELD relationship AS r

// A memory (an observation or a fact record) as the store believed it at $known_at: recorded by then and not
// expired (corrected, forgotten) until after it; null $known_at: the current belief (not expired). The same in
// both dialects (fragments/believed_at adds a fact record's trust state).
known_then(m) = (($known_at IS NULL AND m.expired_at IS NULL) OR (m.recorded_at <= $known_at AND (m.expired_at IS NULL OR m.expired_at > $known_at)))
