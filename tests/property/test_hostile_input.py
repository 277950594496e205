"""Hostile text through every public read and write, and through the CLI, on every backend.

Hypothesis draws random and adversarial text: Cypher and fulltext metacharacters, query
fragments, quotes and backticks, Unicode confusables, bidi and zero-width marks, combining
marks, control characters, NUL, lone surrogates, 100 kB strings, emoji, newlines, secrets.
Each call must either succeed and round-trip exactly after the documented normalisation
(names: NFC, whitespace collapsed, ``me``/``I``/``user``/``myself`` -> ``User``; free text:
NFC, trimmed; secrets redacted), or raise the documented :class:`SynapseError` subclass for
the field that is wrong, having changed nothing. Never a raw driver, redis, neo4j or Cypher
error, and never a change in another scope (a bystander scope's export is compared before
and after each test).

The expected outcome of each field is computed here from the documented rules (the secret
patterns come from :func:`synapse_graph.rules.redaction.redact`, which has tests of its own).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import unicodedata
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from synapse_graph import Memory, SynapseError
from synapse_graph.catalogue import Q
from synapse_graph.cli import app
from synapse_graph.engine.import_lines import READABLE_FORMATS
from synapse_graph.errors import (
    InvalidImportError,
    InvalidInputError,
    InvalidNameError,
    InvalidPredicateError,
    InvalidScopeError,
    InvalidTimeError,
    NotFoundError,
)
from synapse_graph.rules.redaction import redact

pytestmark = pytest.mark.integration

# -- what hostile text is made of --------------------------------------------------------------------------

FRAGMENTS = (
    # Cypher
    "'", '"', "`", "\\", "\\'", "//", "/*", "*/", "MATCH (n) DETACH DELETE n", "'}) MATCH (n) DETACH DELETE n //",
    "$param", "$scope", "{}", "{", "}", "x}) RETURN 1 {", ";", "CALL db.labels()", "UNWIND", "null", "NULL",
    # fulltext (RediSearch and Lucene) syntax
    "*", "?", ":", "~", "^", "|", "@", "(", ")", "[", "]", "-", "+", "!", "&&", "||", "%", "%%", "@key:{x}",
    "AND", "OR", "NOT", "TO", "\"quoted phrase\"", "fuzzy~2", "boost^4", "w*ld", "-exclude", "=>[KNN 3 @v $b]",
    # Unicode: confusables, bidi and zero-width marks, combining marks, odd whitespace, emoji
    "Ꭺ", "Α", "а", "ｍｅ", "ﬁ", "ß", "İ", "ǅ", "\u200e", "\u200f", "\u202e", "\u2066", "\u200b", "\u200c", "\u200d",
    "\ufeff", "\u2060", "e\u0301", "\u0301", "a" + "\u0301" * 40, "\u0338", "\u00a0", "\u2028", "\u3000", "\x85",
    "🦜‍🔥", "👩🏽‍💻", "🇫🇷", "\U0010ffff", "\uffff", "\ufffe", "ᄀ" "\u1161",
    # control characters, NUL, lone surrogates, newlines
    "\x00", "\x01", "\x02", "\x1b[31m", "\x7f", "\x1c", "\x0b", "\n", "\r\n", "\t", "\ud800", "\udfff", "\udcff",
    # the words that mean the user, and secrets
    "me", "I", "user", "myself", " ME ", "sk-" + "a1b2" * 10, "dana.smith@example.com", "password=hunter2",
    "Bearer abc123def456ghi789", "ghp_" + "x" * 36,
)

TRIED: Counter[str] = Counter()


def big(fragment: str, size: int) -> str:
    """A string of about ``size`` characters (100 kB and more) built from one fragment."""
    return (fragment or "x") * (size // max(1, len(fragment)) + 1)


fragment = st.sampled_from(FRAGMENTS)
any_char = st.characters(min_codepoint=0, max_codepoint=0x10FFFF)  # Hypothesis leaves surrogates out...
surrogate = st.characters(categories=["Cs"])  # ...so they come from here
piece = st.one_of(fragment, fragment, st.text(max_size=6), any_char, surrogate)
hostile = st.one_of(
    fragment,
    st.lists(piece, min_size=1, max_size=6).map("".join),
    st.text(st.characters(codec="utf-8"), max_size=40),
    st.builds(big, fragment, st.integers(100_000, 100_200)),
)
optional = st.none() | hostile
predicate = st.sampled_from(["LIKES", "KNOWS", "A", "HAS_2_X"]) | hostile.filter(lambda p: p != "SAME_AS")

# -- the documented rules, as the expected outcome of each field ------------------------------------------------

Outcome = Any  # an expected value, or the SynapseError subclass expected instead
_WHITESPACE = re.compile(r"\s+")
_USER_WORDS = {"me", "i", "user", "myself"}
_PREDICATE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*")


def is_error(outcome: Outcome) -> bool:
    return isinstance(outcome, type) and issubclass(outcome, SynapseError)


def unstorable(raw: str) -> bool:
    return "\x00" in raw or any(0xD800 <= ord(c) <= 0xDFFF for c in raw)


def _clean_name(raw: str) -> Outcome:
    name = _WHITESPACE.sub(" ", unicodedata.normalize("NFC", raw)).strip()
    if not name or len(name) > 120:
        return InvalidNameError
    return "User" if name.casefold() in _USER_WORDS else name


def name_of(raw: str) -> Outcome:
    """Display name: NFC, whitespace collapsed, 1-120 characters, the user words -> User; one that is or
    holds a secret is refused (a secret is never a name)."""
    TRIED["name"] += 1
    if "\x01" in raw:
        return InvalidNameError  # FalkorDB cannot index it (see engine/inputs.py)
    if unstorable(raw):
        return InvalidInputError
    first = _clean_name(raw)
    return first if is_error(first) or not redact(first).kinds else InvalidNameError


def key_of(display: str) -> str:
    return unicodedata.normalize("NFC", display.casefold())


def text_of(raw: str | None, limit: int) -> Outcome:
    """Free text (source, model, session, type, reason): NFC, trimmed, at most ``limit``, secrets redacted."""
    TRIED["text"] += 1
    if raw is None:
        return None
    if unstorable(raw):
        return InvalidInputError
    text = unicodedata.normalize("NFC", raw).strip()
    if len(text) > limit:
        return InvalidInputError
    return redact(text).text if text else None


def predicate_of(raw: str) -> Outcome:
    TRIED["predicate"] += 1
    return raw if len(raw) <= 64 and _PREDICATE.fullmatch(raw) and raw != "SAME_AS" else InvalidPredicateError


def query_of(raw: str) -> Outcome:
    TRIED["query"] += 1
    return InvalidInputError if len(raw) > 4_000 or any(0xD800 <= ord(c) <= 0xDFFF for c in raw) else raw


def call[T](function: Callable[[], T], *outcomes: Outcome, memory: Memory | None = None) -> T | None:
    """Run an API call whose arguments have these expected outcomes.

    All valid: the call must succeed, and its result is returned. Some invalid: it must
    raise the expected error of one of them (exactly that class), and (given ``memory``)
    leave that scope as it was; None is returned.
    """
    expected = {o for o in outcomes if is_error(o)}
    before = export(memory) if expected and memory is not None else None
    try:
        result = function()
    except SynapseError as exc:
        assert expected, f"refused valid input: {type(exc).__name__}: {exc}"
        assert type(exc) in expected, f"{type(exc).__name__}: {exc} (expected one of {expected})"
        assert before is None or export(memory) == before, "a refused call changed the scope"
        return None
    except Exception as exc:
        raise AssertionError(f"not a SynapseError: {type(exc).__module__}.{type(exc).__name__}: {exc}") from exc
    assert not expected, f"accepted invalid input (expected one of {expected}), returned {result!r:.300}"
    return result


def export(memory: Memory | None) -> list[dict[str, Any]]:
    assert memory is not None
    return sorted((json.loads(line) for line in memory.export()), key=lambda x: json.dumps(x, sort_keys=True))


# -- fixtures: the memory under attack and a bystander scope -----------------------------------------------------


@pytest.fixture
def bystander(make_memory: Callable[..., Memory]) -> Iterator[Memory]:
    """Another scope on the same database: its export must be the same after the test."""
    memory = make_memory()
    memory.upsert([("Dana", "LIVES_IN", "Paris"), ("Dana", "LIKES", "Tea")], source="bystander", valid_at="2020-01-01")
    memory.alias("Dana", "Dee")
    before = export(memory)
    yield memory
    assert export(memory) == before, "a hostile call in another scope changed this one"


@pytest.fixture(scope="module", autouse=True)
def tried() -> Iterator[None]:
    yield
    print(f"\n[hostile input] values tried per field kind: {dict(TRIED)}; total {sum(TRIED.values())}")


SCALE = int(os.environ.get("SYNAPSE_HOSTILE_SCALE", "1"))  # more examples per test, for a longer hunt
HYPOTHESIS = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)


def fresh(memory: Memory) -> None:
    """Each example starts from an empty scope (the fixture's Memory is reused across examples)."""
    TRIED["examples"] += 1
    memory.purge(scope=memory.scope)


# -- the API ----------------------------------------------------------------------------------------------------


@settings(HYPOTHESIS, max_examples=30 * SCALE)
@given(subject=hostile, obj=hostile, pred=predicate, subject_type=optional, object_type=optional, source=optional,
       model=optional, session=optional)
@example(subject="MATCH (n) DETACH DELETE n", obj="'}) //", pred="LIKES", subject_type="`x`", object_type="$param",
         source="/* c */", model="{}", session="\u202e")
@example(subject=" ME ", obj="e\u0301\u200b", pred="KNOWS", subject_type=None, object_type=None,
         source="sk-" + "a1b2" * 10, model=None, session="\n")
def test_writes_round_trip_and_reads_find_them(memory: Memory, bystander: Memory, subject: str, obj: str, pred: str,
                                               subject_type: str | None, object_type: str | None,
                                               source: str | None, model: str | None, session: str | None) -> None:
    fresh(memory)
    s, o, p = name_of(subject), name_of(obj), predicate_of(pred)
    types = text_of(subject_type, 64), text_of(object_type, 64)
    provenance = text_of(source, 512), text_of(model, 200), text_of(session, 200)
    written = call(lambda: memory.upsert(
        {"subject": subject, "predicate": pred, "object": obj, "subject_type": subject_type,
         "object_type": object_type}, source=source, model=model, session=session),
        s, o, p, *types, *provenance, memory=memory)
    if written is None:
        assert memory.stats().facts == 0
        return
    assert written.created == 1
    self_loop = key_of(s) == key_of(o)

    [fact] = memory.facts(subject)
    if self_loop:  # one entity, named after one of the two
        assert fact.subject == fact.object and key_of(fact.subject) == key_of(s)
    else:
        assert (fact.subject, fact.object) == (s, o)
    assert (fact.predicate, fact.source, fact.model, fact.session) == (p, *provenance)
    assert memory.facts(object=obj) == [fact]
    assert memory.facts(predicate=pred) == [fact]
    assert memory.history(subject, pred) == [fact]
    assert fact in memory.neighbourhood(subject) and fact in memory.neighbourhood(obj, hops=2)
    entity = memory.entity(subject)
    assert entity is not None and entity.name == fact.subject
    if not self_loop:
        assert entity.type == types[0]
        assert memory.entity(obj).type == types[1]  # type: ignore[union-attr]
    assert memory.audit(subject)[0].facts == [fact.id]
    assert call(lambda: memory.retract(subject, pred, obj)) == 1
    [ended] = memory.history(subject)
    assert ended.invalid_at is not None and (ended.subject, ended.object) == (fact.subject, fact.object)
    assert call(lambda: memory.purge(subject)).entities == 1  # type: ignore[union-attr]
    assert memory.entity(subject) is None


@settings(HYPOTHESIS, max_examples=30 * SCALE)
@given(text=hostile, other=hostile, when=hostile)
@example(text="x" * 100_001, other="\x00", when="$now")
@example(text="* ? : ~ ^ | @ ( ) [ ] dana", other="\ud800", when="2020-01-01")
def test_reads_aliases_search_and_purge_with_hostile_text(memory: Memory, bystander: Memory, text: str, other: str,
                                                          when: str) -> None:
    fresh(memory)
    memory.upsert([("Dana", "LIKES", "Tea"), ("Tea", "GROWS_IN", "Assam")], valid_at="2020-01-01")
    names = {"dana", "tea", "assam"}
    n, q = name_of(text), query_of(text)

    known = not is_error(n) and key_of(n) in names  # the text happens to name an entity of the scope
    found = call(lambda: memory.facts(text), n)
    assert found is None or known or found == []
    found = call(lambda: memory.facts(object=text, include_history=True), n)
    assert found is None or known or found == []
    call(lambda: memory.facts(predicate=text), predicate_of(text))
    found = call(lambda: memory.neighbourhood(text, hops=2), n)
    assert found is None or known or found == []
    entity = call(lambda: memory.entity(text), n)
    assert entity is None or entity.key in names
    call(lambda: memory.audit(text), n)
    with contextlib.suppress(InvalidTimeError):  # a time in words may or may not be read; nothing else may happen
        memory.facts("Dana", as_of=when)
    TRIED["time"] += 1

    recalled = call(lambda: memory.recall(text, hops=2), q)
    if recalled is not None:
        assert {key_of(f.subject) for f in recalled.facts} <= names
        assert {e.key for e in recalled.entities} <= names
    searched = call(lambda: memory.search_entities(text), q)
    assert searched is None or {e.key for e in searched} <= names

    subgraph = call(lambda: memory.subgraph([text, "Dana"], hops=2), n)
    assert subgraph is None or {key_of(f.subject) for f in subgraph} <= names
    # Another scope's name is refused, whatever it looks like (and so is a malformed one).
    for act in (lambda: memory.purge(scope=text), lambda: list(memory.export(scope=text))):
        call(act, InvalidScopeError, memory=memory)

    a = name_of(other)
    ended = call(lambda: memory.retract(text, "LIKES", other), n, a, memory=memory)
    assert ended is None or ended == 0 or known
    merged = call(lambda: memory.alias("Dana", other), a, memory=memory)
    if merged is not None and key_of(a) not in names:
        assert merged.merged is False and merged.facts_moved == 0
        entity = memory.entity(other)
        assert entity is not None and entity.name == "Dana" and a in entity.aliases
        assert memory.facts(other) == memory.facts("Dana")
    purged = call(lambda: memory.purge(text), n, memory=memory)
    if purged is not None and not known and (is_error(a) or key_of(a) != key_of(n)):
        assert (purged.entities, purged.facts, purged.aliases) == (0, 0, 0)  # nothing of that name
    assert memory.stats().entities <= 3


@settings(HYPOTHESIS, max_examples=25 * SCALE)
@given(subject=hostile, obj=hostile, fact_id=hostile, verdict=hostile, reason=hostile)
@example(subject="Ꭺlice", obj="\u200fBob", fact_id="' OR 1=1 //", verdict="helpful' //",
         reason="MATCH (n) DETACH DELETE n")
@example(subject="me", obj="Tea", fact_id="٣٤٥", verdict="stale", reason="   ")
def test_review_feedback_and_audit_with_hostile_text(memory: Memory, bystander: Memory, subject: str, obj: str,
                                                     fact_id: str, verdict: str, reason: str) -> None:
    fresh(memory)
    memory.upsert(("Dana", "LIKES", "Tea"))
    [believed] = memory.facts("Dana")
    s, o = name_of(subject), name_of(obj)
    written = call(lambda: memory.upsert({"subject": subject, "predicate": "MENTIONS", "object": obj,
                                          "confidence": 0.3}, model="extractor"), s, o, memory=memory)
    pending = memory.pending()
    assert len(pending) == (written is not None)
    # An id that is not one of this scope's facts is refused, whatever it looks like: not an id at all
    # (bad input), or an id of no fact here (not found).
    TRIED["id"] += 1
    unknown = NotFoundError if fact_id.isalnum() and len(fact_id) <= 64 else InvalidInputError
    for review in (lambda: memory.approve(fact_id), lambda: memory.reject(fact_id, "no"),
                   lambda: memory.feedback(fact_id, "helpful")):
        call(review, unknown, memory=memory)
    TRIED["verdict"] += 1
    judged = call(lambda: memory.feedback(believed, verdict),
                  None if verdict in ("helpful", "stale", "wrong") else InvalidInputError, memory=memory)
    assert judged is None or judged.id == believed.id
    if not pending:
        return
    [candidate] = pending
    if key_of(s) != key_of(o):
        assert (candidate.subject, candidate.object) == (s, o)
    why = text_of(reason, 500)
    refused = call(lambda: memory.reject(candidate, reason), InvalidInputError if why is None else why,
                   memory=memory)
    if refused is None and why is not None and not is_error(why):  # rejected: the reason is kept as given
        [rejection] = [x for x in export(memory) if x["kind"] == "rejection"]
        assert rejection["reason"] == why
        assert memory.audit()[0].action == "reject"
    elif why is None or is_error(why):
        memory.approve(candidate)
        assert memory.pending() == []


@settings(HYPOTHESIS, max_examples=25 * SCALE)
@given(name=hostile, source=optional, line=hostile)
@example(name="'}) MATCH (n) DETACH DELETE n //", source="$param", line="{}")
@example(name="x\x01y", source=None, line='{"kind": "fact"}')
def test_import_lines_with_hostile_text(memory: Memory, bystander: Memory, make_memory: Callable[..., Memory],
                                        name: str, source: str | None, line: str) -> None:
    fresh(memory)
    TRIED["line"] += 1
    if _header(line):  # a header alone imports nothing
        assert memory.import_([line]).created == 0
    else:  # anything else alone is no export (not even a blank line): refused, naming why
        call(lambda: memory.import_([line]), InvalidImportError, memory=memory)

    origin = make_memory(scope=f"origin-{uuid.uuid4().hex[:12]}")
    origin.upsert(("Seed", "LIKES", "Tea"), source="original", valid_at="2021-01-01")
    lines = [json.loads(x) for x in origin.export()]
    # The values as import_ reads them: JSON joins a surrogate pair written as two escapes into one character.
    raw = json.loads(json.dumps(name))
    read_source = json.loads(json.dumps(source))
    n, src = name_of(raw), text_of(read_source, 512)
    key = key_of(n) if not is_error(n) else "seed"
    for item in lines:  # the same entity under a hostile name everywhere, and a hostile source
        if item["kind"] == "entity" and item["key"] == "seed":
            item["name"], item["key"] = name, key
        if item["kind"] == "fact":
            item["subject"], item["source"] = key, source
        if item["kind"] == "audit":
            item["entities"] = []
    # An export holds names exactly as the store keeps them; anything else could make the store lie.
    # So does free text: a source the text rules would change (or refuse) was not written by the store.
    exact = not is_error(n) and n == raw and key != "tea" and not is_error(src) and src == read_source
    refused = InvalidImportError if not exact else None
    result = call(lambda: memory.import_([json.dumps(x) for x in lines]), refused, memory=memory)
    if result is None:
        assert memory.stats().facts == 0
        return
    [fact] = memory.facts(raw)  # the name as import_ read it (JSON joins an escaped surrogate pair)
    assert (fact.subject, fact.object, fact.source) == (n, "Tea", src)
    assert memory.stats().facts == memory.backend.read(Q.SCOPE_STATE, {"scope": memory.scope})[0]["state"]["facts"] == 1
    again = memory.import_([json.dumps(x) for x in lines])  # importing twice changes nothing
    assert again.created == 0


def _header(line: str) -> bool:
    """A line that is a (harmless) header: it imports nothing and is accepted."""
    try:
        item = json.loads(line)
    except (ValueError, RecursionError):  # deep nesting: no header (import_ refuses it)
        return False
    return isinstance(item, dict) and item.get("kind") == "header" and item.get("format") in READABLE_FORMATS


# -- the CLI -------------------------------------------------------------------------------------------------------


@pytest.fixture
def cli(memory: Memory, backend_name: str, request: pytest.FixtureRequest) -> Callable[..., Any]:
    """Runs ``synapse-graph <command> --db ... --scope <memory's scope> --json -- <arguments>`` in-process."""
    env: dict[str, str] = {}
    if backend_name == "falkordb":
        db = request.getfixturevalue("falkordb_location")
    else:
        settings_ = request.getfixturevalue("neo4j_settings")
        db = settings_["location"]
        env = {"SYNAPSE_NEO4J_USER": settings_["auth"][0], "SYNAPSE_NEO4J_PASSWORD": settings_["auth"][1]}
    runner = CliRunner()

    def run(command: str, *arguments: str) -> Any:
        return runner.invoke(app, [command, "--db", db, "--scope", memory.scope, "--json", "--", *arguments], env=env)

    return run


@settings(HYPOTHESIS, max_examples=10 * SCALE)
@given(subject=hostile, obj=hostile, question=hostile)
@example(subject="--db", obj="-x", question="$(rm -rf /)")
@example(subject="\udcff\udcfe", obj="`whoami`", question="MATCH (n) DETACH DELETE n")
def test_cli_commands_with_hostile_arguments(memory: Memory, bystander: Memory, cli: Callable[..., Any],
                                             subject: str, obj: str, question: str) -> None:
    fresh(memory)
    s, o, q = name_of(subject), name_of(obj), query_of(question)
    added = cli("add", subject, "LIKES", obj)
    assert_clean_exit(added, s, o)
    listed = cli("facts", subject)
    assert_clean_exit(listed, s)
    if added.exit_code == 0:
        [fact] = json.loads(listed.stdout)
        if key_of(s) != key_of(o):
            assert (fact["subject"], fact["object"]) == (s, o)
        shown = cli("entity", subject)
        assert shown.exit_code == 0 and key_of(json.loads(shown.stdout)["name"]) == key_of(s)
    assert_clean_exit(cli("history", subject), s)
    assert_clean_exit(cli("recall", question), q)
    assert_clean_exit(cli("search", question), q)
    assert_clean_exit(cli("retract", subject, "LIKES", obj), s, o)


def assert_clean_exit(result: Any, *outcomes: Outcome) -> None:
    """Exit 0 with JSON when every argument is valid, else 2 with a one-line error; never a traceback."""
    TRIED["cli"] += 1
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"{type(result.exception).__name__}: {result.exception}")
    if any(is_error(o) for o in outcomes):
        assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
        assert "Traceback" not in result.stderr
    else:
        assert result.exit_code == 0, (result.exit_code, result.stdout, result.stderr)
        json.loads(result.stdout)
