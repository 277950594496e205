"""The web inspector: see and fix what the memory holds, in a browser or over a JSON HTTP API.

Needs the ``ui`` extra (``pip install '.[ui]'`` from a clone: FastAPI, uvicorn, Jinja2); ``synapse-graph ui``
serves it (see ``docs/inspector.md``). Pages are rendered on the server (Jinja2, every name and text escaped);
each has a JSON twin at its path with ``.json``; the JSON API is under ``/api`` (OpenAPI at
``/api/openapi.json``).
"""

from __future__ import annotations

from synapse_graph.extras import needs_extra

with needs_extra("ui", "the web inspector"):
    from synapse_graph.ui.app import create_app, serve
from synapse_graph.ui.settings import CLIENT, DEFAULT_PORT, TOKEN_ENV, UiSettings

__all__ = ["CLIENT", "DEFAULT_PORT", "TOKEN_ENV", "UiSettings", "create_app", "serve"]
