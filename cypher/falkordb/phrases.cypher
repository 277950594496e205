// How FalkorDB says the phrases the dialects say differently (see ../neo4j/phrases.cypher). A statement
// writes {{name(arguments)}}; synapse_graph/catalogue.py puts the arguments in for the parameters
// (whole words; the last parameter takes the rest of the arguments, commas included; marked `...`, the phrase
// is said once for each of them); a phrase may say another. Every dialect defines every phrase
// (tests/unit/test_catalogue.py). A phrase's text holds no user value.

// A sub-query: with no variables, or importing the given variables with a leading WITH.
call() = CALL {
call(variables) = CALL { WITH variables

// An instant a write's rows carry (an integer of epoch microseconds), stored as it is.
instant(value) = value
// A stored instant, read back (epoch microseconds).
micros(value) = value

// A fact record's exact key of one end (store format 13: fragments/links seeks `starts` and `ends` by equality):
// its slot and the instant (epoch microseconds) as text, null for an absent instant. Text, not a number: FalkorDB's
// range index compares numbers as doubles, which lose instants past 2^53 microseconds. Of a stored instant, and of
// an instant a write's row carries (stored as it is here).
record_key(slot, instant) = toString(slot) + '@' + toString(instant)
new_record_key(slot, instant) = {{record_key(slot, instant)}}

// The start of a record that fragments/links seeks by an end key: the subject it has in common with r. Warm, the
// seek still reads the end-key index; while the server still builds that index after a cold open (DELAY_INDEXING),
// the plan walks the subject's records instead of every record of the graph, so a read need not wait for it.
linked_from(node) = (node)
// A node's id (id(): FalkorDB finds a node by its id without an index).
node_id(node) = id(node)
// The ids of the entities a write found (writes/resolve_keys): later statements of the write seek them by id.
node_ids(node) = collect(id(node))
// The planner finds an entity by its (scope, key) index unhinted.
key_hint(node) =
// The planner reads a slot through its relationship index unhinted.
slot_hint(rel, property) =
// The planner seeks a scope's nodes of a label by its scope index unhinted: the phrase only opens the WHERE clause.
scope_seek(node, label, properties) = WHERE
// node.property IS NOT NULL AND, for each property given (see ../neo4j/phrases.cypher).
present(node, property...) = node.property IS NOT NULL AND

// A string many records repeat, interned: FalkorDB keeps one copy of it however many records hold it
// (intern(null) is null: an absent value stays absent). It must be interned as it is first set: a SET to
// an equal value changes nothing.
interned(value) = intern(value)
interned_all(strings) = [k IN strings | intern(k)]

// How many facts touch the entity: its relationship count, read without walking them.
degree(node) = indegree(node, 'FACT') + outdegree(node, 'FACT')

// How many fact records the entity is an end of, one per end (a record about itself counts twice): the count
// that writes keep on the entity as `records` (engine/writes.py record_counts), measured.
records(node) = indegree(node, 'FACT') + outdegree(node, 'FACT')

// The scope's search token of entities and aliases: FalkorDB's fulltext search of names filters by the scope
// property itself, so none is stored (a map entry of a new node, or a property set).
token_entry(token) =
token_property(node, token) =
// Memories (observations, fact records) hold a search token from store format 15 (../neo4j/phrases.cypher says
// how: the scope's while current, its history token once expired), interned (one copy however many hold it), in
// their label's fulltext index, so a search of memories keeps to the scope inside the index (issue 28: the index
// answers every scope's matches, and a stem's call that reaches its cap read other scopes' first).
history_token(token) = token + 'h'
expired_token_property(node, token) = , node.scope_token = intern({{history_token(token)}})
memory_token_entry(expired, token) = , scope_token: intern(CASE WHEN expired IS NULL THEN token ELSE {{history_token(token)}} END)
memory_token_property(node, expired, token) = , node.scope_token = intern(CASE WHEN expired IS NULL THEN token ELSE {{history_token(token)}} END)
// The RediSearch clause keeping a search of memories to the scope, after the searched words in parentheses: its
// token; as believed at an earlier time ($known_at), its history token too (the filters then keep what was
// believed at $known_at: known_then). The tokens are letters and digits (rules/recall.py scope_token), one word
// 25 or 26 long: no query syntax. The index still yields the matches in the order it indexed them, the scope's
// alone: the same matches, in the same order, as a search of every scope filtered after.
memory_tokens() = ' @scope_token:(' + $scope_token + CASE WHEN $known_at IS NULL THEN '' ELSE ' | ' + {{history_token($scope_token)}} END + ')'

// An entity-name embedding as stored: the vecf32 type, which FalkorDB's vector index reads.
vector(value) = vecf32(value)
// The cosine similarity of a stored embedding and a query vector (a parameter: converted to vecf32 on each row).
cosine(stored, query) = 1.0 - vec.cosineDistance(stored, vecf32(query))
// A query vector (a parameter) made once into what bound_cosine compares: a statement binds it before a scan, as
// vecf32($vector) on each of a scan's rows cost ~3 us a row (0.8 -> 0.3 ms server time over 169 observations).
query_vector(value) = vecf32(value)
// The cosine similarity of a stored embedding and a query vector bound by query_vector.
bound_cosine(stored, query) = 1.0 - vec.cosineDistance(stored, query)

// A memory's embedding as stored (an observation node, a fact relationship): vecf32, as the name's.
node_vector(node, value) = SET node.embedding = vecf32(value)
relationship_vector(rel, value) = SET rel.embedding = vecf32(value)

// The nodes of a label whose grams hold every one of the tokens (rules/grams.py), from the label's fulltext
// index (its grams field, which holds them unstemmed), every scope's: the caller keeps its scope's.
grams_hits(label, tokens) = CALL db.idx.fulltext.queryNodes('label', '@grams:(' + reduce(q = '', t IN tokens | q + ' ' + t) + ')') YIELD node

// The nearest memories to a query vector by the memories' vector indexes (recall/vector_index): every scope's,
// the best `count` of them (nearest first), as o (an observation) or r (a fact record).
nearest_observations(count, query) = CALL db.idx.vector.queryNodes('Observation', 'embedding', count, vecf32(query)) YIELD node AS o
nearest_facts(count, query) = CALL db.idx.vector.queryRelationships('FACT', 'embedding', count, vecf32(query)) YIELD relationship AS r

// A memory (an observation or a fact record) as the store believed it at $known_at: recorded by then and not
// expired (corrected, forgotten) until after it; null $known_at: the current belief (not expired). The same in
// both dialects (fragments/believed_at adds a fact record's trust state).
known_then(m) = (($known_at IS NULL AND m.expired_at IS NULL) OR (m.recorded_at <= $known_at AND (m.expired_at IS NULL OR m.expired_at > $known_at)))
