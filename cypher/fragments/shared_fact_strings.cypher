// The values of a new fact record r that many records repeat (x.shared: its predicate, provenance
// and trust state; synapse_graph/engine/writes.py SHARED_FACT_VALUES), interned: a record's predicate,
// provenance and trust state recur across the store, and each plain copy costs its own allocation
// (benchmarks/README.md, "Graph memory").
SET r.predicate = {{interned(x.shared.predicate)}}, r.source = {{interned(x.shared.source)}},
    r.client = {{interned(x.shared.client)}}, r.model = {{interned(x.shared.model)}}, r.session = {{interned(x.shared.session)}},
    r.status = {{interned(x.shared.status)}}, r.flag = {{interned(x.shared.flag)}}
