"""Local :class:`~synapse_graph.embedding.Embedder` implementations (optional extras)."""
