"""The ``synapse-graph`` command: a thin shell over :class:`synapse_graph.Memory`."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import BaseModel
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from synapse_graph.demo import DEMO_SCOPE, QUESTIONS, STORY
from synapse_graph.errors import SynapseError
from synapse_graph.memory import Memory
from synapse_graph.models import Fact, Triple

app = typer.Typer(
    name="synapse-graph",
    help="A durable, temporal knowledge-graph memory for AI agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()
errors = Console(stderr=True)

Db = Annotated[str | None, typer.Option("--db", envvar="SYNAPSE_DB", show_envvar=True,
                                        help="Database: a file path (embedded FalkorDB) or a redis://, falkordb://, "
                                             "bolt:// or neo4j:// URL. Default: memory.db in the user data directory.")]
Scope = Annotated[str, typer.Option("--scope", envvar="SYNAPSE_SCOPE", show_envvar=True,
                                    help="Scope (tenant/repo/session) to read and write.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON for machines instead of tables.")]
User = Annotated[str | None, typer.Option("--user", envvar="SYNAPSE_NEO4J_USER", help="Neo4j user.")]
Password = Annotated[str | None, typer.Option("--password", envvar="SYNAPSE_NEO4J_PASSWORD",
                                              help="Neo4j password (prefer the environment variable).")]


@contextmanager
def _open(db: str | None, scope: str, user: str | None = None, password: str | None = None,
          **options: Any) -> Iterator[Memory]:
    auth = (user or "neo4j", password) if password is not None else None
    try:
        with Memory(db, scope=scope, client="synapse-graph-cli", auth=auth, **options) as memory:
            yield memory
    except SynapseError as exc:
        errors.print(f"[red]error:[/red] {exc}", markup=True, highlight=False)
        raise typer.Exit(2) from None


def _emit(value: Any, as_json: bool, render: Any = None) -> None:
    if as_json or render is None:
        print(json.dumps(_jsonable(value), ensure_ascii=False))
    else:
        render(value)


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


def _time(value: datetime | None) -> str:
    """Compact UTC time: the date alone at midnight, else down to the second."""
    if value is None:
        return ""
    if (value.hour, value.minute, value.second, value.microsecond) == (0, 0, 0, 0):
        return str(value.date())
    # Tables show seconds; --json carries the full microsecond precision.
    return value.strftime("%Y-%m-%d %H:%M" + (":%S" if value.second or value.microsecond else "")) + "Z"


def _fact_table(facts: Sequence[Fact], title: str | None = None) -> None:
    table = Table(title=title, show_lines=False)
    for column in ("subject", "predicate", "object", "valid_at", "invalid_at", "conf.", "seen"):
        table.add_column(column, overflow="fold")
    for fact in facts:
        table.add_row(fact.subject, fact.predicate, fact.object, _time(fact.valid_at), _time(fact.invalid_at),
                      f"{fact.confidence:.2f}", str(fact.confirmations))
    if not facts:
        console.print(f"{title + ': ' if title else ''}no facts")
        return
    console.print(table)


@app.command()
def add(
    subject: str, predicate: str, object: str,
    valid_at: Annotated[str | None, typer.Option(help="When it became true (ISO-8601; default now).")] = None,
    invalid_at: Annotated[str | None, typer.Option(help="When it stopped being true.")] = None,
    replace: Annotated[bool, typer.Option("--replace", help="Close the subject's other values of this predicate.")]
    = False,
    confidence: Annotated[float | None, typer.Option(help="0..1")] = None,
    source: Annotated[str | None, typer.Option(help="Where the fact comes from.")] = None,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Add one fact: SUBJECT PREDICATE OBJECT."""
    with _open(db, scope, user, password) as memory:
        result = memory.upsert(Triple(subject=subject, predicate=predicate, object=object, valid_at=valid_at,
                                      invalid_at=invalid_at, confidence=confidence), replace=replace, source=source)
        _emit(result, as_json, lambda r: console.print(
            f"created {r.created}, confirmed {r.confirmed}, closed {r.closed}, new entities {r.entities_created}"))


@app.command()
def facts(
    subject: Annotated[str | None, typer.Argument(help="Subject entity (any if omitted).")] = None,
    predicate: Annotated[str | None, typer.Option(help="Only this predicate.")] = None,
    object: Annotated[str | None, typer.Option("--object", help="Only facts pointing at this entity.")] = None,
    as_of: Annotated[str | None, typer.Option(help="Valid at this time (default now).")] = None,
    known_at: Annotated[str | None, typer.Option(help="As the store believed at this time (default now).")] = None,
    history: Annotated[bool, typer.Option("--history", help="Every interval, not only those valid at --as-of.")]
    = False,
    limit: Annotated[int | None, typer.Option(help="At most this many.")] = None,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Facts valid at a point in time."""
    with _open(db, scope, user, password) as memory:
        found = memory.facts(subject, predicate, object, as_of=as_of, known_at=known_at, include_history=history,
                             limit=limit)
        _emit(found, as_json, _fact_table)


@app.command()
def history(
    subject: str,
    predicate: Annotated[str | None, typer.Option(help="Only this predicate.")] = None,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Every interval of a subject's facts, oldest first."""
    with _open(db, scope, user, password) as memory:
        _emit(memory.history(subject, predicate), as_json, _fact_table)


@app.command()
def neighbourhood(
    entity: str,
    hops: Annotated[int, typer.Option(min=1, max=2, help="1 or 2.")] = 1,
    as_of: Annotated[str | None, typer.Option(help="Valid at this time (default now).")] = None,
    limit: Annotated[int, typer.Option(help="At most this many facts.")] = 200,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Facts around an entity, up to 2 hops."""
    with _open(db, scope, user, password) as memory:
        _emit(memory.neighbourhood(entity, hops, as_of=as_of, limit=limit), as_json, _fact_table)


@app.command()
def recall(
    question: str,
    as_of: Annotated[str | None, typer.Option(help="Facts valid at this time (default now).")] = None,
    hops: Annotated[int, typer.Option(min=1, max=2, help="1 or 2.")] = 1,
    limit: Annotated[int, typer.Option(help="At most this many facts.")] = 25,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Facts that answer a question in words, most relevant first."""
    with _open(db, scope, user, password) as memory:
        found = memory.recall(question, as_of=as_of, hops=hops, limit=limit)

        def render(result: Any) -> None:
            if result.skipped:
                console.print(f"nothing recalled: {result.skipped}")
                return
            console.print("entry entities: " + ", ".join(e.name for e in result.entities) or "none", highlight=False)
            _fact_table(result.facts, "recalled facts")
            console.print(f"[dim]{result.notice}[/dim]")

        _emit(found, as_json, render)


@app.command()
def search(
    text: str,
    limit: Annotated[int, typer.Option(help="At most this many entities.")] = 8,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Entities matching the text (fulltext, plus vectors when an embedder is configured)."""
    with _open(db, scope, user, password) as memory:
        found = memory.search_entities(text, limit=limit)

        def render(entities: Any) -> None:
            table = Table()
            for column in ("entity", "fused score", "lexical rank", "BM25"):
                table.add_column(column)
            for e in entities:
                table.add_row(e.name, f"{e.score:.4f}", str(e.lexical_rank or ""),
                              "" if e.lexical_score is None else f"{e.lexical_score:.3f}")
            console.print(table if entities else "no matching entity")

        _emit(found, as_json, render)


@app.command()
def entity(
    name: str,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """An entity with its aliases (aliases resolve to their entity)."""
    with _open(db, scope, user, password) as memory:
        found = memory.entity(name)
        if found is None:
            errors.print(f"no entity named {name!r} in scope {scope!r}", highlight=False)
            raise typer.Exit(1)
        _emit(found, as_json, lambda e: console.print(
            f"{e.name}  (key {e.key!r}; aliases: {', '.join(e.aliases) or 'none'})", highlight=False))


@app.command()
def alias(
    canonical: str, other_name: Annotated[str, typer.Argument(metavar="ALIAS")],
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Record ALIAS as another name of CANONICAL (merging ALIAS's entity into it if it exists)."""
    with _open(db, scope, user, password) as memory:
        merged = memory.alias(canonical, other_name)
        _emit({"merged": merged}, as_json, lambda r: console.print(
            f"{other_name!r} is now an alias of {canonical!r}" + (" (entities merged)" if merged else ""),
            highlight=False))


@app.command()
def retract(
    subject: str, predicate: str, object: Annotated[str | None, typer.Argument()] = None,
    at: Annotated[str | None, typer.Option(help="End validity at this time (default now).")] = None,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """End the validity of matching facts (history keeps them)."""
    with _open(db, scope, user, password) as memory:
        ended = memory.retract(subject, predicate, object, at=at)
        _emit({"ended": ended}, as_json, lambda r: console.print(f"ended {ended} fact(s)"))


@app.command()
def purge(
    entity: Annotated[str | None, typer.Argument(help="Entity to erase with all its facts.")] = None,
    whole_scope: Annotated[bool, typer.Option("--whole-scope", help="Erase everything in --scope.")] = False,
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")] = False,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Hard-delete an entity (or, with --whole-scope, the scope) for good."""
    if (entity is None) == (not whole_scope):
        errors.print("give an ENTITY, or --whole-scope (not both)")
        raise typer.Exit(2)
    target = f"scope {scope!r}" if whole_scope else f"entity {entity!r} in scope {scope!r}"
    if not yes and not typer.confirm(f"Erase {target} for good?"):
        raise typer.Exit(1)
    with _open(db, scope, user, password) as memory:
        result = memory.purge(scope=scope) if whole_scope else memory.purge(entity)
        _emit(result, as_json, lambda r: console.print(
            f"removed {r.entities} entities, {r.facts} fact records, {r.aliases} aliases"))


@app.command("export")
def export_command(
    out: Annotated[Path | None, typer.Option("--out", "-o", help="File to write (default stdout).")] = None,
    db: Db = None, scope: Scope = "default", user: User = None, password: Password = None,
) -> None:
    """Export the scope as JSON Lines (entities, aliases, facts with full history)."""
    with _open(db, scope, user, password) as memory:
        lines = memory.export()
        if out is None:
            for line in lines:
                print(line)
        else:
            with out.open("w", encoding="utf-8") as handle:
                count = sum(1 for line in lines if handle.write(line + "\n"))
            errors.print(f"wrote {count} lines to {out}", highlight=False)


@app.command("import")
def import_command(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="A JSON Lines export.")],
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
    max_facts: Annotated[int, typer.Option(help="Fact quota of the scope.")] = 10_000,
    max_entities: Annotated[int, typer.Option(help="Entity quota of the scope.")] = 5_000,
) -> None:
    """Import a JSON Lines export into --scope (records already there are skipped)."""
    lines = file.read_text(encoding="utf-8").splitlines()
    total = sum(1 for line in lines if '"kind": "fact"' in line or '"kind":"fact"' in line)
    with _open(db, scope, user, password, max_facts=max_facts, max_entities=max_entities) as memory, \
            Progress(console=errors, transient=True, disable=as_json) as progress:
        task = progress.add_task("importing", total=total)
        result = memory.import_(lines, progress=lambda n: progress.advance(task, n))
    _emit(result, as_json, lambda r: console.print(
        f"imported {r.created} fact records and {r.entities_created} entities"))


@app.command()
def stats(
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Counts of entities, aliases and facts in the scope."""
    with _open(db, scope, user, password) as memory:
        _emit(memory.stats(), as_json, lambda s: console.print(
            f"scope {s.scope!r} at {memory.location}: {s.entities} entities, {s.aliases} aliases, {s.facts} facts "
            f"({s.valid_now} valid now), {s.expired_records} superseded records", highlight=False))


@app.command()
def demo(
    db: Db = None, scope: Annotated[str, typer.Option("--scope", help="Scope for the demo (erased first).")]
    = DEMO_SCOPE,
    as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Load a small story of facts that change over time and show what the memory answers."""
    report: dict[str, Any] = {"location": None, "answers": [], "history": [], "neighbourhood": []}
    with _open(db, scope, user, password) as memory:
        report["location"] = memory.location
        memory.purge(scope=scope)
        quiet = Console(quiet=True)
        say = (quiet if as_json else console).print
        say(f"[bold]synapse-graph demo[/bold] — database {memory.location}, scope {scope!r}\n")
        for title, triples in STORY:
            result = memory.upsert(list(triples), source="demo")
            say(f"• learned {title}: {len(triples)} triple(s) → {result.created} new, {result.confirmed} confirmed, "
                f"{result.closed} closed, {result.aliases_merged} merged")
        for when, question in QUESTIONS:
            found = memory.facts("Dana", as_of=when)
            report["answers"].append({"as_of": when, "question": question, "facts": found})
            if not as_json:
                console.print()
                _fact_table(found, f"{question}  (as of {when})")
        now = memory.facts("Dana")
        report["answers"].append({"as_of": "now", "question": "What holds now?", "facts": now})
        report["history"] = memory.history("Dana", "LIVES_IN")
        report["neighbourhood"] = memory.neighbourhood("Dana Reyes", hops=2)
        report["entity"] = memory.entity("Dana")
        if not as_json:
            console.print()
            _fact_table(now, "What holds now?")
            console.print()
            _fact_table(report["history"], "History of where Dana lived (oldest first)")
            console.print()
            _fact_table(report["neighbourhood"], "2-hop neighbourhood of Dana now")
            entity_found = report["entity"]
            console.print(f"\n'Dana' resolves to {entity_found.name!r}, aliases {entity_found.aliases}",
                          highlight=False)
    if as_json:
        _emit(report, True)


@app.command()
def browse(
    db: Annotated[str | None, typer.Option(
        "--db", help="A bolt:// or neo4j:// URL. Default: $SYNAPSE_DB if it is a Neo4j URL, else $SYNAPSE_NEO4J_URL.")]
    = None,
    scope: Scope = "default",
    name: Annotated[str | None, typer.Option("--name", help="Entity (name or alias) for the saved queries.")] = None,
    as_json: AsJson = False, user: User = None,
) -> None:
    """How to explore a Neo4j memory in Neo4j Browser: URL, style sheet, parameters, saved queries."""
    from synapse_graph.browse import instructions
    from synapse_graph.errors import NotNeo4jError

    try:
        info = instructions(db, scope=scope, name=name, user=user)
    except NotNeo4jError as exc:
        errors.print(f"[red]error:[/red] {exc}", markup=True, highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    if as_json:
        _emit(info.as_json(), True)
    else:
        print(info.render(), end="")


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``synapse-graph`` command."""
    app(args=list(argv) if argv is not None else sys.argv[1:], prog_name="synapse-graph")




# -- offload, Claude Code hooks, AGENTS.md -------------------------------------------------------

hooks_app = typer.Typer(help="Install or remove the Claude Code hooks of a project.", no_args_is_help=True)
hook_app = typer.Typer(help="The hook commands Claude Code runs (JSON on stdin; they always exit 0).",
                       no_args_is_help=True)
app.add_typer(hooks_app, name="hooks")
app.add_typer(hook_app, name="hook")

Shared = Annotated[bool, typer.Option("--shared", help="Use .claude/settings.json (committed, shared with the team) "
                                                       "instead of .claude/settings.local.json.")]
Project = Annotated[Path, typer.Argument(help="The project's root folder.", file_okay=False)]


@hooks_app.command("install")
def hooks_install(path: Project, shared: Shared = False, as_json: AsJson = False) -> None:
    """Add the synapse-graph hooks (SessionStart recall, PreCompact/Stop offload), keeping every other hook."""
    from synapse_graph.hooks.settings import install

    try:
        target, changed = install(path, shared=shared)
    except SynapseError as exc:
        errors.print(f"[red]error:[/red] {exc}", markup=True, highlight=False)
        raise typer.Exit(2) from None
    _emit({"settings": str(target), "changed": changed}, as_json, lambda r: console.print(
        f"{'installed the synapse-graph hooks in' if changed else 'already installed in'} {target}", highlight=False))


@hooks_app.command("uninstall")
def hooks_uninstall(path: Project, shared: Shared = False, as_json: AsJson = False) -> None:
    """Remove the synapse-graph hooks, and only them."""
    from synapse_graph.hooks.settings import uninstall

    try:
        target, changed = uninstall(path, shared=shared)
    except SynapseError as exc:
        errors.print(f"[red]error:[/red] {exc}", markup=True, highlight=False)
        raise typer.Exit(2) from None
    _emit({"settings": str(target), "changed": changed}, as_json, lambda r: console.print(
        f"{'removed the synapse-graph hooks from' if changed else 'no synapse-graph hooks in'} {target}",
        highlight=False))


def _hook(command: str) -> None:
    from synapse_graph.hooks.commands import run

    raise typer.Exit(run(command, sys.stdin, sys.stdout, sys.stderr))


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


@app.command("agents-md")
def agents_md(path: Project, as_json: AsJson = False) -> None:
    """Write (or update in place) the synapse-graph block of AGENTS.md, and of CLAUDE.md where present."""
    from synapse_graph.agents_md import write_agents_md

    try:
        written = write_agents_md(path)
    except SynapseError as exc:
        errors.print(f"[red]error:[/red] {exc}", markup=True, highlight=False)
        raise typer.Exit(2) from None
    def render(rows: list[dict[str, str]]) -> None:
        for row in rows:
            console.print(f"{row['action']} {row['path']}", highlight=False)

    _emit([{"path": str(w.path), "action": w.action} for w in written], as_json, render)


@app.command()
def jobs(
    limit: Annotated[int, typer.Option(min=1, max=200, help="At most this many, newest first.")] = 20,
    scope: Annotated[str | None, typer.Option("--scope", help="Only jobs of this scope.")] = None,
    as_json: AsJson = False,
) -> None:
    """The last offload jobs and their outcome (from any process: $SYNAPSE_OFFLOAD_JOBS or the user data dir)."""
    from synapse_graph.offload.jobs import KEEP_JOBS, FileJobLog

    log = FileJobLog()
    found = [j for j in log.recent(KEEP_JOBS) if scope is None or j.scope == scope][:limit]

    def render(rows: Any) -> None:
        if not rows:
            console.print(f"no offload jobs in {log.path}", highlight=False)
            return
        table = Table()
        for column in ("submitted", "scope", "session", "status", "turns", "model", "created", "candidates",
                       "dropped", "error"):
            table.add_column(column, overflow="fold")
        for j in rows:
            table.add_row(_time(j.submitted_at), j.scope, j.session or "", j.status, str(j.turns), j.model or "",
                          str(j.created), str(j.candidates), str(j.dropped), j.error or "")
        console.print(table)

    _emit(found, as_json, render)


@app.command()
def offload(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False,
                                         help="Turns: a JSON list of {role, text, at?}, or a Claude Code "
                                              "transcript (.jsonl).")],
    session: Annotated[str | None, typer.Option(help="Session id recorded on the stored facts.")] = None,
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

    try:
        config = load_config()
        config = replace(config, model_url=model_url or config.model_url, model=model or config.model,
                         allow_remote=allow_remote or config.allow_remote)
        client = model_client(config)
        if file.suffix == ".jsonl":
            turns: list[Any] = [t.turn for t in read_transcript(file)]
        else:
            turns = json.loads(file.read_text(encoding="utf-8"))
    except (SynapseError, ValueError) as exc:
        errors.print(f"[red]error:[/red] {exc}", markup=True, highlight=False)
        raise typer.Exit(2) from None
    with _open(db, scope, user, password) as memory:
        try:
            offloader = Offloader(memory, client, low_confidence=low_confidence)  # type: ignore[arg-type]
            with offloader:
                job = offloader.wait(offloader.submit(turns, session=session))
        except SynapseError as exc:
            errors.print(f"[red]error:[/red] {exc}", markup=True, highlight=False)
            raise typer.Exit(2) from None
        stored = [f for f in memory.facts(include_history=True, include_candidates=True)
                  if f.model == client.model and f.source == "extracted" and f.recorded_at >= job.submitted_at]
        if as_json:
            _emit({"job": job, "stored": stored}, True)
            return
        console.print(f"job {job.id}: {job.status}; {job.turns} turns, {job.extracted} triples extracted, "
                      f"{job.created} created, {job.confirmed} confirmed, {job.candidates} candidates, "
                      f"{job.dropped} dropped" + (f"; error: {job.error}" if job.error else ""), highlight=False)
        for problem in job.problems:
            console.print(f"  [dim]{problem}[/dim]", highlight=False)
        _fact_table(stored, f"stored by {client.model}")
    if job.status != "done":
        raise typer.Exit(1)
