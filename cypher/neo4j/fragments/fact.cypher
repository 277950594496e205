// Neo4j form of ../../fragments/fact.cypher: instants come back as epoch microseconds computed by the
// server (epochSeconds is floored and microsecond is never negative, so instants before 1970 are
// exact too); hydrating DATETIME values in the Python driver costs more than the query.
{id: r.id, subject: a.name, subject_key: a.key, subject_type: a.type,
 predicate: r.predicate, object: b.name, object_key: b.key, object_type: b.type,
 valid_at: r.valid_at.epochSeconds * 1000000 + r.valid_at.microsecond,
 invalid_at: r.invalid_at.epochSeconds * 1000000 + r.invalid_at.microsecond,
 recorded_at: r.recorded_at.epochSeconds * 1000000 + r.recorded_at.microsecond,
 expired_at: r.expired_at.epochSeconds * 1000000 + r.expired_at.microsecond,
 confidence: {{confidence}}, confirmations: {{confirmations}}, source: r.source, client: r.client,
 model: r.model, session: r.session, status: {{state}}, flag: r.flag,
 confirmed_at: r.confirmed_at.epochSeconds * 1000000 + r.confirmed_at.microsecond, pinned: coalesce(r.pinned, false)}
