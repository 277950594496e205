// The one projection of an audit entry x, as a map (synapse_graph/engine/rows.py reads it).
{id: x.id, at: x.at, action: x.action, client: x.client, source: x.source, model: x.model,
 session: x.session, entities: x.entities, facts: x.facts, detail: x.detail, secrets: x.secrets}
