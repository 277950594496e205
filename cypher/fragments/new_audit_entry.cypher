// The properties of a new audit entry x, given as it is created: FalkorDB sets a property of a node
// it has just created only after merging the graph's pending node labels, at a cost that grows with
// the graph (benchmarks/node_update_cost.py). x.props and x.shared are engine/writes.py's audit_entry
// (the values many entries repeat are apart in x.shared, interned: the entity keys an entry lists recur in
// the entry of every write that touched them); verdicts and verdict_records: what its events were
// (rules/changes.py verdicts), and verdict_values what its changes show of their records (engine/writes.py
// verdict_values), read by engine/changes.py. Absent values stay absent.
{id: x.props.id, at: {{instant(x.props.at)}}, facts: x.props.facts, detail: x.props.detail, secrets: x.props.secrets,
 verdicts: x.props.verdicts, verdict_records: x.props.verdict_records, verdict_before: x.props.verdict_before,
 verdict_by: x.props.verdict_by, verdict_why: x.props.verdict_why, verdict_values: x.props.verdict_values,
 scope: {{interned(x.shared.scope)}}, action: {{interned(x.shared.action)}}, client: {{interned(x.shared.client)}},
 source: {{interned(x.shared.source)}}, model: {{interned(x.shared.model)}}, session: {{interned(x.shared.session)}},
 entities: {{interned_all(x.shared.entities)}}}
