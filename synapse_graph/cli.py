"""The ``synapse-graph`` command: a thin shell over :class:`synapse_graph.Memory`.

Output is plain text for people (tables that do not wrap when piped) or JSON with
``--json``. Every error the command expects (bad input, a missing file, a database
that refuses) exits with code 2 and one message, as JSON on stderr under ``--json``.
Names and values are printed as text, never interpreted as markup.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import re
import sys
import typing
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, NoReturn, TextIO

import typer
from pydantic import BaseModel
from rich.console import Console
from rich.table import Table
from rich.text import Text

from synapse_graph import render
from synapse_graph.demo import DEMO_SCOPE, QUESTIONS, STORY
from synapse_graph.errors import SynapseError
from synapse_graph.memory import Memory
from synapse_graph.models import AuditEntry, Digest, Fact, Triple

app = typer.Typer(
    name="synapse-graph",
    help="A durable, temporal knowledge-graph memory for AI agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

Db = Annotated[str | None, typer.Option("--db", envvar="SYNAPSE_DB", show_envvar=True,
                                        help="Database: a file path (embedded FalkorDB) or a redis://, falkordb://, "
                                             "bolt:// or neo4j:// URL. Default: memory.db in the user data directory.")]
Scope = Annotated[str, typer.Option("--scope", envvar="SYNAPSE_SCOPE", show_envvar=True,
                                    help="Scope (tenant/repo/session) to read and write.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON for machines instead of tables (errors too, "
                                                     "on stderr).")]
User = Annotated[str | None, typer.Option("--user", envvar="SYNAPSE_NEO4J_USER", help="Neo4j user.")]
Password = Annotated[str | None, typer.Option("--password", envvar="SYNAPSE_NEO4J_PASSWORD",
                                              help="Neo4j password (prefer the environment variable).")]
MaxFacts = Annotated[int | None, typer.Option("--max-facts", help="Fact quota of the scope (stored with it; "
                                                                 "default: the stored one, else 10000).")]
MaxEntities = Annotated[int | None, typer.Option("--max-entities", help="Entity quota of the scope (stored with it; "
                                                                       "default: the stored one, else 5000).")]

USAGE_EXIT = 2
"""Exit code of every error the command expects: bad input, a missing file, a refusing database."""
NOT_FOUND_EXIT = 1
"""Exit code of a lookup that found nothing (``entity``) or a question answered no (``purge``)."""


# -- output ------------------------------------------------------------------------------------------


def _console(stream: TextIO) -> Console:
    """A console that prints text as text (no markup, no highlighting) and, when piped, never wraps."""
    piped = not stream.isatty() and not os.environ.get("COLUMNS")
    return Console(file=stream, markup=False, highlight=False, emoji=False, width=1_000_000 if piped else None)


def say(*parts: str | Text) -> None:
    """Print a line for people on stdout."""
    _console(sys.stdout).print(*parts, soft_wrap=True)


def _emit(value: Any, as_json: bool, show: Callable[[Any], None] | None = None) -> None:
    if as_json or show is None:
        print(json.dumps(_jsonable(value), ensure_ascii=False))
    else:
        show(value)


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


def _table(columns: Sequence[str], rows: Sequence[Sequence[str]], title: str | None = None) -> None:
    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))  # Text: a name like "[/x]" is shown, not parsed
    _console(sys.stdout).print(table)


def _fact_table(facts: Sequence[Fact], title: str | None = None) -> None:
    if not facts:
        say(f"{title}: no facts" if title else "no facts")
        return
    _table(render.FACT_COLUMNS, [render.fact_cells(fact) for fact in facts], title)


# -- errors ------------------------------------------------------------------------------------------


def fail(kind: str, message: str, as_json: bool, code: int = USAGE_EXIT) -> NoReturn:
    """Print one error (``error: ...``, or ``{"error": kind, "message": ...}`` under --json) and exit."""
    if as_json:
        print(json.dumps({"error": kind, "message": message}, ensure_ascii=False), file=sys.stderr)
    else:
        _console(sys.stderr).print(Text("error: ", style="red"), Text(message), sep="", soft_wrap=True)
    raise typer.Exit(code)


def _option_names(func: Callable[..., Any]) -> dict[str, str]:
    """``max_entities`` -> ``--max-entities`` for the command's options whose names have an underscore."""
    names: dict[str, str] = {}
    hints = typing.get_type_hints(func, include_extras=True)
    for name in inspect.signature(func).parameters:
        if "_" not in name:
            continue
        for extra in getattr(hints.get(name), "__metadata__", ()):
            if isinstance(extra, typer.models.OptionInfo):
                decls = (extra.default, *(extra.param_decls or ()))
                declared = [d for d in decls if isinstance(d, str) and d.startswith("--")]
                names[name] = declared[0] if declared else "--" + name.replace("_", "-")
    return names


def _cli_words(message: str, options: dict[str, str]) -> str:
    """A library message in the command's words: its option names instead of the API's argument names."""
    for name, flag in options.items():
        message = re.sub(rf"(?<![\w-]){re.escape(name)}\b", flag, message)
    return message


def _file_problem(exc: OSError) -> str:
    where = exc.filename if exc.filename is not None else "the file"
    if isinstance(exc, FileNotFoundError) and exc.filename is not None:
        folder = Path(str(exc.filename)).parent
        if not folder.is_dir():
            return f"cannot open {where}: the folder {folder} does not exist (create it, or choose another path)"
    return f"cannot use {where}: {exc.strerror or exc}"


def command(name: str | None = None) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register a command whose expected errors become one message and exit code 2 (JSON under --json)."""

    def register(func: Callable[..., None]) -> Callable[..., None]:
        @functools.wraps(func)
        def run(*args: Any, **kwargs: Any) -> None:
            as_json = bool(kwargs.get("as_json"))
            try:
                func(*args, **kwargs)
            except SynapseError as exc:
                fail(type(exc).__name__, _cli_words(str(exc), _option_names(func)), as_json)
            except UnicodeDecodeError as exc:
                fail("FileError", f"the file is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset "
                                  f"{exc.start}); give a JSON Lines export written by 'synapse-graph export'",
                     as_json)
            except OSError as exc:
                fail("FileError", _file_problem(exc), as_json)

        app.command(name)(run)
        return run

    return register


def _auth(user: str | None, password: str | None) -> tuple[str, str] | None:
    return (user or "neo4j", password) if password is not None else None


@contextmanager
def _open(db: str | None, scope: str, user: str | None = None, password: str | None = None, *,
          client: str = "synapse-graph-cli", **options: Any) -> Iterator[Memory]:
    with Memory(db, scope=scope, client=client, auth=_auth(user, password), **options) as memory:
        yield memory


@command()
def add(
    subject: str, predicate: str, object: str,
    valid_at: Annotated[str | None, typer.Option(help="When it became true (ISO-8601; default now).")] = None,
    invalid_at: Annotated[str | None, typer.Option(help="When it stopped being true.")] = None,
    replace: Annotated[bool, typer.Option("--replace", help="Close the subject's other values of this predicate.")]
    = False,
    confidence: Annotated[float | None, typer.Option(help="0..1")] = None,
    source: Annotated[str | None, typer.Option(help="Where the fact comes from.")] = None,
    model: Annotated[str | None, typer.Option(
        help="The model that extracted the fact; below confidence 0.6 it waits for review (see 'pending').")] = None,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
    max_facts: MaxFacts = None, max_entities: MaxEntities = None,
) -> None:
    """Add one fact: SUBJECT PREDICATE OBJECT."""
    with _open(db, scope, user, password, max_facts=max_facts, max_entities=max_entities) as memory:
        result = memory.upsert(Triple(subject=subject, predicate=predicate, object=object, valid_at=valid_at,
                                      invalid_at=invalid_at, confidence=confidence), replace=replace, source=source,
                               model=model)
        _emit(result, as_json, lambda r: say(str(r)))


@command()
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
    with _open(db, scope, user, password, create=False) as memory:
        found = memory.facts(subject, predicate, object, as_of=as_of, known_at=known_at, include_history=history,
                             limit=limit)
        _emit(found, as_json, _fact_table)


@command()
def history(
    subject: str,
    predicate: Annotated[str | None, typer.Option(help="Only this predicate.")] = None,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Every interval of a subject's facts, oldest first."""
    with _open(db, scope, user, password, create=False) as memory:
        _emit(memory.history(subject, predicate), as_json, _fact_table)


@command()
def neighbourhood(
    entity: str,
    hops: Annotated[int, typer.Option(min=1, max=2, help="1 or 2.")] = 1,
    as_of: Annotated[str | None, typer.Option(help="Valid at this time (default now).")] = None,
    limit: Annotated[int, typer.Option(help="At most this many facts.")] = 200,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Facts around an entity, up to 2 hops."""
    with _open(db, scope, user, password, create=False) as memory:
        _emit(memory.neighbourhood(entity, hops, as_of=as_of, limit=limit), as_json, _fact_table)


@command()
def recall(
    question: str,
    as_of: Annotated[str | None, typer.Option(help="Facts valid at this time (default now).")] = None,
    hops: Annotated[int, typer.Option(min=1, max=2, help="1 or 2.")] = 1,
    limit: Annotated[int, typer.Option(help="At most this many facts.")] = 25,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Facts that answer a question in words, most relevant first."""
    with _open(db, scope, user, password, create=False) as memory:
        found = memory.recall(question, as_of=as_of, hops=hops, limit=limit)

        def show(result: Any) -> None:
            if result.skipped:
                say(f"nothing recalled: {result.skipped}")
                return
            say("entry entities: " + (", ".join(e.name for e in result.entities) or "none"))
            rows = [(*render.fact_cells(f), str(f.hop), f.entry, f"{f.relevance:.2f}") for f in result.facts]
            if rows:
                _table([*render.FACT_COLUMNS, "hop", "via", "relevance"], rows, "recalled facts")
            else:
                say("recalled facts: none")
            say(Text(result.notice, style="dim"))

        _emit(found, as_json, show)


@command()
def digest(
    limit: Annotated[int, typer.Option(min=1, help="At most this many facts.")] = 20,
    as_of: Annotated[str | None, typer.Option(help="Facts valid at this time (default now).")] = None,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """What an agent should just know at session start: pinned facts, then the user's, then the scope's most
    connected entities' (believed facts only, the most confirmed and recent first)."""
    with _open(db, scope, user, password, create=False) as memory:
        found = memory.digest(limit=limit, as_of=as_of)

        def show(result: Digest) -> None:
            say(f"digest of scope {result.scope!r} as of {render.time_text(result.as_of)}")
            if not result.facts:
                say("nothing to tell: no believed fact holds then")
            for title, facts_shown in (("pinned", result.pinned), ("about the user", result.about_user),
                                       (f"about {', '.join(result.entities)}", result.about_entities)):
                if facts_shown:
                    _fact_table(facts_shown, title)
            say(Text(result.notice, style="dim"))

        _emit(found, as_json, show)


@command()
def search(
    text: str,
    limit: Annotated[int, typer.Option(help="At most this many entities.")] = 8,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Entities matching the text (fulltext, plus vectors when an embedder is configured)."""
    with _open(db, scope, user, password, create=False) as memory:
        found = memory.search_entities(text, limit=limit)

        def show(entities: Any) -> None:
            if not entities:
                say("no matching entity")
                return
            _table(["entity", "fused score", "lexical rank", "BM25"], [
                (e.name, f"{e.score:.4f}", str(e.lexical_rank or ""),
                 "" if e.lexical_score is None else f"{e.lexical_score:.3f}") for e in entities])

        _emit(found, as_json, show)


@command()
def entity(
    name: str,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """An entity with its aliases (aliases resolve to their entity)."""
    with _open(db, scope, user, password, create=False) as memory:
        found = memory.entity(name)
        if found is None:
            fail("NotFoundError", f"no entity named {name!r} in scope {scope!r}", as_json, NOT_FOUND_EXIT)
        _emit(found, as_json, lambda e: say(f"{e}  key {e.key!r}"))


@command()
def alias(
    canonical: str, other_name: Annotated[str, typer.Argument(metavar="ALIAS")],
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Record ALIAS as another name of CANONICAL (merging ALIAS's entity into it if it exists)."""
    with _open(db, scope, user, password) as memory:
        target, named = memory.entity(canonical), memory.entity(other_name)
        if _same_name(canonical, other_name) or (target is not None and named is not None
                                                 and target.key == named.key):
            shown = target.name if target is not None else canonical
            _emit({"merged": False, "changed": False}, as_json, lambda r: say(
                f"nothing changed: {other_name!r} already names {shown!r}"))
            return
        merged = memory.alias(canonical, other_name)
        _emit({"merged": merged, "changed": True}, as_json, lambda r: say(
            f"{other_name!r} is now an alias of {canonical!r}" + (" (entities merged)" if merged else "")))


def _same_name(first: str, second: str) -> bool:
    """Do two names have one identity key (the library's rule: NFC, whitespace collapsed, case-folded)?"""
    from synapse_graph.browse import entity_key

    return entity_key(first) == entity_key(second)


@command()
def retract(
    subject: str, predicate: str, object: Annotated[str | None, typer.Argument()] = None,
    at: Annotated[str | None, typer.Option(help="End validity at this time (default now).")] = None,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """End the validity of matching facts (history keeps them)."""
    with _open(db, scope, user, password) as memory:
        ended = memory.retract(subject, predicate, object, at=at)
        _emit({"ended": ended}, as_json, lambda r: say(f"ended {render.plural(ended, 'fact')}"))


@command()
def purge(
    entity: Annotated[str | None, typer.Argument(help="Entity to erase with all its facts.")] = None,
    whole_scope: Annotated[bool, typer.Option("--whole-scope", help="Erase everything in --scope.")] = False,
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")] = False,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Hard-delete an entity (or, with --whole-scope, the scope) for good."""
    if (entity is None) == (not whole_scope):
        fail("UsageError", "give an ENTITY, or --whole-scope (not both)", as_json)
    target = f"scope {scope!r}" if whole_scope else f"entity {entity!r} in scope {scope!r}"
    if not yes:
        # Asked on stderr, so stdout stays JSON under --json; no answer (end of input) is no.
        print(f"Erase {target} for good? [y/N]: ", end="", file=sys.stderr, flush=True)
        answer = sys.stdin.readline()
        if not answer.endswith("\n"):
            print(file=sys.stderr)  # end the question's line
        if answer.strip().lower() not in ("y", "yes"):
            fail("NotConfirmed", f"nothing was erased; give --yes to erase {target} without a question", as_json,
                 NOT_FOUND_EXIT)
    with _open(db, scope, user, password) as memory:
        result = memory.purge(scope=scope) if whole_scope else memory.purge(entity)
        _emit(result, as_json, lambda r: say(str(r)))


@command("export")
def export_command(
    out: Annotated[Path | None, typer.Option("--out", "-o", help="File to write (default stdout).")] = None,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Export the scope as JSON Lines (entities, aliases, facts with full history)."""
    if out is None:
        with _open(db, scope, user, password, create=False) as memory:
            for line in memory.export():
                print(line)
        return
    with out.open("w", encoding="utf-8") as handle, _open(db, scope, user, password) as memory:  # the file first
        count = sum(1 for line in memory.export() if handle.write(line + "\n"))
    _emit({"out": str(out), "lines": count}, as_json, lambda r: _console(sys.stderr).print(
        f"wrote {render.plural(count, 'line')} to {out}", soft_wrap=True))


@command("import")
def import_command(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="A JSON Lines export.")],
    file_format: Annotated[str, typer.Option(
        "--format", help="synapse-graph (an export of this library) or reference-memory (the memory.jsonl of the "
                         "reference MCP memory server).")] = "synapse-graph",
    redact_secrets: Annotated[bool, typer.Option(
        "--redact-secrets", help="reference-memory: store secrets found in the file redacted, instead of refusing "
                                 "the file (nothing is changed silently otherwise).")] = False,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
    max_facts: MaxFacts = None, max_entities: MaxEntities = None,
) -> None:
    """Import a JSON Lines export into --scope (records already there are skipped)."""
    from rich.progress import Progress

    if file_format == "reference-memory":
        _import_reference(file, redact_secrets, db, scope, as_json, user, password, max_facts=max_facts,
                          max_entities=max_entities)
        return
    if file_format != "synapse-graph":
        fail("UsageError", f"--format must be synapse-graph or reference-memory, not {file_format!r}", as_json)
    lines = file.read_text(encoding="utf-8").splitlines()
    total = sum(1 for line in lines if '"kind": "fact"' in line or '"kind":"fact"' in line)
    with _open(db, scope, user, password, max_facts=max_facts, max_entities=max_entities) as memory, \
            Progress(console=_console(sys.stderr), transient=True, disable=as_json) as progress:
        task = progress.add_task("importing", total=total)
        result = memory.import_(lines, progress=lambda n: progress.advance(task, n))
    _emit(result, as_json, lambda r: say(
        f"imported {render.plural(r.created, 'fact record')} and {render.plural(r.entities_created, 'entity')}"))


def _import_reference(file: Path, redact_secrets: bool, db: str | None, scope: str, as_json: bool,
                      user: str | None, password: str | None, **options: Any) -> None:
    """``import --format reference-memory``: the reference server's entities, observations and relations."""
    from datetime import UTC, datetime

    from synapse_graph.reference_memory import export_lines, identity, read_reference

    graph = read_reference(file.read_text(encoding="utf-8").splitlines())
    mode: Any = "redact" if redact_secrets else "reject"
    with _open(db, scope, user, password, secrets=mode, **options) as memory:
        held: dict[str, set[str]] = {}
        for observation in memory.observations(limit=10**9):
            held.setdefault(identity(observation.entity)[1], set()).add(observation.text)
        holding = {(identity(f.subject)[1], f.predicate, identity(f.object)[1]) for f in memory.facts(limit=10**9)}
        plan = export_lines(graph, scope=scope, now=datetime.now(UTC), secrets=mode, client=memory.client,
                            held_observations=held, held_facts=holding)
        result = memory.import_(plan.lines)
    report = {"entities": plan.entities, "entities_created": result.entities_created,
              "observations": plan.observations, "relations": plan.relations,
              "skipped_observations": plan.skipped_observations, "skipped_relations": plan.skipped_relations,
              "untyped_entities": plan.implied}

    def show(_: Any) -> None:
        say(f"imported from {file}: {render.plural(plan.entities, 'entity', 'entities')} "
            f"({result.entities_created} new), {render.plural(plan.observations, 'observation')} and "
            f"{render.plural(plan.relations, 'relation')} (as facts valid from now)")
        if plan.skipped_observations or plan.skipped_relations:
            say(f"skipped, already held: {render.plural(plan.skipped_observations, 'observation')}, "
                f"{render.plural(plan.skipped_relations, 'relation')}")
        if plan.implied:
            shown = ", ".join(plan.implied[:10]) + (", ..." if len(plan.implied) > 10 else "")
            say(f"relations name {render.plural(len(plan.implied), 'entity', 'entities')} the file has no entity "
                f"line for; they exist now without a type: {shown}")

    _emit(report, as_json, show)


@command()
def stats(
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Counts of entities, aliases and facts in the scope."""
    with _open(db, scope, user, password, create=False) as memory:
        _emit(memory.stats(), as_json, lambda s: say(f"{s}  (database {memory.location})"))


@command()
def demo(
    db: Db = None, scope: Annotated[str, typer.Option("--scope", help="Scope for the demo (erased first).")]
    = DEMO_SCOPE,
    as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Load a small story of facts that change over time and show what the memory answers."""
    report: dict[str, Any] = {"location": None, "answers": [], "history": [], "neighbourhood": []}
    tell: Callable[..., None] = (lambda *parts: None) if as_json else say
    with _open(db, scope, user, password) as memory:
        report["location"] = memory.location
        memory.purge(scope=scope)
        tell(Text.assemble(("synapse-graph demo", "bold"), f" — database {memory.location}, scope {scope!r}\n"))
        for title, triples in STORY:
            result = memory.upsert(list(triples), source="demo")
            tell(f"• learned {title}: {render.plural(len(triples), 'triple')} → {result.created} new, "
                 f"{result.confirmed} confirmed, {result.closed} closed, {result.aliases_merged} merged")
        for when, question in QUESTIONS:
            found = memory.facts("Dana", as_of=when)
            report["answers"].append({"as_of": when, "question": question, "facts": found})
            if not as_json:
                say()
                _fact_table(found, f"{question}  (as of {when})")
        now = memory.facts("Dana")
        report["answers"].append({"as_of": "now", "question": "What holds now?", "facts": now})
        report["history"] = memory.history("Dana", "LIVES_IN")
        report["neighbourhood"] = memory.neighbourhood("Dana Reyes", hops=2)
        report["entity"] = memory.entity("Dana")
        if not as_json:
            for facts_shown, title in ((now, "What holds now?"),
                                       (report["history"], "History of where Dana lived (oldest first)"),
                                       (report["neighbourhood"], "2-hop neighbourhood of Dana now")):
                say()
                _fact_table(facts_shown, title)
            entity_found = report["entity"]
            say(f"\n'Dana' resolves to {entity_found.name!r}, aliases {entity_found.aliases}")
    if as_json:
        _emit(report, True)


@command()
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

    info = instructions(db, scope=scope, name=name, user=user)
    if as_json:
        _emit(info.as_json(), True)
    else:
        print(info.render(), end="")


# -- review and audit ------------------------------------------------------------------------------------


@command()
def pending(
    limit: Annotated[int | None, typer.Option(help="At most this many.")] = None,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Candidate facts waiting for review (recorded, not believed), oldest first; approve or reject them by id."""
    with _open(db, scope, user, password, create=False) as memory:
        found = memory.pending(limit=limit)

        def show(candidates: list[Fact]) -> None:
            if not candidates:
                say("no candidate waits for review")
                return
            _table(["id", *render.FACT_COLUMNS[:6], "flag"],
                   [(f.id, *render.fact_cells(f)[:6], f.flag or "") for f in candidates], "waiting for review")
            say("approve one: synapse-graph approve ID;  reject one: synapse-graph reject ID --reason TEXT")

        _emit(found, as_json, show)


@command()
def approve(
    fact_id: Annotated[str, typer.Argument(metavar="FACT_ID", help="Id of a candidate (see 'pending').")],
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Believe a candidate fact: it joins its timeline as if written now."""
    with _open(db, scope, user, password) as memory:
        memory.approve(fact_id)
        _emit({"approved": fact_id}, as_json, lambda r: say(f"approved {fact_id}"))


@command()
def reject(
    fact_id: Annotated[str, typer.Argument(metavar="FACT_ID", help="Id of a candidate (see 'pending').")],
    reason: Annotated[str, typer.Option("--reason", help="Why (kept, and shown if the fact is written again).")],
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Refuse a candidate fact; written again later, it comes back as a candidate flagged with the reason."""
    with _open(db, scope, user, password) as memory:
        memory.reject(fact_id, reason)
        _emit({"rejected": fact_id, "reason": reason}, as_json, lambda r: say(f"rejected {fact_id}: {reason}"))


@command()
def audit(
    entity: Annotated[str | None, typer.Argument(help="Only the entries that touched this entity.")] = None,
    limit: Annotated[int, typer.Option(help="At most this many entries.")] = 100,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """The scope's audit log of changes, newest first: who changed what, when."""
    with _open(db, scope, user, password, create=False) as memory:
        found = memory.audit(entity, limit=limit)

        def show(entries: list[AuditEntry]) -> None:
            if not entries:
                say("no audit entry" + (f" touches {entity!r}" if entity else ""))
                return
            _table(["at (UTC)", "action", "client", "source", "entities", "fact records", "secrets redacted"], [
                (render.time_text(e.at), e.action, e.client or "", e.source or "", ", ".join(e.entities),
                 str(len(e.facts)), ", ".join(e.secrets)) for e in entries])

        _emit(found, as_json, show)


@command()
def repair(db: Db = None, as_json: AsJson = False) -> None:
    """Repair a damaged embedded store (after copying its files) and report exactly what could not be recovered."""
    from synapse_graph.backends import default_location
    from synapse_graph.backends.repair import repair_store

    report = repair_store(db if db is not None else default_location())
    _emit(report.as_dict(), as_json, lambda _: say(report.summary()))


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
    max_facts: MaxFacts = None, max_entities: MaxEntities = None,
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
                         max_facts=max_facts, max_entities=max_entities)

    def ready(opened: AsyncMemory) -> None:
        if settings is not None:
            _console(sys.stderr).print(f"synapse-graph MCP server at {settings.bind.url} (scope {scope!r})",
                                       highlight=False, soft_wrap=True)

    serve(memory, options, settings, ready=ready)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``synapse-graph`` command."""
    args = list(argv) if argv is not None else sys.argv[1:]
    if "--json" not in args:
        app(args=args, prog_name="synapse-graph")
        return
    # Under --json a usage error (unknown option, missing argument) is JSON too.
    try:
        code = app(args=args, prog_name="synapse-graph", standalone_mode=False)
    except Exception as exc:
        exit_code, message = getattr(exc, "exit_code", None), getattr(exc, "format_message", None)
        if not isinstance(exit_code, int) or message is None:
            raise
        print(json.dumps({"error": "UsageError", "message": message()}, ensure_ascii=False), file=sys.stderr)
        sys.exit(exit_code)
    sys.exit(code if isinstance(code, int) else 0)
