// Neo4j form of ../../fragments/new_audit_entry.cypher: the entry's instant arrives as ISO-8601 text
// inside a list (see backends/neo4j.py) and is stored as a DATETIME.
{id: x.props.id, at: datetime(x.props.at), facts: x.props.facts, detail: x.props.detail, secrets: x.props.secrets,
 scope: x.shared.scope, action: x.shared.action, client: x.shared.client, source: x.shared.source,
 model: x.shared.model, session: x.shared.session, entities: x.shared.entities}
