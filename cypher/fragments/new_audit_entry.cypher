// The properties of a new audit entry x, given as it is created: FalkorDB sets a property of a node
// it has just created only after merging the graph's pending node labels, at a cost that grows with
// the graph (benchmarks/node_update_cost.py). x.props and x.shared are engine/writes.py's audit_entry
// (the values many entries repeat are apart in x.shared; a dialect that keeps one copy of a repeated
// string interns them: cypher/falkordb/fragments/new_audit_entry.cypher). Absent values stay absent.
{id: x.props.id, at: x.props.at, facts: x.props.facts, detail: x.props.detail, secrets: x.props.secrets,
 scope: x.shared.scope, action: x.shared.action, client: x.shared.client, source: x.shared.source,
 model: x.shared.model, session: x.shared.session, entities: x.shared.entities}
