"""The tools' arguments and results as pydantic models, and the JSON Schemas published for them.

Argument models forbid unknown fields, so a misspelt argument (``valid_from``) is refused by
name instead of being ignored. Times stay strings: they reach :class:`~synapse_graph.Memory`
unparsed and go through the library's own time parser, like every other caller's.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field

from synapse_graph.models import EntryEntity, Fact

_TIME = ("ISO-8601, e.g. 2024-03-01 or 2024-03-01T09:30:00Z (other unambiguous forms such as 'March 5 2024' "
         "work too; UTC when no offset is given)")
Time = Annotated[str | None, Field(description=_TIME)]
Name = Annotated[str, Field(min_length=1, description="An entity name as the user says it, e.g. 'Dana' or 'Acme'.")]
Predicate = Annotated[str, Field(min_length=1, description="The relation in UPPER_SNAKE_CASE, e.g. LIVES_IN.")]
Hops = Annotated[Literal[1, 2], Field(description="1: facts touching the entities; 2: also their neighbours' facts.")]
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


class RecallArgs(Arguments):
    query: str = Field(min_length=1, max_length=4000, description="The question or topic, in words.")
    as_of: Time = Field(None, description="Facts valid at this time (default now).")
    known_at: Time = Field(None, description="As the memory believed at this time (default now).")
    hops: Hops = 1
    limit: int = _limit(25, 200)
    min_score: float | None = Field(None, ge=0.0, le=1.0, description=(
        "Leave facts scoring below this relevance out. Not available in this version yet: leave it unset."))
    cursor: Cursor = None


class QueryFactsArgs(Arguments):
    subject: str | None = Field(None, min_length=1, description="Only facts of this subject.")
    predicate: str | None = Field(None, min_length=1, description="Only this relation (UPPER_SNAKE_CASE).")
    object: str | None = Field(None, min_length=1, description="Only facts pointing at this entity.")
    as_of: Time = Field(None, description="Facts valid at this time (default now).")
    known_at: Time = Field(None, description="As the memory believed at this time (default now).")
    limit: int = _limit(100, 1000)
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
    """Arguments of ``memory_digest`` (published once the library's ``Memory.digest`` exists)."""

    limit: int = _limit(20, 200)


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
    """One fact record. Validity is half-open: [valid_at, invalid_at); invalid_at null: still holds."""

    id: str
    subject: str
    predicate: str
    object: str
    valid_at: datetime
    invalid_at: datetime | None = None
    recorded_at: datetime
    expired_at: datetime | None = None
    confidence: float
    confirmations: int
    status: str = "believed"
    source: str | None = None
    flag: str | None = None

    @classmethod
    def of(cls, fact: Fact) -> Self:
        return cls.model_validate(fact.model_dump(include=set(cls.model_fields)))


class RecalledFactOut(FactOut):
    """A recalled fact, with the hop it was found at, the entry entity it was reached from, its relevance."""

    hop: int
    entry: str
    relevance: float


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


class RecallResult(Listed):
    notice: str
    query: str
    as_of: datetime
    known_at: str
    skipped: str | None = Field(None, description="Why the memory was not searched (small talk, no content words).")
    entities: list[EntityOut]
    facts: list[RecalledFactOut]


class SubgraphResult(Listed):
    notice: str
    as_of: str
    known_at: str
    facts: list[RecalledFactOut]


class SearchResult(Listed):
    notice: str
    entities: list[EntityOut]


class WriteOut(BaseModel):
    created: int
    confirmed: int
    closed: int
    entities_created: int
    aliases_merged: int


class ForgetOut(BaseModel):
    ended: int


class FeedbackOut(BaseModel):
    notice: str
    fact: FactOut


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
