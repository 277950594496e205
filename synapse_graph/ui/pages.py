"""The inspector's pages: each one server-rendered from :mod:`~synapse_graph.ui.views`, with its data at a
JSON twin (the same path with ``.json`` and the same query), and the forms that change the memory."""

from __future__ import annotations

import json
from datetime import datetime
from functools import cache
from typing import Annotated, Any, Literal
from urllib.parse import urlencode

import jinja2
from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from synapse_graph import render
from synapse_graph.errors import InvalidInputError, NotFoundError
from synapse_graph.ui import views
from synapse_graph.ui.api import ERROR_RESPONSES, Memory, export_response
from synapse_graph.ui.drawing import growth_chart, timeline
from synapse_graph.ui.guard import session_cookie
from synapse_graph.ui.params import Page, text, when
from synapse_graph.ui.settings import UiSettings

Known = Literal["now", "then"]
AUDIT_PAGE = 25
"""Audit entries per page (each in brief: views.AUDIT_BRIEF)."""
TimelinePage = Annotated[int, Query(alias="timeline", ge=1, le=10_000,
                                    description="the page of validity intervals the timeline draws, oldest first")]
GRAPH_FACTS = 100
"""Facts the graph draws unless asked for more (up to 1,000): more than a drawing can show legibly."""


@cache
def templates() -> Jinja2Templates:
    """The page templates; every value they print is escaped (HTML and SVG alike)."""
    env = jinja2.Environment(loader=jinja2.PackageLoader("synapse_graph.ui", "templates"), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.globals.update(time_text=render.time_text, interval_text=render.interval_text, url=url)
    env.filters["json"] = lambda value: json.dumps(value)
    return Jinja2Templates(env=env)


def url(path: str, **params: Any) -> str:
    """``path?query`` with the parameters given (None and empty ones left out)."""
    given = {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in params.items()
             if v is not None and v != ""}
    return path + ("?" + urlencode(given) if given else "")


def page(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    settings: UiSettings = request.app.state.settings
    twin = request.url.path.rstrip("/") or "/overview"
    query = request.url.query
    return templates().TemplateResponse(request, template, {
        "settings": settings, "scope": request.app.state.memory.scope, "csrf": request.state.csrf_token,
        "signed_in_by_token": settings.token is not None,
        "twin": twin + ".json" + (f"?{query}" if query else ""), "path": request.url.path, **context},
        status_code=status)


def error_page(request: Request, status: int, kind: str, message: str) -> HTMLResponse:
    return page(request, "error.html", status, kind=kind, message=message)


def _back(target: str | None, default: str) -> str:
    """Where a form sends the browser afterwards: a path of this site only (no open redirect)."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return default


def _done(target: str, what: str) -> str:
    """``target`` with the notice of what was done (shown at the top of the page)."""
    return target + ("&" if "?" in target else "?") + urlencode({"done": what})


def _see(target: str) -> RedirectResponse:
    return RedirectResponse(target, status_code=303)


def router(settings: UiSettings) -> APIRouter:
    pages = APIRouter(responses=ERROR_RESPONSES)
    size = settings.page_size

    # -- overview, entities, search ---------------------------------------------------------------

    @pages.get("/", response_class=HTMLResponse, include_in_schema=False)
    @pages.get("/overview", response_class=HTMLResponse, include_in_schema=False)
    async def overview_page(request: Request, memory: Memory) -> Response:
        view = await views.overview(memory, request.app.state.aggregates)
        return page(request, "overview.html", view=view, sections=views.OVERVIEW_SECTIONS,
                    chart=growth_chart(view.sections["growth"]))

    @pages.get("/overview.json", tags=["pages"])
    async def overview_json(request: Request, memory: Memory) -> views.Overview:
        """The overview: counts, growth over recorded time, the latest writes."""
        return await views.overview(memory, request.app.state.aggregates)

    async def entity_list(memory: Memory, matching: str | None, after: str | None) -> views.EntityList:
        return await views.entity_list(memory, matching=text(matching), after=text(after), size=size)

    @pages.get("/entities", response_class=HTMLResponse, include_in_schema=False)
    async def entities_page(request: Request, memory: Memory, matching: str | None = None,
                            after: str | None = None) -> Response:
        return page(request, "entities.html", view=await entity_list(memory, matching, after))

    @pages.get("/entities.json", tags=["pages"])
    async def entities_json(memory: Memory, matching: str | None = None, after: str | None = None
                            ) -> views.EntityList:
        """The scope's entities, a page at a time."""
        return await entity_list(memory, matching, after)

    async def search(memory: Memory, q: str | None, as_of: str | None, known_at: str | None, hops: int,
                     number: int) -> views.Search:
        return await views.search(memory, text(q), as_of=when(as_of), known_at=when(known_at), hops=hops,
                                  page=Page(number, 25))

    @pages.get("/search", response_class=HTMLResponse, include_in_schema=False)
    async def search_page(request: Request, memory: Memory, q: str | None = None, as_of: str | None = None,
                          known_at: str | None = None, hops: Annotated[int, Query(ge=1, le=2)] = 1,
                          page_number: Annotated[int, Query(alias="page", ge=1, le=1_000)] = 1) -> Response:
        return page(request, "search.html", view=await search(memory, q, as_of, known_at, hops, page_number))

    @pages.get("/search.json", tags=["pages"])
    async def search_json(memory: Memory, q: str | None = None, as_of: str | None = None, known_at: str | None = None,
                          hops: Annotated[int, Query(ge=1, le=2)] = 1,
                          page_number: Annotated[int, Query(alias="page", ge=1, le=1_000)] = 1) -> views.Search:
        """Recall: each fact with its relevance, score, hop, the entity and words it was recalled by."""
        return await search(memory, q, as_of, known_at, hops, page_number)

    # -- an entity and its graph ----------------------------------------------------------------------

    async def entity(request: Request, memory: Memory, name: str, as_of: str | None, known: Known,
                     predicate: str | None, number: int, timeline_page: int) -> views.EntityView:
        view = await views.entity(memory, name, as_of=when(as_of), known_then=known == "then",
                                  predicate=text(predicate), page=Page(number, size), kept=request.app.state.aggregates,
                                  timeline=timeline_page)
        if view.entity is None:
            raise NotFoundError(f"no entity named {name!r} in scope {memory.scope!r}")
        return view

    @pages.get("/entity", response_class=HTMLResponse, include_in_schema=False)
    async def entity_page(request: Request, memory: Memory, name: str, as_of: str | None = None,
                          known: Known = "now", predicate: str | None = None,
                          page_number: Annotated[int, Query(alias="page", ge=1, le=10_000)] = 1,
                          timeline_page: TimelinePage = 1) -> Response:
        view = await entity(request, memory, name, as_of, known, predicate, page_number, timeline_page)
        drawn = timeline(view.history, shown=view.as_of, now=view.now)
        return page(request, "entity.html", view=view, drawn=drawn, known=known, as_of_param=as_of or "")

    @pages.get("/entity.json", tags=["pages"])
    async def entity_json(request: Request, memory: Memory, name: str, as_of: str | None = None, known: Known = "now",
                          predicate: str | None = None,
                          page_number: Annotated[int, Query(alias="page", ge=1, le=10_000)] = 1,
                          timeline_page: TimelinePage = 1) -> views.EntityView:
        """An entity as the memory held it at ``as_of`` (``known=then``: as it believed it then); ``timeline``: which
        page of its validity intervals the timeline draws."""
        return await entity(request, memory, name, as_of, known, predicate, page_number, timeline_page)

    async def graph(memory: Memory, name: str | None, as_of: str | None, known: Known, hops: int,
                    limit: int) -> views.GraphView | None:
        if not text(name):
            return None
        return await views.graph(memory, name or "", as_of=when(as_of), known_then=known == "then", hops=hops,
                                 limit=limit)

    @pages.get("/graph", response_class=HTMLResponse, include_in_schema=False)
    async def graph_page(request: Request, memory: Memory, name: str | None = None, as_of: str | None = None,
                         known: Known = "now", hops: Annotated[int, Query(ge=1, le=2)] = 1,
                         limit: Annotated[int, Query(ge=1, le=1_000)] = GRAPH_FACTS) -> Response:
        view = await graph(memory, name, as_of, known, hops, limit)
        return page(request, "graph.html", 404 if view is not None and not view.found else 200, view=view,
                    known=known, as_of_param=as_of or "", name=name or "", hops=hops, limit=limit)

    @pages.get("/graph.json", tags=["pages"])
    async def graph_json(memory: Memory, name: str, as_of: str | None = None, known: Known = "now",
                         hops: Annotated[int, Query(ge=1, le=2)] = 1,
                         limit: Annotated[int, Query(ge=1, le=1_000)] = GRAPH_FACTS) -> views.GraphView:
        """The facts valid at ``as_of`` around an entity, as nodes and edges."""
        view = await graph(memory, name, as_of, known, hops, limit)
        if view is None or not view.found:
            raise NotFoundError(f"no entity named {name!r} in scope {memory.scope!r}")
        return view

    # -- audit, sessions, export ---------------------------------------------------------------------

    async def audit(memory: Memory, entity: str | None, action: str | None, client: str | None,
                    session: str | None, since: str | None, until: str | None, after: str | None) -> views.AuditView:
        return await views.audit(memory, entity=text(entity), after=text(after), size=min(size, AUDIT_PAGE), filters={
            "action": text(action), "client": text(client), "session": text(session), "since": when(since),
            "until": when(until)})

    @pages.get("/audit", response_class=HTMLResponse, include_in_schema=False)
    async def audit_page(request: Request, memory: Memory, entity: str | None = None, action: str | None = None,
                         client: str | None = None, session: str | None = None, since: str | None = None,
                         until: str | None = None, after: str | None = None) -> Response:
        view = await audit(memory, entity, action, client, session, since, until, after)
        return page(request, "audit.html", view=view)

    @pages.get("/audit.json", tags=["pages"])
    async def audit_json(memory: Memory, entity: str | None = None, action: str | None = None,
                         client: str | None = None, session: str | None = None, since: str | None = None,
                         until: str | None = None, after: str | None = None) -> views.AuditView:
        """The audit log, newest first, filtered by action, client, session, entity and time."""
        return await audit(memory, entity, action, client, session, since, until, after)

    @pages.get("/sessions", response_class=HTMLResponse, include_in_schema=False)
    async def sessions_page(request: Request, memory: Memory,
                            page_number: Annotated[int, Query(alias="page", ge=1)] = 1) -> Response:
        return page(request, "sessions.html", view=await views.sessions(memory, Page(page_number, size)))

    @pages.get("/sessions.json", tags=["pages"])
    async def sessions_json(memory: Memory, page_number: Annotated[int, Query(alias="page", ge=1)] = 1
                            ) -> views.SessionsView:
        """The sessions this scope registered, with their expiry and status."""
        return await views.sessions(memory, Page(page_number, size))

    @pages.get("/export", include_in_schema=False)
    async def export_download(memory: Memory) -> Response:
        return export_response(await memory.export(), memory.scope)

    # -- review --------------------------------------------------------------------------------------

    if settings.allow_review:
        @pages.get("/review", response_class=HTMLResponse, include_in_schema=False)
        async def review_page(request: Request, memory: Memory, done: str | None = None,
                              page_number: Annotated[int, Query(alias="page", ge=1)] = 1) -> Response:
            view = await views.review(memory, Page(page_number, size), request.app.state.aggregates)
            return page(request, "review.html", view=view, done=done or "")

        @pages.get("/review.json", tags=["pages"])
        async def review_json(request: Request, memory: Memory,
                              page_number: Annotated[int, Query(alias="page", ge=1)] = 1) -> views.ReviewView:
            """Candidates waiting for review, disputed facts, duplicate-entity proposals and the latest merges."""
            return await views.review(memory, Page(page_number, size), request.app.state.aggregates)

        @pages.post("/review/approve", include_in_schema=False)
        async def approve_form(memory: Memory, fact: Annotated[str, Form()]) -> Response:
            await memory.approve(fact)
            return _see(url("/review", done=f"approved {fact}"))

        @pages.post("/review/reject", include_in_schema=False)
        async def reject_form(memory: Memory, fact: Annotated[str, Form()], reason: Annotated[str, Form()]
                              ) -> Response:
            await memory.reject(fact, reason)
            return _see(url("/review", done=f"rejected {fact}"))

        @pages.post("/review/merge", include_in_schema=False)
        async def merge_form(memory: Memory, canonical: Annotated[str, Form()], other: Annotated[str, Form()]
                             ) -> Response:
            await memory.approve_duplicate(canonical, other)
            return _see(url("/review", done=f"merged {other} into {canonical}"))

        @pages.post("/review/distinct", include_in_schema=False)
        async def distinct_form(memory: Memory, canonical: Annotated[str, Form()], other: Annotated[str, Form()],
                                reason: Annotated[str, Form()]) -> Response:
            await memory.reject_duplicate(canonical, other, reason=reason)
            return _see(url("/review", done=f"kept {other} and {canonical} distinct"))

        @pages.post("/review/unmerge", include_in_schema=False)
        async def unmerge_form(memory: Memory, name: Annotated[str, Form()]) -> Response:
            result = await memory.unmerge(name)
            return _see(url("/review", done=str(result)))

    @pages.post("/feedback", include_in_schema=False)
    async def feedback_form(memory: Memory, fact: Annotated[str, Form()],
                            verdict: Annotated[Literal["helpful", "stale", "wrong"], Form()],
                            back: Annotated[str | None, Form()] = None) -> Response:
        await memory.feedback(fact, verdict)
        return _see(_done(_back(back, "/review" if settings.allow_review else "/"), f"{verdict}: {fact}"))

    # -- erasure -------------------------------------------------------------------------------------

    if settings.allow_erasure:
        @pages.get("/purge", response_class=HTMLResponse, include_in_schema=False)
        async def purge_page(request: Request, memory: Memory, name: str) -> Response:
            view = await views.purge_preview(memory, name)
            return page(request, "purge.html", 404 if view.entity is None else 200, view=view, result=None)

        @pages.get("/purge.json", tags=["pages"])
        async def purge_json(memory: Memory, name: str) -> views.PurgePreview:
            """What purging an entity would remove (the confirmation page names it)."""
            return await views.purge_preview(memory, name)

        @pages.post("/purge", response_class=HTMLResponse, include_in_schema=False)
        async def purge_form(request: Request, memory: Memory, name: Annotated[str, Form()],
                             confirm: Annotated[str, Form()]) -> Response:
            view = await views.purge_preview(memory, name)
            if view.entity is None:
                raise NotFoundError(f"no entity named {name!r} in scope {memory.scope!r}")
            if confirm.strip() != view.entity.name:
                raise InvalidInputError(f"type the entity's name exactly ({view.entity.name!r}) to confirm; "
                                        "nothing was erased")
            result = await memory.purge(view.entity.name)
            return page(request, "purge.html", view=view, result=result)

        @pages.post("/sessions/revoke", include_in_schema=False)
        async def revoke_form(memory: Memory, session: Annotated[str, Form()], confirm: Annotated[str, Form()]
                              ) -> Response:
            if confirm.strip() != session:
                raise InvalidInputError(f"type the session's id exactly ({session!r}) to confirm; nothing was erased")
            await memory.revoke_session(session)
            return _see(url("/sessions", done=f"revoked {session}"))

    # -- signing in ------------------------------------------------------------------------------------

    @pages.get("/login", response_class=HTMLResponse, include_in_schema=False)
    async def login_page(request: Request, next: str | None = None) -> Response:
        return page(request, "login.html", next=_back(next, "/"), failed=False)

    @pages.post("/login", response_class=HTMLResponse, include_in_schema=False)
    async def login(request: Request, token: Annotated[str, Form()], next: Annotated[str | None, Form()] = None
                    ) -> Response:
        import hmac

        if settings.token is None or not hmac.compare_digest(token.strip().encode(), settings.token.encode()):
            return page(request, "login.html", 401, next=_back(next, "/"), failed=True)
        response = _see(_back(next, "/"))
        session = request.app.state.sessions.start()
        response.headers.append("set-cookie", session_cookie(session, request.scope,
                                                             max_age=int(settings.session_hours * 3600)))
        return response

    @pages.post("/logout", include_in_schema=False)
    async def logout(request: Request) -> Response:
        request.app.state.sessions.end(request.state.session)
        response = _see("/login" if settings.token is not None else "/")
        response.headers.append("set-cookie", session_cookie("", request.scope, max_age=0))
        return response

    @pages.get("/api", response_class=HTMLResponse, include_in_schema=False)
    async def api_page(request: Request) -> Response:
        spec = request.app.openapi()
        operations = [(method.upper(), path, op.get("summary", ""), (op.get("description") or "").split("\n")[0])
                      for path, item in spec["paths"].items() for method, op in item.items()]
        return page(request, "api.html", operations=operations)

    return pages
