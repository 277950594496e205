// The one projection of a fact record, as a map: r is the FACT, a its subject, b its object.
// Every statement that returns facts includes it ({{fact}}); synapse_graph/engine/rows.py reads it.
// Instants come back as epoch microseconds (phrase micros).
{id: r.id, subject: a.name, subject_key: a.key, subject_type: a.type,
 predicate: r.predicate, object: b.name, object_key: b.key, object_type: b.type,
 valid_at: {{micros(r.valid_at)}}, invalid_at: {{micros(r.invalid_at)}}, recorded_at: {{micros(r.recorded_at)}},
 expired_at: {{micros(r.expired_at)}},
 confidence: {{confidence}}, confirmations: {{confirmations}}, source: r.source, client: r.client,
 model: r.model, session: r.session, status: {{state}}, flag: r.flag,
 confirmed_at: {{micros(r.confirmed_at)}}, pinned: coalesce(r.pinned, false)}
