"""What changed (rules/changes.py): a record's timeline is read only where it can change the verdict.

``changed_records.cypher`` reads each record a write names with the records of its own fact believed around
the write (``held``), and the records of its timeline (other values of the same subject and predicate) only for
a record that may have ended or been withdrawn (:func:`_may_be_superseded`, its condition). Over every small
timeline: where it reads no timeline, :func:`judge` gives the verdict the whole timeline gives.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from synapse_graph.models import Fact
from synapse_graph.rules.changes import judge

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


def _may_be_superseded(at: datetime, record: Fact, held: list[Fact]) -> bool:
    """The condition under which changed_records.cypher reads a record's timeline: withdrawn by the write with no
    other interval of its fact created by it, or created by it with an end in place of a record of its fact it
    withdrew that began with it and ended later."""

    def span(m: Fact) -> tuple[Any, ...]:
        return m.valid_at, m.invalid_at, m.status == "candidate"

    created = [m for m in held if m.recorded_at == at and m.expired_at != at]
    before = [m for m in held if m.recorded_at < at]
    removed = record.expired_at == at and record.recorded_at != at and all(
        any(span(o) == span(m) for o in before) for m in created)
    ended = record.recorded_at == at and record.invalid_at is not None and any(
        m.expired_at == at and m.recorded_at != at and m.valid_at == record.valid_at
        and (m.invalid_at is None or m.invalid_at > record.invalid_at) for m in held)
    return removed or ended


@settings(max_examples=1_000, deadline=None)
@given(_timelines())
def test_where_no_timeline_is_read_the_records_own_fact_gives_the_verdict(
        case: tuple[list[Fact], int, int, str]) -> None:
    records, which, day, action = case
    record, at = records[which], _at(day)
    # what changed_records reads for every record: the records of its own fact believed around the write
    held = [m for m in records if m.object == record.object and m.recorded_at <= at
            and (m.expired_at is None or m.expired_at >= at)]
    # and for the others, the timeline's records that changed then or begin where it ends
    changed = [m for m in records if at in (m.recorded_at, m.expired_at) or m.valid_at == record.invalid_at]
    full = judge(at, action, record, list({m.id: m for m in changed + held}.values()))
    if full is not None and full.kind in ("ended", "removed"):
        assert _may_be_superseded(at, record, held)
    else:
        assert judge(at, action, record, held) == full


def test_only_a_record_cut_short_or_withdrawn_reads_its_timeline() -> None:
    paris = Fact(id="r1", subject="Dana", predicate="LIVES_IN", object="Paris", valid_at=_at(0), recorded_at=_at(0),
                 confidence=1.0, confirmations=1)
    cut = paris.model_copy(update={"id": "r2", "invalid_at": _at(2), "recorded_at": _at(1)})
    withdrawn = paris.model_copy(update={"expired_at": _at(1)})
    assert not _may_be_superseded(_at(0), paris, [paris])  # added
    assert _may_be_superseded(_at(1), cut, [withdrawn, cut])  # ended: what began where it ends?
    assert _may_be_superseded(_at(1), withdrawn, [withdrawn])  # removed: what began in its place?
    assert not _may_be_superseded(_at(1), withdrawn, [withdrawn, cut])  # cut short: the record cut says it
    assert not _may_be_superseded(_at(1), cut.model_copy(update={"invalid_at": None}), [cut])  # no end, none cut


def test_a_write_stores_the_verdicts_it_knows_and_leaves_the_others_to_be_judged_when_read() -> None:
    from dataclasses import replace

    from synapse_graph.rules.changes import Stored, events, stored_events, verdicts
    from synapse_graph.rules.timeline import Record

    def record(rid: str, obj: str, recorded: int, expired: int | None = None, end: int | None = None,
               start: int = 0) -> Record:
        return Record(id=rid, subject="dana", predicate="LIVES_IN", object=obj, valid_at=start, invalid_at=end,
                      recorded_at=recorded, expired_at=expired, confidence=1.0, confirmations=1)

    paris, cut, london = record("p1", "paris", 5), record("p2", "paris", 9, end=7), record("l1", "london", 9, start=7)
    rome = replace(record("r1", "rome", 9), subject="eli")
    detail = {"created": ["p2", "l1", "r1"], "expired": ["p1"]}
    # Without the timeline: Paris cut short and withdrawn are judged when read; London and Eli's Rome are added.
    stored = verdicts("upsert", 9, detail, [cut, london, rome], [paris])
    assert stored == {"verdicts": "?aa?", "verdict_records": ["p2", "l1", "r1", "p1"]}
    assert [e for e, _ in stored_events(stored)] == events("upsert", detail)
    # Dana's timeline read whole from 7 on: Paris ended, superseded by London; the withdrawn Paris is no change.
    stored = verdicts("upsert", 9, detail, [cut, london, rome], [paris], {"p1": paris}, {("dana", "LIVES_IN"): 7})
    assert stored["verdicts"] == "eaax" and stored["verdict_before"] == ["p1", "", "", "p2"]
    assert (stored["verdict_by"][0], stored["verdict_why"][0]) == ("l1", "superseded")
    assert stored_events(stored)[0][1] == Stored("e", ("p1",), "l1", "superseded")
    # read from after Paris's new end (what began there may not have been read): judged when read
    assert verdicts("upsert", 9, detail, [cut, london, rome], [paris], {"p1": paris},
                    {("dana", "LIVES_IN"): 8})["verdicts"] == "?aa?"
    # Recorded at another instant (a merge moved it, a correction known earlier), or created withdrawn: judged.
    assert verdicts("upsert", 9, {"created": ["l1"]}, [record("l1", "london", 8)], []) == {}
    assert verdicts("upsert", 9, {"created": ["l1"]}, [record("l1", "london", 9, 9)], []) == {}
    # A feedback is one; an update that is no change (a confirmation) is none.
    feedback = verdicts("feedback:wrong", 9, {"updated": [{"id": "l1"}]}, [], [])
    assert stored_events(feedback) == [(events("feedback:wrong", {"updated": [{"id": "l1"}]})[0], Stored("f"))]
    assert verdicts("upsert", 9, {"created": ["r1"], "updated": [{"id": "l1"}]}, [rome], [])["verdicts"] == "a-"
    # Entries whose events are read from their detail store nothing: merges, observations, rejections, imports.
    assert verdicts("alias", 9, {"created": ["l1"], "entities_merged": [{"from": "d", "into": "dana"}]},
                    [london], []) == {}
    assert verdicts("upsert", 9, {"created": ["l1"], "observed": ["o1"]}, [london], []) == {}
    assert verdicts("reject", 9, {"expired": ["l1"]}, [], [london]) == {}
    assert verdicts("import", 9, {"created": ["l1"]}, [london], []) == {}


def test_an_erasure_keeps_the_verdicts_of_the_events_left_naming_no_erased_record() -> None:
    from synapse_graph.rules.changes import erased_verdicts, events, stored_events

    # what the write of Paris cut short, London and Eli's Rome stored (the test above), detail as there
    stored = {"verdicts": "eaax", "verdict_records": ["p2", "l1", "r1", "p1"],
              "verdict_before": ["p1", "", "", "p2"], "verdict_by": ["l1", "", "", ""],
              "verdict_why": ["superseded", "", "", ""]}
    # Eli's Rome erased: the others' verdicts stay as the write stored them.
    left = {"created": ["p2", "l1"], "expired": ["p1"]}
    kept = erased_verdicts("upsert", left, stored, frozenset({"eli", "r1"}))
    assert kept == {"verdicts": "eax", "verdict_records": ["p2", "l1", "p1"], "verdict_before": ["p1", "", "p2"],
                    "verdict_by": ["l1", "", ""], "verdict_why": ["superseded", "", ""]}
    assert [e for e, _ in stored_events(kept)] == events("upsert", left)
    # London erased: Paris ended, superseded by nothing the log names; retracted if the write was a retraction.
    left = {"created": ["p2", "r1"], "expired": ["p1"]}
    kept = erased_verdicts("upsert", left, stored, frozenset({"london", "l1"}))
    assert (kept["verdicts"], kept["verdict_by"], kept["verdict_why"]) == ("eax", ["", "", ""], ["", "", ""])
    assert erased_verdicts("retract", left, stored, frozenset({"l1"}))["verdict_why"][0] == "retracted"
    # Nothing stored, an event it stored nothing of, or only events to judge left: judged when read.
    assert erased_verdicts("upsert", left, {"verdicts": None, "verdict_records": None}, frozenset({"l1"})) == {}
    assert erased_verdicts("upsert", {"created": ["p2", "z9"]}, stored, frozenset({"l1"})) == {}
    judged = {"verdicts": "?a", "verdict_records": ["p2", "r1"]}
    assert erased_verdicts("upsert", {"created": ["p2"]}, judged, frozenset({"eli", "r1"})) == {}
