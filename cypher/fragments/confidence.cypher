// The confidence of the FACT r: a record of full confidence stores none (synapse_graph/rules/trust.py
// stored_confidence), so an absent one reads as 1.0.
coalesce(r.confidence, 1.0)
