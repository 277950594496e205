"""Local :class:`~synapse_graph.embedding.Embedder` implementations (optional extras), and choosing one by name."""

from __future__ import annotations

from synapse_graph.embedding import Embedder
from synapse_graph.errors import ConfigurationError


def embedder_from(spec: str, model: str | None = None, *, allow_remote: bool = False,
                  api_key: str | None = None) -> Embedder:
    """The embedder ``spec`` names: ``minilm`` (the local all-MiniLM-L6-v2, the ``vector`` extra), or the base
    URL of an OpenAI-compatible embeddings endpoint serving ``model`` (loopback unless ``allow_remote``)."""
    chosen = spec.strip()
    if chosen.lower() == "minilm":
        if model is not None:
            raise ConfigurationError("--embedder-model names an endpoint's model: minilm needs none")
        from synapse_graph.embedders.minilm import MiniLMEmbedder

        return MiniLMEmbedder()
    if chosen.lower().startswith(("http://", "https://")):
        if not model:
            raise ConfigurationError(f"give the embedding model the endpoint {chosen} serves, e.g. "
                                     "--embedder-model nomic-embed-text")
        from synapse_graph.embedders.endpoint import OpenAIEmbedder

        return OpenAIEmbedder(chosen, model, allow_remote=allow_remote, api_key=api_key)
    raise ConfigurationError(f"unknown embedder {spec!r}: give minilm, or the URL of an OpenAI-compatible "
                             "embeddings endpoint (e.g. http://127.0.0.1:11434 with --embedder-model)")
