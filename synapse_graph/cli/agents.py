"""Commands for agents: the MCP server, Claude Code hooks, offload jobs, AGENTS.md, sessions."""


from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from synapse_graph import render
from synapse_graph.cli.embeddings import AllowRemote, EmbedderModel, EmbedderSpec, chosen_embedder
from synapse_graph.cli.shell import (
    AsJson,
    Db,
    MaxEntities,
    MaxFacts,
    Password,
    Scope,
    User,
    _auth,
    _console,
    _emit,
    _fact_table,
    _open,
    _table,
    app,
    command,
    fail,
    say,
)
from synapse_graph.cli.usage import PlainGroup
from synapse_graph.models import MemoryScope


@command("mcp")
def mcp_command(
    db: Db = None, scope: Scope = "default", user: User = None, password: Password = None,
    http: Annotated[str | None, typer.Option(
        "--http", metavar="HOST:PORT", help="Serve streamable HTTP here (e.g. 127.0.0.1:8765) instead of stdio.")]
    = None,
    allowed_host: Annotated[list[str] | None, typer.Option(
        "--allowed-host", help="Another name clients reach the HTTP server by (DNS-rebinding check); repeatable.")]
    = None,
    token_file: Annotated[Path | None, typer.Option(
        "--token-file", dir_okay=False,
        help="File (mode 0600) holding the HTTP bearer token; else $SYNAPSE_MCP_TOKEN. Required off loopback.")]
    = None,
    allow_erasure: Annotated[bool, typer.Option(
        "--allow-erasure", help="Offer purge_entity to the agent (erasure is otherwise a human's CLI command).")]
    = False,
    allow_review: Annotated[bool, typer.Option(
        "--allow-review", help="Offer pending_facts, approve_fact and reject_fact to the agent.")] = False,
    max_result_tokens: Annotated[int, typer.Option(
        min=500, max=25_000, help="Size limit of one tool result (approx. tokens); longer lists continue by cursor.")]
    = 8_000,
    stale_after: Annotated[int, typer.Option(
        "--stale-after", min=1, metavar="DAYS",
        help="A fact neither stored nor confirmed for this many days is shown as possibly outdated.")] = 180,
    profile: Annotated[str, typer.Option(
        "--profile", help="native (synapse-graph's tools) or reference-memory (the nine tools of the reference MCP "
                          "memory server, same names and input schemas, on this store).")] = "native",
    session: Annotated[str | None, typer.Option(
        "--session", metavar="SESSION",
        help="Bind the server to this agent session (registered if new; its expiry never moves): recall_context "
             "reads the session's private memory unless asked for memory_scope='durable', and tools write to it "
             "when asked for memory_scope='session'.")] = None,
    max_facts: MaxFacts = None, max_entities: MaxEntities = None,
    embedder: EmbedderSpec = None, embedder_model: EmbedderModel = None, allow_remote: AllowRemote = False,
) -> None:
    """Serve the memory to agents over MCP (stdio; --http for streamable HTTP)."""
    from datetime import timedelta

    from synapse_graph.aio import AsyncMemory
    from synapse_graph.mcp import PROFILES, HttpSettings, ServerOptions, serve

    if profile not in PROFILES:
        fail("UsageError", f"--profile must be one of {', '.join(PROFILES)}, not {profile!r}", False)
    settings = None if http is None else HttpSettings.resolve(http, token_file=token_file,
                                                               allowed_hosts=allowed_host or ())
    options = ServerOptions(allow_erasure=allow_erasure, allow_review=allow_review,
                            max_result_tokens=max_result_tokens, stale_after=timedelta(days=stale_after),
                            profile=profile)
    # Quotas go to the memory only when given: the scope's stored rules apply otherwise.
    memory = AsyncMemory(db, scope=scope, client="synapse-graph-mcp", auth=_auth(user, password),
                         max_facts=max_facts, max_entities=max_entities, session=session,
                         embedder=chosen_embedder(embedder, embedder_model, allow_remote))

    def ready(opened: AsyncMemory) -> None:
        if settings is not None:
            bound = "" if session is None else f", session {session!r}"
            _console(sys.stderr).print(f"synapse-graph MCP server at {settings.bind.url} (scope {scope!r}{bound})",
                                       highlight=False, soft_wrap=True)

    serve(memory, options, settings, ready=ready)

hooks_app = typer.Typer(help="Install or remove the Claude Code hooks of a project.", no_args_is_help=True,
                        cls=PlainGroup)

hook_app = typer.Typer(help="The hook commands Claude Code runs (JSON on stdin; they always exit 0).",
                       no_args_is_help=True, cls=PlainGroup)
app.add_typer(hooks_app, name="hooks")
app.add_typer(hook_app, name="hook")

session_app = typer.Typer(help="Sessions: private scopes of agent sessions beside the durable scope.",
                          no_args_is_help=True, cls=PlainGroup)
app.add_typer(session_app, name="session")

Shared = Annotated[bool, typer.Option("--shared", help="Use .claude/settings.json (committed, shared with the team) "
                                                       "instead of .claude/settings.local.json.")]

Project = Annotated[Path, typer.Argument(help="The project's root folder.", file_okay=False)]

SessionId = Annotated[str, typer.Argument(metavar="SESSION", help="The session's id (e.g. Claude Code's session_id).")]

@command(app=hooks_app, name="install")
def hooks_install(path: Project, shared: Shared = False, as_json: AsJson = False) -> None:
    """Add the synapse-graph hooks (SessionStart recall, PreCompact/Stop offload), keeping every other hook."""
    from synapse_graph.hooks.settings import install

    target, changed = install(path, shared=shared)
    _emit({"settings": str(target), "changed": changed}, as_json, lambda r: say(
        f"{'installed the synapse-graph hooks in' if changed else 'already installed in'} {target}"))

@command(app=hooks_app, name="uninstall")
def hooks_uninstall(path: Project, shared: Shared = False, as_json: AsJson = False) -> None:
    """Remove the synapse-graph hooks, and only them."""
    from synapse_graph.hooks.settings import uninstall

    target, changed = uninstall(path, shared=shared)
    _emit({"settings": str(target), "changed": changed}, as_json, lambda r: say(
        f"{'removed the synapse-graph hooks from' if changed else 'no synapse-graph hooks in'} {target}"))

def _hook(command_name: str) -> None:
    from synapse_graph.hooks.commands import run

    raise typer.Exit(run(command_name, sys.stdin, sys.stdout, sys.stderr))

@hook_app.command("session-start")
def hook_session_start() -> None:
    """SessionStart: print the recalled memory as additional context."""
    _hook("session-start")

@hook_app.command("pre-compact")
def hook_pre_compact() -> None:
    """PreCompact: offload the turns older than the last exchanges, and wait for it."""
    _hook("pre-compact")

@hook_app.command("stop")
def hook_stop() -> None:
    """Stop: the same offload, in a detached background process."""
    _hook("stop")

@command("agents-md")
def agents_md(path: Project, as_json: AsJson = False) -> None:
    """Write (or update in place) the synapse-graph block of AGENTS.md, and of CLAUDE.md where present."""
    from synapse_graph.cli.agents_md import write_agents_md

    written = write_agents_md(path)
    def show(rows: list[dict[str, str]]) -> None:
        for row in rows:
            say(f"{row['action']} {row['path']}")

    _emit([{"path": str(w.path), "action": w.action} for w in written], as_json, show)

@command()
def jobs(
    limit: Annotated[int, typer.Option(min=1, max=200, help="At most this many, newest first.")] = 20,
    scope: Annotated[str | None, typer.Option("--scope", help="Only jobs of this scope.")] = None,
    as_json: AsJson = False,
) -> None:
    """The last offload jobs and their outcome (from any process: $SYNAPSE_OFFLOAD_JOBS or the user data dir)."""
    from synapse_graph.offload.jobs import KEEP_JOBS, FileJobLog

    log = FileJobLog()
    found = [j for j in log.recent(KEEP_JOBS) if scope is None or j.scope == scope][:limit]

    def show(rows: Any) -> None:
        if not rows:
            say(f"no offload jobs in {log.path}")
            return
        _table(["submitted", "scope", "session", "status", "turns", "model", "created", "candidates", "dropped",
                "error"], [(render.time_text(j.submitted_at), j.scope, j.session or "", j.status, str(j.turns),
                            j.model or "", str(j.created), str(j.candidates), str(j.dropped), j.error or "")
                           for j in rows])

    _emit(found, as_json, show)

@command()
def offload(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False,
                                         help="Turns: a JSON list of {role, text, at?}, or a Claude Code "
                                              "transcript (.jsonl).")],
    session: Annotated[str | None, typer.Option(help="The session the turns belong to: they become its memory "
                                                     "(registered if new).")] = None,
    model_url: Annotated[str | None, typer.Option(
        "--model-url", help="OpenAI-compatible endpoint (loopback unless allowed). Default: $SYNAPSE_OFFLOAD_URL.")]
    = None,
    model: Annotated[str | None, typer.Option(help="Model name. Default: $SYNAPSE_OFFLOAD_MODEL.")] = None,
    allow_remote: Annotated[bool, typer.Option(
        "--allow-remote", help="Allow an endpoint that is not on this machine (conversations carry secrets).")]
    = False,
    low_confidence: Annotated[str, typer.Option(help="Triples below the trust threshold: candidate or drop.")]
    = "candidate",
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Extract facts from conversation turns with a local model and store them (waits for the job)."""
    from dataclasses import replace

    from synapse_graph.hooks.commands import model_client
    from synapse_graph.hooks.config import load_config
    from synapse_graph.hooks.transcript import read_transcript
    from synapse_graph.offload.offloader import Offloader

    config = load_config()
    config = replace(config, model_url=model_url or config.model_url, model=model or config.model,
                     allow_remote=allow_remote or config.allow_remote)
    client = model_client(config)
    turns: list[Any] = ([t.turn for t in read_transcript(file).turns] if file.suffix == ".jsonl"
                        else json.loads(file.read_text(encoding="utf-8")))
    with _open(db, scope, user, password, session=session) as memory:
        if session is not None:
            memory.register_session()
        with Offloader(memory, client, low_confidence=low_confidence) as offloader:  # type: ignore[arg-type]
            job = offloader.wait(offloader.submit(turns, session=session))
        where: MemoryScope = "session" if session is not None else "durable"
        stored = [f for f in memory.facts(include_history=True, include_candidates=True, memory_scope=where)
                  if f.model == client.model and f.source == "extracted" and f.recorded_at >= job.submitted_at]
        if as_json:
            _emit({"job": job, "stored": stored}, True)
        else:
            say(f"job {job.id}: {job.status}; {job.turns} turns, {job.extracted} triples extracted, "
                f"{job.created} created, {job.confirmed} confirmed, {job.candidates} candidates, "
                f"{job.dropped} dropped" + (f"; error: {job.error}" if job.error else ""))
            for problem in job.problems:
                say(f"  {problem}")
            _fact_table(stored, f"stored by {client.model}")
    if job.status != "done":
        raise typer.Exit(1)

@command(app=session_app, name="register")
def session_register(
    session_id: SessionId,
    days: Annotated[float, typer.Option(help="It takes writes for this many days (default 7).")] = 7.0,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Register a session of this scope (registering it again changes nothing: its expiry never moves)."""
    from synapse_graph.engine.sessions import ttl_of_days

    ttl = ttl_of_days(days)  # checked before the store is opened
    with _open(db, scope, user, password) as memory:
        _emit(memory.register_session(session_id, ttl=ttl), as_json, lambda s: say(str(s)))

@command(app=session_app, name="list")
def session_list(
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """The sessions this scope registered, with their state."""
    with _open(db, scope, user, password, create=False) as memory:
        found = memory.sessions()

        def show(_: Any) -> None:
            for session in found:
                say(str(session))
            if not found:
                say("no session registered")

        _emit([{**s.model_dump(mode="json"), "status": s.status()} for s in found], as_json, show)

@command(app=session_app, name="revoke")
def session_revoke(
    session_id: SessionId,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Block further writes to a session and erase its memory."""
    with _open(db, scope, user, password, create=False) as memory:
        _emit(memory.revoke_session(session_id), as_json, lambda r: say(f"revoked {session_id}; {r}"))

@command(app=session_app, name="promote")
def session_promote(
    session_id: SessionId,
    fact_ids: Annotated[list[str], typer.Argument(metavar="FACT_ID...", help="Ids of the session's facts to keep.")],
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Copy selected facts of a session into the durable scope (each records the session it came from)."""
    with _open(db, scope, user, password, create=False) as memory:
        _emit(memory.promote(fact_ids, session=session_id), as_json, lambda r: say(str(r)))
