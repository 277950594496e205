// The one projection of an observation o about entity e, as a map (synapse_graph/engine/rows.py reads it).
{id: o.id, entity: e.name, entity_key: e.key, text: o.text, recorded_at: o.recorded_at, expired_at: o.expired_at,
 source: o.source, client: o.client, session: o.session}
