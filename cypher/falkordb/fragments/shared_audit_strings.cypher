// FalkorDB keeps one copy of an interned string however many records hold it (intern()): the entity keys
// an audit entry lists recur in the entry of every write that touched them (see shared_fact_strings).
SET entry.scope = intern(x.shared.scope), entry.action = intern(x.shared.action),
    entry.client = intern(x.shared.client), entry.source = intern(x.shared.source),
    entry.model = intern(x.shared.model), entry.session = intern(x.shared.session),
    entry.entities = [k IN x.shared.entities | intern(k)]
