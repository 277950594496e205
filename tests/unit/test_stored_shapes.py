"""What a store keeps once: record ids, an audit entry's record ids, a believed record's state; what it
leaves out: a full confidence, a single confirmation."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from synapse_graph.engine.inputs import fact_id
from synapse_graph.rules.timeline import new_record_id
from synapse_graph.rules.trust import logged_facts, stored_facts
from synapse_graph.shapes import FACT, field, read, stored

ids = st.text("abcdef0123456789", min_size=1, max_size=8)


def test_record_ids_are_25_lowercase_letters_and_digits_and_do_not_repeat() -> None:
    made = [new_record_id() for _ in range(20_000)]
    assert len(set(made)) == len(made)
    assert all(len(i) == 25 and i.isalnum() and i == i.lower() and fact_id(i) == i for i in made)
    # 128 random bits: every digit position takes many values (not a counter, not a fixed prefix).
    assert all(len({i[k] for i in made}) == 36 for k in range(24))


@given(created=st.lists(ids), expired=st.lists(ids), updated=st.lists(ids))
def test_a_writes_entry_stores_no_id_list_and_reads_back_the_ids_its_detail_names(
        created: list[str], expired: list[str], updated: list[str]) -> None:
    detail = {"created": created, "expired": expired,
              "updated": [{"id": i, "before": None, "after": {"confidence": 1.0}} for i in updated]}
    named = created + expired + updated
    assert stored_facts(named, detail) is None
    assert logged_facts(detail) == sorted(set(named))


@given(facts=st.lists(ids), created=st.lists(ids))
def test_an_entry_whose_list_says_more_than_its_detail_keeps_its_list(facts: list[str], created: list[str]) -> None:
    detail = {"created": created, "observed": ["o1"], "note": "imported"}
    kept = stored_facts(facts, detail)
    read_back = logged_facts(detail) if kept is None else kept
    assert read_back == sorted(set(facts))


def test_an_entry_detail_of_another_shape_names_no_records() -> None:
    assert logged_facts({"created": "abc", "updated": ["x", {"id": 3}], "expired": [None, "e1"]}) == ["e1"]


def test_only_a_state_other_than_believed_is_stored() -> None:
    status = field(FACT, "status")
    assert stored(status, "believed") is None
    assert stored(status, "candidate") == "candidate"
    assert stored(status, "disputed") == "disputed"
    assert read(status, None) == "believed"


@given(st.floats(min_value=0.0, max_value=1.0))
def test_only_a_confidence_below_full_is_stored_and_it_is_stored_exactly(confidence: float) -> None:
    assert stored(field(FACT, "confidence"), confidence) == (None if confidence == 1.0 else confidence)


@given(st.integers(min_value=1, max_value=10**9))
def test_only_a_record_confirmed_more_than_once_stores_its_count(confirmations: int) -> None:
    kept = stored(field(FACT, "confirmations"), confirmations)
    assert kept == (None if confirmations == 1 else confirmations)
    assert read(field(FACT, "confirmations"), kept) == confirmations


def test_record_ids_drawn_ahead_are_never_shared_by_threads_or_a_forked_child() -> None:
    import os
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(4) as pool:
        made = [i for ids in pool.map(lambda _: [new_record_id() for _ in range(5_000)], range(4)) for i in ids]
    assert len(set(made)) == len(made)
    new_record_id()  # this process has digits drawn ahead
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child
        os.write(write, new_record_id().encode())
        os._exit(0)
    os.waitpid(child, 0)
    assert os.read(read, 25).decode() != new_record_id()
