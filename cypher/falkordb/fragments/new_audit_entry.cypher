// FalkorDB keeps one copy of an interned string however many records hold it (intern()): the entity keys
// an audit entry lists recur in the entry of every write that touched them (see shared_fact_strings).
{id: x.props.id, at: x.props.at, facts: x.props.facts, detail: x.props.detail, secrets: x.props.secrets,
 scope: intern(x.shared.scope), action: intern(x.shared.action), client: intern(x.shared.client),
 source: intern(x.shared.source), model: intern(x.shared.model), session: intern(x.shared.session),
 entities: [k IN x.shared.entities | intern(k)]}
