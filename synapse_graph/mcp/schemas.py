"""The tools' arguments and results as pydantic models, and the JSON Schemas published for them.

Argument models forbid unknown fields, so a misspelt argument (``valid_from``) is refused by
name instead of being ignored. Times stay strings: they reach :class:`~synapse_graph.Memory`
unparsed and go through the library's own time parser, like every other caller's.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from synapse_graph.mcp.formatting import when
from synapse_graph.models import EntryEntity, Fact, Observation, RecalledFact, RecalledObservation

_TIME = ("ISO-8601, e.g. 2024-03-01 or 2024-03-01T09:30:00Z (other unambiguous forms such as 'March 5 2024' "
         "work too; UTC when no offset is given)")
Time = Annotated[str | None, Field(description=_TIME)]
Name = Annotated[str, Field(min_length=1, description="An entity name as the user says it, e.g. 'Dana' or 'Acme'.")]
Predicate = Annotated[str, Field(min_length=1, description="The relation in UPPER_SNAKE_CASE, e.g. LIVES_IN.")]
Hops = Annotated[Literal[1, 2], Field(description="1: facts touching the entities; 2: also their neighbours' facts.")]
MemoryScopeArg = Literal["session", "durable"] | None
_DURABLE_FIRST = Field(None, description=(
    "durable (default): the long-term memory; session: only this agent session's private memory (the server "
    "must be started with --session), which ends with the session."))
Cursor = Annotated[str | None, Field(description="From a previous result's next_cursor, to continue it: repeat the "
                                                 "same arguments and add the cursor.")]


def _limit(default: int, most: int, what: str = "facts") -> Any:
    return Field(default=default, ge=1, le=most, description=f"At most this many {what} in all (pages included).")


class Arguments(BaseModel):
    """Base of every tool's arguments: unknown names are refused."""

    model_config = ConfigDict(extra="forbid")


class TripleArg(Arguments):
    subject: Name
    predicate: Predicate
    object: Name
    valid_at: Time = Field(None, description=f"When it became true (default now). {_TIME}")
    invalid_at: Time = Field(None, description="When it stopped being true (omit if it still holds).")
    confidence: float | None = Field(None, ge=0.0, le=1.0, description="How sure you are, 0..1 (default 1).")
    subject_type: str | None = Field(None, description="Optional kind of the subject, e.g. Person.")
    object_type: str | None = Field(None, description="Optional kind of the object, e.g. City.")


class UpsertArgs(Arguments):
    triples: list[TripleArg] = Field(min_length=1, max_length=100, description="The facts to save (1-100).")
    replace: bool = Field(False, description="Close the subjects' other values of these predicates (they stay in "
                                             "history), as single-valued predicates such as LIVES_IN always do.")
    source: str | None = Field(None, max_length=512, description="Where the facts come from, e.g. 'chat 2024-03-01'.")
    memory_scope: MemoryScopeArg = _DURABLE_FIRST


class ObservationsArgs(Arguments):
    entity: Name
    texts: list[Annotated[str, Field(min_length=1, max_length=10_000)]] = Field(
        min_length=1, max_length=100, description=(
            "What to remember about the entity, one observation each (1-100), e.g. 'Adopted a cat named Oliver'."))
    valid_at: Time = Field(None, description=f"When what they tell happened or held, if known. {_TIME}")
    source: str | None = Field(None, max_length=512, description="Where they come from, e.g. 'chat 2024-03-01'.")
    entity_type: str | None = Field(None, max_length=200, description="The kind of a new entity, e.g. Person.")
    memory_scope: MemoryScopeArg = _DURABLE_FIRST


class RecallArgs(Arguments):
    query: str = Field(min_length=1, max_length=4000, description="The question or topic, in words.")
    as_of: Time = Field(None, description="Facts valid at this time (default now).")
    known_at: Time = Field(None, description="As the memory believed at this time (default now).")
    hops: Hops = 1
    limit: int = Field(default=25, ge=1, le=200, description=(
        "At most this many memories (facts and observations together, pages included)."))
    max_tokens: int | None = Field(None, ge=1, le=100_000, description=(
        "Only as many memories as fit this many tokens (approximately), most relevant first."))
    min_score: float | None = Field(None, ge=0.0, le=1.0, description=(
        "Leave out facts that answer less than this share of the question (0..1, e.g. 0.5); if none is left, "
        "the result says it abstained instead of returning weakly related facts."))
    memory_scope: MemoryScopeArg = Field(None, description=(
        "session: this agent session's private memory (the default when the server was started with --session); "
        "durable: the long-term memory (the default otherwise). One is read, never both: ask again for the other."))
    cursor: Cursor = None


class QueryFactsArgs(Arguments):
    subject: str | None = Field(None, min_length=1, description="Only facts of this subject.")
    predicate: str | None = Field(None, min_length=1, description="Only this relation (UPPER_SNAKE_CASE).")
    object: str | None = Field(None, min_length=1, description="Only facts pointing at this entity.")
    as_of: Time = Field(None, description="Facts valid at this time (default now).")
    known_at: Time = Field(None, description="As the memory believed at this time (default now).")
    limit: int = _limit(100, 1000)
    memory_scope: MemoryScopeArg = _DURABLE_FIRST
    cursor: Cursor = None


class FactHistoryArgs(Arguments):
    subject: Name
    predicate: str | None = Field(None, min_length=1, description="Only this relation (UPPER_SNAKE_CASE).")
    limit: int = _limit(200, 1000, "intervals")
    cursor: Cursor = None


class SearchArgs(Arguments):
    query: str = Field(min_length=1, max_length=4000, description="Words or identifiers to look for.")
    limit: int = _limit(8, 50, "entities")
    cursor: Cursor = None


class SubgraphArgs(Arguments):
    entities: list[Name] = Field(min_length=1, max_length=20, description="The entities to start from (1-20).")
    hops: Hops = 1
    as_of: Time = Field(None, description="Facts valid at this time (default now).")
    limit: int = _limit(100, 500)
    cursor: Cursor = None


class ForgetArgs(Arguments):
    subject: Name
    predicate: Predicate
    object: str | None = Field(None, min_length=1, description="Only this value (default: every value).")
    at: Time = Field(None, description="When it stopped being true (default now).")


class FeedbackArgs(Arguments):
    fact_id: str = Field(min_length=1, max_length=64, description="The id of a fact from an earlier result.")
    verdict: Literal["helpful", "stale", "wrong"] = Field(description=(
        "helpful: it was right and useful; stale: it no longer holds; wrong: it never held."))


class DigestArgs(Arguments):
    limit: int = _limit(20, 200)


class PinArgs(Arguments):
    fact_id: str | None = Field(None, min_length=1, max_length=64, description=(
        "The id of a fact from an earlier result; or give subject, predicate and object instead."))
    subject: str | None = Field(None, min_length=1, description="The fact's subject (with predicate and object).")
    predicate: str | None = Field(None, min_length=1, description="The fact's relation (UPPER_SNAKE_CASE).")
    object: str | None = Field(None, min_length=1, description="The fact's object.")
    pinned: bool = Field(True, description="true: pin it; false: unpin it.")

    @model_validator(mode="after")
    def _one_way(self) -> Self:
        parts = [v is not None for v in (self.subject, self.predicate, self.object)]
        if (self.fact_id is not None) == all(parts) or (not all(parts) and any(parts)):
            raise ValueError("give either fact_id, or subject, predicate and object (all three)")
        return self


class PurgeArgs(Arguments):
    entity: Name


class PendingArgs(Arguments):
    limit: int = _limit(50, 500, "candidates")
    cursor: Cursor = None


class ApproveArgs(Arguments):
    fact_id: str = Field(min_length=1, max_length=64, description="The id of a candidate from pending_facts.")


class RejectArgs(ApproveArgs):
    reason: str = Field(min_length=1, max_length=500, description="Why it is refused (kept with the tombstone).")


# -- results -------------------------------------------------------------------------------------


class FactOut(BaseModel):
    """One fact record, as short as its text line: ``fact`` is [subject, PREDICATE, object]; ``valid`` when it holds
    (UTC, a date alone is midnight): "start" while it still holds, else "start/end" (half-open). A value at its
    default is left out (confidence 1, one confirmation, believed)."""

    id: str
    fact: tuple[str, str, str] = Field(description="[subject, PREDICATE, object]")
    valid: str = Field(description="'start' while it holds, else 'start/end' (half-open; UTC).")
    superseded: str | None = Field(None, description="When the memory stopped believing it (history), if so.")
    confidence: float | None = Field(None, description="How sure the writer was, 0..1 (absent: 1).")
    confirmations: int | None = Field(None, description="How often it was written (absent: once).")
    status: str | None = Field(None, description="candidate (unreviewed) or disputed (absent: believed).")
    source: str | None = None
    flag: str | None = Field(None, description="Why a candidate needs a closer look.")
    pinned: Literal[True] | None = Field(None, description="Present when the fact is pinned (see memory_digest).")
    qualifiers: list[str] | None = Field(None, description=(
        "Warnings to weigh before asserting the fact (stored long ago, disputed, unreviewed candidate, low "
        "confidence, no longer valid); absent when none applies."))

    CARRIES: ClassVar[dict[str, tuple[str, ...]]] = {
        "id": ("id",), "fact": ("subject", "predicate", "object"), "valid": ("valid_at", "invalid_at"),
        "superseded": ("expired_at",), "confidence": ("confidence",), "confirmations": ("confirmations",),
        "status": ("status",), "source": ("source",), "flag": ("flag",), "pinned": ("pinned",)}
    """The stored fields (``shapes.FACT``) each field shows."""

    @classmethod
    def of(cls, fact: Fact, qualifiers: Sequence[str]) -> Self:
        return cls.model_validate({**cls._fields(fact), "qualifiers": list(qualifiers) or None})

    @staticmethod
    def _fields(fact: Fact) -> dict[str, Any]:
        return {
            "id": fact.id, "fact": (fact.subject, fact.predicate, fact.object), "valid": validity(fact),
            "superseded": _when(fact.expired_at), "confidence": None if fact.confidence == 1.0 else fact.confidence,
            "confirmations": None if fact.confirmations == 1 else fact.confirmations,
            "status": None if fact.status == "believed" else fact.status, "source": fact.source, "flag": fact.flag,
            "pinned": True if fact.pinned else None}


def validity(fact: Fact) -> str:
    """``2020-01-01`` while a fact holds, ``2020-01-01/2022-05-01`` once it ended (half-open, UTC)."""
    return when(fact.valid_at) + ("" if fact.invalid_at is None else f"/{when(fact.invalid_at)}")


class RecalledFactOut(FactOut):
    """A recalled fact: its relevance (it orders the memories) and, at two hops, the entity the question names
    it was reached through (the share of the question it answers, which min_score compares, is left out as
    from the text line: the model does not need it)."""

    relevance: float
    via: str | None = None

    @classmethod
    def of(cls, fact: Fact, qualifiers: Sequence[str]) -> Self:
        if not isinstance(fact, RecalledFact):
            raise TypeError(f"a recalled fact is needed, not {type(fact).__name__}")
        return cls.model_validate({**cls._fields(fact), "qualifiers": list(qualifiers) or None,
                                   "relevance": round(fact.relevance, 2), "via": fact.entry if fact.hop > 1 else None})


class ObservationOut(BaseModel):
    """Free text recorded about an entity: ``valid`` when what it tells happened or held, if known; ``recorded``
    the day it was recorded (UTC)."""

    id: str
    entity: str
    text: str
    valid: str | None = None
    recorded: str
    source: str | None = None
    qualifiers: list[str] | None = Field(None, description="Warnings to weigh (stored long ago); absent if none.")

    CARRIES: ClassVar[dict[str, tuple[str, ...]]] = {
        "id": ("id",), "entity": ("entity",), "text": ("text",), "valid": ("valid_at",), "recorded": ("recorded_at",),
        "source": ("source",)}
    """The stored fields (``shapes.OBSERVATION``) each field shows."""

    @classmethod
    def of(cls, observation: Observation, qualifiers: Sequence[str]) -> Self:
        return cls.model_validate({**cls._fields(observation), "qualifiers": list(qualifiers) or None})

    @staticmethod
    def _fields(observation: Observation) -> dict[str, Any]:
        return {"id": observation.id, "entity": observation.entity, "text": observation.text,
                "valid": _when(observation.valid_at), "recorded": observation.recorded_at.date().isoformat(),
                "source": observation.source}


class RecalledObservationOut(ObservationOut):
    """A recalled observation, with its relevance (it orders the memories)."""

    relevance: float

    @classmethod
    def of(cls, observation: Observation, qualifiers: Sequence[str]) -> Self:
        if not isinstance(observation, RecalledObservation):
            raise TypeError(f"a recalled observation is needed, not {type(observation).__name__}")
        return cls.model_validate({**cls._fields(observation), "qualifiers": list(qualifiers) or None,
                                   "relevance": round(observation.relevance, 2)})


def _when(value: datetime | None) -> str | None:
    return None if value is None else when(value)


class EntityOut(BaseModel):
    name: str
    score: float
    lexical_rank: int | None = None
    lexical_score: float | None = None
    vector_rank: int | None = None
    vector_score: float | None = None

    @classmethod
    def of(cls, entity: EntryEntity) -> Self:
        return cls.model_validate(entity.model_dump(include=set(cls.model_fields)))


class Listed(BaseModel):
    """A list result, cut to fit the result budget; ``next_cursor`` continues it."""

    total: int = Field(description="How many items the whole answer holds (up to limit).")
    offset: int = Field(description="Position of this page's first item in the whole answer.")
    next_cursor: str | None = Field(None, description="Pass it back with the same arguments for the next page.")


class FactsResult(Listed):
    notice: str
    as_of: str | None = Field(None, description="The facts hold at this time (as given, or when the first page was "
                                                "read); null for histories.")
    known_at: str = Field(description="As the memory believed at this time (as given, or when the first page was "
                                      "read).")
    facts: list[FactOut]


class UsageOut(BaseModel):
    items: int = Field(description="Memories this answer holds.")
    tokens: int = Field(description="Their approximate tokens, as lines of text.")
    ms: float = Field(description="Milliseconds recall took.")
    left_out: int | None = Field(None, description="Memories left out to fit max_tokens, if any.")


class RecallResult(Listed):
    notice: str
    query: str
    as_of: str = Field(description="The facts hold at this time (UTC).")
    known_at: str | None = Field(None, description="As the memory believed at this time, when asked for.")
    skipped: str | None = Field(None, description="Why the memory was not searched (small talk, no content words).")
    abstained: str | None = Field(None, description="Why no memory is returned although some were found: none "
                                                    "answers min_score of the question.")
    entities: list[str] = Field(default_factory=list, description="The entities the question names.")
    memories: list[RecalledFactOut | RecalledObservationOut] = Field(description=(
        "Facts (subject, predicate, object) and observations (entity, text), most relevant first."))
    usage: UsageOut | None = None


class SubgraphResult(Listed):
    notice: str
    as_of: str
    known_at: str
    facts: list[RecalledFactOut]


class SearchResult(Listed):
    notice: str
    entities: list[EntityOut]


class DuplicateOut(BaseModel):
    keep: str = Field(description="The entity to keep.")
    other: str = Field(description="The entity that is probably the same one.")
    score: float = Field(description="0 to 1: how sure, from names, shared neighbours, types and facts.")
    evidence: list[str] = Field(description="Each reason, for (+) or against (-).")
    merge_call: str = Field(description="The call that would merge them, once the user confirms they are one.")


class WriteOut(BaseModel):
    created: int
    confirmed: int
    closed: int
    entities_created: int
    aliases_merged: int
    possible_duplicates: list[DuplicateOut] | None = Field(None, description=(
        "Entities this save created that are probably ones the memory holds already (keep, other, score, evidence, "
        "merge_call): ask the user before merging them."))


class ObservationsOut(BaseModel):
    added: int = Field(description="Observations recorded now.")
    skipped: int = Field(description="Texts the entity held already (or given twice), not recorded again.")
    observations: list[ObservationOut]
    possible_duplicates: list[DuplicateOut] | None = Field(None, description=(
        "The entity this save created is probably one the memory holds already: ask the user before merging."))


class ForgetOut(BaseModel):
    ended: int


class FeedbackOut(BaseModel):
    notice: str
    fact: FactOut


class DigestResult(BaseModel):
    notice: str
    scope: str
    as_of: str
    pinned: list[FactOut] = Field(description="Facts pinned because the user wants them always in mind.")
    about_user: list[FactOut] = Field(description="The most confirmed and most recent facts about the user.")
    entities: list[str] = Field(description="The scope's most connected entities (the user aside).")
    about_entities: list[FactOut] = Field(description="The most confirmed and most recent facts about them.")
    omitted: int = Field(0, description="Facts of the digest left out to fit the result budget (the last ones).")
    changed_since: datetime | None = Field(None, description="When the previous session began (null: none).")
    changed: list[str] = Field(default_factory=list, description=(
        "What changed in the memory since the previous session began, most relevant first."))


class PurgeOut(BaseModel):
    entities: int
    facts: int
    aliases: int


class ReviewOut(BaseModel):
    fact_id: str
    status: Literal["believed", "rejected"]


# -- JSON Schema ----------------------------------------------------------------------------------


def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON Schema (2020-12) without pydantic's titles (a nullable field stays an ``anyOf``: portable)."""
    return _untitled(model.model_json_schema())  # type: ignore[no-any-return]


def _untitled(node: Any) -> Any:
    if isinstance(node, list):
        return [_untitled(item) for item in node]
    if not isinstance(node, dict):
        return node
    # A "title" holding a string is pydantic's label; a property named "title" would hold a schema.
    return {key: _untitled(value) for key, value in node.items() if key != "title" or not isinstance(value, str)}
