"""What changed (rules/changes.py): a record's timeline is read only for the verdicts that need it.

``changes`` reads each record a write names with the records of its own fact believed around the write
(``held``), and the records of its timeline (other values of the same subject and predicate) only when
:func:`needs_timeline` says so. Over every small timeline: a verdict it does not send on is the one the whole
timeline gives, and one it sends on keeps its kind and the beliefs it replaced.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from synapse_graph.models import Fact
from synapse_graph.rules.changes import judge, needs_timeline

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def _at(n: int) -> datetime:
    return T0 + timedelta(days=n)


@st.composite
def _record(draw: st.DrawFn, i: int) -> Fact:
    start, recorded = draw(st.integers(0, 2)), draw(st.integers(0, 2))
    end = draw(st.none() | st.integers(start + 1, 3))
    expired = draw(st.none() | st.integers(recorded, 2))
    return Fact(id=f"r{i}", subject="Dana", predicate="LIVES_IN", object=draw(st.sampled_from(["Paris", "London"])),
                valid_at=_at(start), invalid_at=None if end is None else _at(end), recorded_at=_at(recorded),
                expired_at=None if expired is None else _at(expired), confidence=1.0, confirmations=1,
                status=draw(st.sampled_from(["believed", "candidate"])))


def _supersession(draw: st.DrawFn, first: int) -> list[Fact]:
    """A value cut short by a write (withdrawn, put back with an end) and the value that began there, recorded by
    that write or before it: the case a timeline's records decide (superseded)."""
    start, day = draw(st.integers(0, 1)), draw(st.integers(1, 2))
    cut, since = draw(st.integers(start + 1, 3)), draw(st.integers(0, day))
    old, new = draw(st.permutations(["Paris", "London"]))
    kept = Fact(id=f"r{first}", subject="Dana", predicate="LIVES_IN", object=old, valid_at=_at(start),
                recorded_at=_at(day - 1), expired_at=_at(day), confidence=1.0, confirmations=1)
    return [kept, kept.model_copy(update={"id": f"r{first + 1}", "invalid_at": _at(cut), "recorded_at": _at(day),
                                          "expired_at": None}),
            kept.model_copy(update={"id": f"r{first + 2}", "object": new, "valid_at": _at(cut),
                                    "recorded_at": _at(since), "expired_at": None})]


@st.composite
def _timelines(draw: st.DrawFn) -> tuple[list[Fact], int, int, str]:
    size = draw(st.integers(1, 6))
    records = [draw(_record(i)) for i in range(size)]
    if draw(st.booleans()):
        records += _supersession(draw, len(records))
        size = len(records)
    which = draw(st.integers(0, size - 1))
    # mostly a write that created or withdrew the record, as the ones an audit entry names
    times = [records[which].recorded_at, records[which].expired_at or records[which].recorded_at]
    day = draw(st.sampled_from([(t - T0).days for t in times]) | st.integers(0, 3))
    return records, which, day, draw(st.sampled_from(["upsert", "retract", "approve", "reject"]))


@settings(max_examples=1_000, deadline=None)
@given(_timelines())
def test_a_verdict_of_the_records_own_fact_is_the_timelines_unless_it_needs_the_timeline(
        case: tuple[list[Fact], int, int, str]) -> None:
    records, which, day, action = case
    record, at = records[which], _at(day)
    # what changed_records reads: the records of its own fact believed around the write
    held = [m for m in records if m.object == record.object and m.recorded_at <= at
            and (m.expired_at is None or m.expired_at >= at)]
    # what changed_timelines adds: the timeline's records that changed then or begin where it ends
    changed = [m for m in records if at in (m.recorded_at, m.expired_at) or m.valid_at == record.invalid_at]
    whole = list({m.id: m for m in changed + held}.values())
    first, full = judge(at, action, record, held), judge(at, action, record, whole)
    if not needs_timeline(first):
        assert first == full
    else:
        assert first is not None and full is not None
        assert (full.kind, full.before) == (first.kind, first.before)


def test_only_an_ended_or_withdrawn_record_needs_its_timeline() -> None:
    paris = Fact(id="r1", subject="Dana", predicate="LIVES_IN", object="Paris", valid_at=_at(0), recorded_at=_at(0),
                 confidence=1.0, confirmations=1)
    cut = paris.model_copy(update={"id": "r2", "invalid_at": _at(2), "recorded_at": _at(1)})
    withdrawn = paris.model_copy(update={"expired_at": _at(1)})
    assert not needs_timeline(judge(_at(0), "upsert", paris, [paris]))  # added
    assert needs_timeline(judge(_at(1), "upsert", cut, [withdrawn, cut]))  # ended
    assert not needs_timeline(judge(_at(1), "upsert", withdrawn, [withdrawn, cut]))  # said by the record cut
    assert needs_timeline(judge(_at(1), "retract", withdrawn, [withdrawn]))  # removed
    assert not needs_timeline(judge(_at(1), "reject", withdrawn, [withdrawn]))  # rejected
