// FalkorDB keeps one copy of an interned string however many records hold it (intern()): a record's
// predicate, provenance and trust state recur across the store, and each plain copy costs its own
// allocation (benchmarks/README.md, "Graph memory"). The value must be interned as it is first set: a SET
// to an equal value changes nothing. intern(null) is null: an absent value stays absent.
SET r.predicate = intern(x.shared.predicate), r.source = intern(x.shared.source),
    r.client = intern(x.shared.client), r.model = intern(x.shared.model), r.session = intern(x.shared.session),
    r.status = intern(x.shared.status), r.flag = intern(x.shared.flag)
