"""Commands on the store itself: create, rules, export, import, repair, demo, Browser."""


from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.text import Text

from synapse_graph import render
from synapse_graph.cli.demo import DEMO_SCOPE, QUESTIONS, STORY
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
    command,
    fail,
    say,
)


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
    # Written beside ``out``, then moved over it: a failed or interrupted export never empties the file it replaces.
    partial = out.with_name(f".{out.name}.partial")
    try:
        with _open(db, scope, user, password, create=False) as memory, partial.open("w", encoding="utf-8") as handle:
            count = sum(1 for line in memory.export() if handle.write(line + "\n"))
        partial.replace(out)
    finally:
        partial.unlink(missing_ok=True)
    _emit({"out": str(out), "lines": count}, as_json, lambda r: _console(sys.stderr).print(
        f"wrote {render.plural(count, 'line')} to {out}", soft_wrap=True))

@command("import")
def import_command(
    file: Annotated[Path | None, typer.Argument(exists=True, dir_okay=False, help="A JSON Lines export.")] = None,
    file_format: Annotated[str, typer.Option(
        "--format", help="synapse-graph (an export of this library), reference-memory (the memory.jsonl of the "
                         "reference MCP memory server) or graphiti (a Graphiti graph, read from --from).")]
    = "synapse-graph",
    redact_secrets: Annotated[bool, typer.Option(
        "--redact-secrets", help="reference-memory: store secrets found in the file redacted, instead of refusing "
                                 "the file (nothing is changed silently otherwise).")] = False,
    source: Annotated[str | None, typer.Option(
        "--from", help="graphiti: the URL of the database Graphiti writes to (bolt://, neo4j://, falkordb://).")]
    = None,
    group_id: Annotated[str | None, typer.Option(
        "--group-id", help="graphiti: the group to import into --scope (default: every group, each into "
                           "SCOPE/GROUP; Graphiti's default group into SCOPE).")] = None,
    from_user: Annotated[str | None, typer.Option(
        "--from-user", envvar="NEO4J_USER", help="graphiti: the user of Graphiti's Neo4j.")] = None,
    from_password: Annotated[str | None, typer.Option(
        "--from-password", envvar="NEO4J_PASSWORD", help="graphiti: the password of Graphiti's Neo4j (prefer "
                                                         "the environment variable).")] = None,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
    max_facts: MaxFacts = None, max_entities: MaxEntities = None,
) -> None:
    """Import a JSON Lines export into --scope (records already there are skipped, so an import that was
    stopped finishes when run again), or a Graphiti graph (--format graphiti --from URL)."""
    from synapse_graph.cli.progress import INTERRUPTED_EXIT, ImportProgress, Interrupted, interrupted_exit
    from synapse_graph.exports import check_export

    if file_format == "graphiti":
        if file is not None or source is None:
            fail("UsageError", "--format graphiti reads the graph from the database Graphiti writes to: give "
                               "--from URL (bolt://, neo4j://, falkordb://), and no file", as_json)
        from synapse_graph.cli.graphiti import import_graphiti

        import_graphiti(source, group_id, db, scope, as_json, user, password,
                        _auth(from_user, from_password),
                        max_facts=max_facts, max_entities=max_entities)
        return
    if file is None or source is not None or group_id is not None:
        fail("UsageError", "give the FILE to import (--from and --group-id are for --format graphiti)", as_json)
    if file_format == "reference-memory":
        _import_reference(file, redact_secrets, db, scope, as_json, user, password, max_facts=max_facts,
                          max_entities=max_entities)
        return
    if file_format != "synapse-graph":
        fail("UsageError", f"--format must be synapse-graph, reference-memory or graphiti, not {file_format!r}",
             as_json)
    # Every line is read and checked once, before a store is opened (or created) for it; the import reuses it.
    checked = check_export(file, scope=scope)
    progress = ImportProgress(None, checked.entities, checked.facts, _console(sys.stderr),
                              show=not as_json and sys.stderr.isatty())  # piped: no stray blank line
    try:
        with _open(db, scope, user, password, max_facts=max_facts, max_entities=max_entities) as memory, progress:
            result = memory.import_(checked, progress=progress.written)
    except Interrupted:
        interrupted_exit(progress.said(str(file), scope), as_json, _console(sys.stderr))
        raise typer.Exit(INTERRUPTED_EXIT) from None
    _emit(result, as_json, lambda r: say(
        f"imported {render.plural(r.created, 'fact record')} and {render.plural(r.entities_created, 'entity')}"))


def _import_reference(file: Path, redact_secrets: bool, db: str | None, scope: str, as_json: bool,
                      user: str | None, password: str | None, **options: Any) -> None:
    """``import --format reference-memory``: the reference server's entities, observations and relations, written
    as the profile's tools write them (entities and observations in one transaction, then relations in another),
    leaving out what the scope holds now: importing again adds only what is missing."""
    from synapse_graph.mcp.reference_memory import identity, read_reference, translate

    graph = read_reference(file.read_text(encoding="utf-8").splitlines())
    mode: Any = "redact" if redact_secrets else "reject"
    with _open(db, scope, user, password, secrets=mode, **options) as memory:
        held: dict[str, set[str]] = {}
        for observation in memory.observations(limit=10**9):
            held.setdefault(identity(observation.entity)[1], set()).add(observation.text)
        holding = {(identity(f.subject)[1], f.predicate, identity(f.object)[1]) for f in memory.facts(limit=10**9)}
        plan = translate(graph, secrets=mode, held_observations=held, held_facts=holding,
                         single_valued=memory.rules().single_valued)
        before = memory.stats().entities
        observed = memory.observe_many(plan.entities) if plan.entities else []
        related = memory.upsert(plan.relations) if plan.relations else None
        created = memory.stats().entities - before
    observations, relations = sum(len(new) for new in observed), related.created if related else 0
    report = {"entities": len(plan.entities), "entities_created": created,
              "observations": observations, "relations": relations,
              "skipped_observations": plan.skipped_observations, "skipped_relations": plan.skipped_relations,
              "untyped_entities": plan.implied}

    def show(_: Any) -> None:
        say(f"imported from {file}: {render.plural(len(plan.entities), 'entity', 'entities')} ({created} new), "
            f"{render.plural(observations, 'observation')} and {render.plural(relations, 'relation')} (as facts "
            "valid from now)")
        if plan.skipped_observations or plan.skipped_relations:
            say(f"skipped, already held: {render.plural(plan.skipped_observations, 'observation')}, "
                f"{render.plural(plan.skipped_relations, 'relation')}")
        if plan.implied:
            shown = ", ".join(plan.implied[:10]) + (", ..." if len(plan.implied) > 10 else "")
            say(f"relations name {render.plural(len(plan.implied), 'entity', 'entities')} the file has no entity "
                f"line for; they exist now without a type: {shown}")

    _emit(report, as_json, show)

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
    from synapse_graph.cli.browse import instructions

    info = instructions(db, scope=scope, name=name, user=user)
    if as_json:
        _emit(info.as_json(), True)
    else:
        print(info.render(), end="")

@command()
def repair(db: Db = None, as_json: AsJson = False) -> None:
    """Repair a damaged embedded store (after copying its files) and report exactly what could not be recovered."""
    from synapse_graph.backends import default_location
    from synapse_graph.backends.repair import repair_store

    report = repair_store(db if db is not None else default_location())
    _emit(report.as_dict(), as_json, lambda _: say(report.summary()))

@command()
def init(
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Create the store and its folders (reads never create one, and other writes no folder: a mistyped --db is
    an error, not a new empty store)."""
    with _open(db, scope, user, password, init=True) as memory:
        _emit({"location": memory.location, "scope": memory.scope}, as_json,
              lambda r: say(f"store ready at {r['location']} (scope {r['scope']!r})"))

@command()
def rules(
    max_facts: MaxFacts = None, max_entities: MaxEntities = None,
    max_candidates: Annotated[int | None, typer.Option("--max-candidates", help="Candidates waiting for review.")]
    = None,
    single_valued: Annotated[list[str] | None, typer.Option(
        "--single-valued", help="The predicates that hold one value at a time (repeat; replaces the set).")] = None,
    candidate_below: Annotated[float | None, typer.Option(
        "--candidate-below", help="Extracted facts below this confidence are candidates.")] = None,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Show the scope's stored rules, or change them for every client (recorded in the audit log)."""
    changing = any(v is not None for v in (max_facts, max_entities, max_candidates, single_valued, candidate_below))
    with _open(db, scope, user, password, create=changing) as memory:
        found = memory.set_rules(max_facts=max_facts, max_entities=max_entities, max_candidates=max_candidates,
                                 single_valued=single_valued, candidate_below=candidate_below) if changing \
            else memory.rules()
        _emit(found, as_json, lambda r: say(
            f"max facts {r.max_facts}, max entities {r.max_entities}, max candidates {r.max_candidates}, "
            f"candidates below {r.candidate_below:g}; single-valued: {', '.join(sorted(r.single_valued))}"))
