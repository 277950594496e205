// FalkorDB's own: its fulltext procedures take RediSearch queries over one label or relationship type, filtered
// by the scope property.
// Recall's full-text leg over the memories of a scope that holds fewer than $pool of each kind (so every match
// comes back; memory_lexical_each asks a larger scope stem by stem): the scope's current observations and fact
// records (believed, valid at $as_of; recorded by $known_at if given) holding any stem of the question
// ($stems: letters and digits only, so they carry no query syntax), as rows of the memory's kind, its stems
// (BM25 scores the memories in Python, on both backends alike: rules/stems.py), the memory whole (an
// observation without its entity's name) and the cosine of its embedding to $vector (null without one, or for
// a memory not embedded by $model).
WITH reduce(q = '', t IN $stems | q + CASE WHEN q = '' THEN '' ELSE ' | ' END + t) AS q
CALL db.idx.fulltext.queryNodes('Observation', q) YIELD node
WITH node AS o
WHERE o.scope = $scope AND o.expired_at IS NULL AND ($known_at IS NULL OR o.recorded_at <= $known_at)
WITH o LIMIT $pool
RETURN 'lexical' AS leg, null AS stem, 'observation' AS kind, o.search_text AS stems,
       {entity: null, entity_key: o.entity, {{observation_fields}}} AS memory,
       CASE WHEN $vector IS NOT NULL AND o.embedding_model = $model THEN {{cosine(o.embedding, $vector)}} END AS cosine
UNION ALL
WITH reduce(q = '', t IN $stems | q + CASE WHEN q = '' THEN '' ELSE ' | ' END + t) AS q
CALL db.idx.fulltext.queryRelationships('FACT', q) YIELD relationship
WITH relationship AS r
WHERE r.expired_at IS NULL AND {{state}} = 'believed' AND r.valid_at <= $as_of
  AND (r.invalid_at IS NULL OR r.invalid_at > $as_of) AND ($known_at IS NULL OR r.recorded_at <= $known_at)
WITH r, startNode(r) AS a WHERE a.scope = $scope
WITH r, a, endNode(r) AS b LIMIT $pool
RETURN 'lexical' AS leg, null AS stem, 'fact' AS kind, r.search_text AS stems, {{fact}} AS memory,
       CASE WHEN $vector IS NOT NULL AND r.embedding_model = $model THEN {{cosine(r.embedding, $vector)}} END AS cosine
{{memory_vector_legs}}
