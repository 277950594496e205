// FalkorDB's own: it stores no search token (../../migrations/set_scope_tokens.cypher sets Neo4j's).
// Store format 4 where the fulltext search filters by the scope property itself (FalkorDB): entities,
// aliases and observations carry no search token (the Neo4j form stores one for its Lucene indexes), and
// a store of an older format never had one: nothing to do. (A `SET` through an OPTIONAL MATCH that found
// nothing, of a property name the graph has never held, stops FalkorDB 4.22's server: nothing is set here.)
RETURN 0 AS updated
