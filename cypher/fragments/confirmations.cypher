// How often the FACT r was confirmed: a record confirmed once stores no count (synapse_graph/rules/trust.py
// stored_confirmations), so an absent count reads as 1.
coalesce(r.confirmations, 1)
