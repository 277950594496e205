"""A wall clock that steps back (NTP, a VM restored, a writer whose clock runs ahead of a reader's)
must not hide writes: every write that returned is seen by the reads that follow, whatever the clock.

Belief time never goes backwards for writes (a scope's writes are stamped no earlier than its
last one), and reads ask about "now" no earlier than the scope's last write
(``cypher/fragments/read_clock.cypher``). The library's clock is
``synapse_graph.rules.timeparse.now_micros``; the test moves it where the library imported it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import timedelta

import pytest

from synapse_graph import Memory, Triple
from synapse_graph.rules import timeparse
from tests.integration.helpers import utc

pytestmark = pytest.mark.integration

HOUR_US = 3_600 * 10**6


class Clock:
    """The library's wall clock, moved by an offset."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        real = timeparse.now_micros
        self.offset = 0

        def now_micros() -> int:
            return real() + self.offset

        users = [m for name, m in list(sys.modules.items())
                 if name.startswith("synapse_graph") and getattr(m, "now_micros", None) is real]
        assert len(users) > 3, "the library's clock is not read where this test expects it"
        for module in users:
            monkeypatch.setattr(module, "now_micros", now_micros)

    def set(self, hours: float) -> None:
        self.offset = int(hours * HOUR_US)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    return Clock(monkeypatch)


def test_writes_made_while_the_clock_ran_ahead_are_seen_after_it_steps_back(
        make_memory: Callable[..., Memory], clock: Clock) -> None:
    memory = make_memory()
    memory.upsert(Triple(subject="Dana", predicate="KNOWS", object="Bob", valid_at="2019-01-01"))  # before

    clock.set(+3)  # a writer whose clock runs three hours ahead
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris"))  # valid from its "now"
    memory.upsert(Triple(subject="Dana", predicate="WORKS_AT", object="Acme", valid_at="2020-01-01"))
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="London"))  # closes Paris at its "now"
    memory.upsert(Triple(subject="Dana", predicate="USES", object="vim"))
    memory.retract("Dana", "USES", "vim")  # ended at its "now"
    memory.alias("Dana", "Dee")

    clock.set(-24)  # then the clock steps back, a day behind the real time
    now = {("Dana", "KNOWS", "Bob"), ("Dana", "LIVES_IN", "London"), ("Dana", "WORKS_AT", "Acme")}
    assert {(f.subject, f.predicate, f.object) for f in memory.facts("Dana")} == now
    assert {(f.subject, f.predicate, f.object) for f in memory.facts("Dee")} == now
    assert {(f.subject, f.predicate, f.object) for f in memory.facts(predicate="LIVES_IN")} == {
        ("Dana", "LIVES_IN", "London")}
    history = memory.history("Dana", "LIVES_IN")
    assert [f.object for f in history] == ["Paris", "London"]
    assert history[0].invalid_at == history[1].valid_at and history[1].invalid_at is None
    assert history[1].valid_at > utc("2020-01-01")
    assert {(f.predicate, f.object) for f in memory.neighbourhood("Dana")} == {(p, o) for _, p, o in now}
    recalled = memory.recall("Where does Dana live?")
    assert {(f.predicate, f.object) for f in recalled.facts if f.subject == "Dana"} == {(p, o) for _, p, o in now}
    stats = memory.stats()
    assert (stats.facts, stats.valid_now) == (5, 3)  # Bob, Paris (closed), London, Acme, vim (ended); 3 hold now

    # A write made with the clock behind still goes after the ones made ahead (belief time never goes
    # back), and is seen at once too.
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Rome"))
    assert [f.object for f in memory.facts("Dana", "LIVES_IN")] == ["Rome"]
    assert [f.object for f in memory.history("Dana", "LIVES_IN")] == ["Paris", "London", "Rome"]
    assert memory.history("Dana", "LIVES_IN")[2].recorded_at > history[1].recorded_at


def test_a_reader_whose_clock_is_behind_sees_a_writer_whose_clock_is_ahead(
        make_memory: Callable[..., Memory], clock: Clock) -> None:
    writer = make_memory()
    reader = make_memory(scope=writer.scope)
    clock.set(+1)
    writer.upsert([Triple(subject="Ann", predicate="LIVES_IN", object="Oslo"),
                   Triple(subject="Ann", predicate="LIKES", object="skiing")])
    clock.set(-1)
    assert {f.object for f in reader.facts("Ann")} == {"Oslo", "skiing"}
    assert reader.stats().valid_now == 2
    assert [f.object for f in reader.history("Ann", "LIVES_IN")] == ["Oslo"]
    # Explicit times still mean what they say: an hour before the write, Ann lived nowhere known.
    before = reader.history("Ann", "LIVES_IN")[0].valid_at - timedelta(hours=1)
    assert reader.facts("Ann", "LIVES_IN", as_of=before) == []


def test_recall_names_the_instant_its_facts_hold_at(make_memory: Callable[..., Memory], clock: Clock) -> None:
    memory = make_memory()
    clock.set(+3)
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris"))
    clock.set(-24)
    recalled = memory.recall("Where does Dana live?")
    [fact] = [f for f in recalled.facts if f.predicate == "LIVES_IN"]
    assert fact.valid_at <= recalled.as_of
