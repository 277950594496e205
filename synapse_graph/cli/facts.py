"""Commands on facts and entities: add, read, recall, digest, alias, retract, purge, pin, observe."""


from __future__ import annotations

import sys
from typing import Annotated, Any

import typer
from rich.text import Text

from synapse_graph import render
from synapse_graph.cli.embeddings import AllowRemote, EmbedderModel, EmbedderSpec, chosen_embedder
from synapse_graph.cli.shell import (
    NOT_FOUND_EXIT,
    AsJson,
    Db,
    MaxEntities,
    MaxFacts,
    Password,
    Scope,
    User,
    _emit,
    _fact_table,
    _open,
    _table,
    command,
    fail,
    say,
)
from synapse_graph.models import Digest, Triple


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
    limit: Annotated[int, typer.Option(help="At most this many memories (facts and observations).")] = 25,
    embedder: EmbedderSpec = None, embedder_model: EmbedderModel = None, allow_remote: AllowRemote = False,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Memories (facts and observations) that answer a question in words, most relevant first."""
    chosen = chosen_embedder(embedder, embedder_model, allow_remote)
    with _open(db, scope, user, password, create=False, embedder=chosen) as memory:
        found = memory.recall(question, as_of=as_of, hops=hops, limit=limit)

        def show(result: Any) -> None:
            if result.skipped:
                say(f"nothing recalled: {result.skipped}")
                return
            say("entry entities: " + (", ".join(e.name for e in result.entities) or "none"))
            # A fact found by its own words or meaning was reached from no entity: its hop and via are blank.
            rows = [(str(f.rank), *render.fact_cells(f), str(f.hop) if f.entry else "", f.entry or "",
                     f"{f.relevance:.2f}") for f in result.facts]
            if rows:
                _table(["rank", *render.FACT_COLUMNS, "hop", "via", "relevance"], rows, "recalled facts",
                       optional=("via", "hop", "seen", "conf."), line=lambda number: str(result.facts[number]))
            else:
                say("recalled facts: none")
            if result.observations:
                say("recalled observations:")
                for seen in result.observations:
                    say(f"  {seen.rank}. {seen}")
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
                 "" if e.lexical_score is None else f"{e.lexical_score:.3f}") for e in entities],
                optional=("BM25", "lexical rank"))

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
        result = memory.alias(canonical, other_name)
        _emit(result.model_dump(), as_json, lambda r: say(str(result)))


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

@command()
def stats(
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Counts of entities, aliases and facts in the scope."""
    with _open(db, scope, user, password, create=False) as memory:
        _emit(memory.stats(), as_json, lambda s: say(f"{s}  (database {memory.location})"))

@command()
def pin(
    fact_id: Annotated[str, typer.Argument(metavar="FACT_ID", help="Id of the fact (see facts --json).")],
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Pin a fact: it leads the digest."""
    with _open(db, scope, user, password, create=False) as memory:
        _emit(memory.pin(fact_id), as_json, lambda f: say(f"pinned: {f}"))

@command()
def unpin(
    fact_id: Annotated[str, typer.Argument(metavar="FACT_ID", help="Id of the fact.")],
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Unpin a fact."""
    with _open(db, scope, user, password, create=False) as memory:
        _emit(memory.unpin(fact_id), as_json, lambda f: say(f"unpinned: {f}"))

@command()
def observe(
    entity: str,
    texts: Annotated[list[str], typer.Argument(metavar="TEXT...", help="What was observed about the entity.")],
    source: Annotated[str | None, typer.Option(help="Where it comes from.")] = None,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Record free-text observations about an entity (those it holds already are skipped)."""
    with _open(db, scope, user, password) as memory:
        added = memory.observe(entity, texts, source=source)
        _emit(added, as_json, lambda rows: say(f"recorded {render.plural(len(rows), 'new observation')}"))

@command()
def observations(
    entity: Annotated[str | None, typer.Argument(help="Only this entity's.")] = None,
    history: Annotated[bool, typer.Option("--history", help="Forgotten ones too.")] = False,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Observations about an entity (or every entity), oldest first."""
    with _open(db, scope, user, password, create=False) as memory:
        found = memory.observations(entity, include_history=history)

        def show(rows: list[Any]) -> None:
            for row in rows:
                say(str(row) + ("" if row.expired_at is None else f"  (forgotten {render.time_text(row.expired_at)})"))
            if not rows:
                say("no observations")

        _emit(found, as_json, show)
