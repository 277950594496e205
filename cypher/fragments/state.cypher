// The trust state of the FACT r: a believed record stores none (synapse_graph/engine/writes.py record_props),
// so an absent state reads as believed.
coalesce(r.status, 'believed')
