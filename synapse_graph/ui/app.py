"""The inspector as an ASGI application: pages, their JSON twins and the JSON API over one memory.

Example:
    >>> from synapse_graph import AsyncMemory
    >>> from synapse_graph.ui import UiSettings, create_app
    >>> app = create_app(AsyncMemory("memory.db", scope="acme/web", client="synapse-graph-ui"), UiSettings())
    >>> # uvicorn.run(app, host="127.0.0.1", port=8766)   # what `synapse-graph ui` does
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from synapse_graph import __version__
from synapse_graph.aio import AsyncMemory
from synapse_graph.errors import (
    BackendUnavailableError,
    ConcurrencyConflictError,
    InvalidInputError,
    NotFoundError,
    QuotaExceededError,
    ScopeBusyError,
    ScopeRulesConflictError,
    SessionClosedError,
    SynapseError,
)
from synapse_graph.ui import api, pages
from synapse_graph.ui.guard import Guard, Sessions
from synapse_graph.ui.settings import UiSettings
from synapse_graph.ui.views import Aggregates

STATUS_OF: tuple[tuple[type[SynapseError], int], ...] = (
    (InvalidInputError, 400), (NotFoundError, 404), (QuotaExceededError, 409), (ScopeRulesConflictError, 409),
    (SessionClosedError, 409), (ScopeBusyError, 503), (ConcurrencyConflictError, 503), (BackendUnavailableError, 503),
)


def status_of(error: SynapseError) -> int:
    """The HTTP status of a library error (500 for one that says the server itself went wrong)."""
    return next((status for kind, status in STATUS_OF if isinstance(error, kind)), 500)


def create_app(memory: AsyncMemory, settings: UiSettings | None = None) -> FastAPI:
    """The inspector over ``memory``, which it opens when the server starts and closes when it stops."""
    chosen = settings or UiSettings()
    sessions = Sessions(hours=chosen.session_hours)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with memory:
            app.state.memory = memory
            yield

    app = FastAPI(title="synapse-graph inspector", version=__version__, lifespan=lifespan, docs_url=None,
                  redoc_url=None, openapi_url="/api/openapi.json",
                  description="The memory's operations over HTTP (the JSON API, under /api), and the JSON twin of "
                              "every page of the inspector (the page's path with .json).")
    app.state.settings = chosen
    app.state.sessions = sessions
    app.state.aggregates = Aggregates()
    app.state.memory = memory
    app.include_router(api.router(chosen))
    app.include_router(pages.router(chosen))
    app.mount("/static", StaticFiles(packages=[("synapse_graph.ui", "static")]), name="static")

    @app.exception_handler(SynapseError)
    async def library_error(request: Request, exc: SynapseError) -> Response:
        return _error(request, status_of(exc), type(exc).__name__, str(exc))

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        if _wants_json(request):
            return JSONResponse({"detail": _jsonable(exc.errors())}, status_code=422)
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'][1:])}: {e['msg']}" for e in exc.errors())
        return _error(request, 422, "InvalidInputError", problems)

    app.add_middleware(Guard, settings=chosen, sessions=sessions)
    return app


def _wants_json(request: Request) -> bool:
    path = request.url.path
    return path.startswith("/api/") or path.endswith(".json")


def _error(request: Request, status: int, kind: str, message: str) -> Response:
    if _wants_json(request):
        return JSONResponse({"error": kind, "message": message}, status_code=status)
    return pages.error_page(request, status, kind, message)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items() if k != "ctx"}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value if isinstance(value, str | int | float | bool | type(None)) else str(value)


def serve(memory: AsyncMemory, settings: UiSettings, *, ready: Callable[[str], None] | None = None,
          log_level: str = "warning") -> None:
    """Open ``memory`` (so a store that cannot be opened fails before anything listens), then serve the
    inspector on ``settings.bind`` until interrupted; ``ready`` gets its URL once it listens."""
    import asyncio

    import uvicorn

    async def run() -> None:
        async with memory:
            server = uvicorn.Server(uvicorn.Config(create_app(memory, settings), host=settings.bind.host,
                                                   port=settings.bind.port, log_level=log_level, lifespan="on"))
            serving = asyncio.create_task(server.serve())
            while not server.started and not serving.done():
                await asyncio.sleep(0.05)
            if server.started and ready is not None:
                ready(f"{settings.bind.origin}/")
            await serving

    asyncio.run(run())
