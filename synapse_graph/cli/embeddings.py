"""The command that embeds a scope's memories again when the embedding model changes."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from synapse_graph import render
from synapse_graph.cli.shell import AsJson, Db, Password, Scope, User, _emit, _open, command, say
from synapse_graph.embedders import embedder_from
from synapse_graph.embedders.endpoint import API_KEY_ENV
from synapse_graph.embedding import Embedder

_EMBEDDER_HELP = ("minilm (the local all-MiniLM-L6-v2: the vector extra), or the base URL of an OpenAI-compatible "
                  "embeddings endpoint (Ollama, LM Studio, vLLM, llama.cpp), e.g. http://127.0.0.1:11434")
EmbedderSpec = Annotated[str | None, typer.Option(
    "--embedder", envvar="SYNAPSE_EMBEDDER", show_envvar=True,
    help=_EMBEDDER_HELP + "; recall then finds memories by their meaning too (default: none, words only).")]
EmbedderModel = Annotated[str | None, typer.Option(
    "--embedder-model", envvar="SYNAPSE_EMBEDDER_MODEL", show_envvar=True,
    help="The endpoint's embedding model, e.g. nomic-embed-text (its API key: $SYNAPSE_EMBEDDER_API_KEY).")]
AllowRemote = Annotated[bool, typer.Option(
    "--allow-remote", help="Allow an endpoint that is not on this machine (memories carry what users said).")]


def chosen_embedder(spec: str | None, model: str | None, allow_remote: bool) -> Embedder | None:
    """The embedder the options name (None: none named)."""
    if spec is None or not spec.strip():
        return None
    return embedder_from(spec, model, allow_remote=allow_remote, api_key=os.environ.get(API_KEY_ENV))


@command()
def reembed(
    embedder: Annotated[str, typer.Option(
        "--embedder", envvar="SYNAPSE_EMBEDDER", show_envvar=True, help=_EMBEDDER_HELP)],
    model: EmbedderModel = None,
    allow_remote: AllowRemote = False,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1, max=256, help="Texts embedded at a time.")] = 256,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Embed the scope's memories (entity names, observations, facts) with an embedder and make it the scope's
    own: run it after changing the embedding model (recall with another model is refused until then)."""
    chosen = embedder_from(embedder, model, allow_remote=allow_remote, api_key=os.environ.get(API_KEY_ENV))
    with _open(db, scope, user, password, create=False, embedder=chosen) as memory:
        count = memory.reindex_embeddings(batch_size)
    _emit({"scope": scope, "embedded": count, "embedder": chosen.name, "dimensions": chosen.dimensions}, as_json,
          lambda r: say(f"embedded {render.plural(count, 'text')} of scope {scope!r} with {chosen.name} "
                        f"({chosen.dimensions} dimensions); it is the scope's embedder now"))
