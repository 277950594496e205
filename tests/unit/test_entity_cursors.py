"""The cursor of Memory.entities: it continues after exactly the entity it was made from, and nothing else passes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from synapse_graph import InvalidInputError
from synapse_graph.rules.cursors import entity_cursor, read_entity_cursor

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@given(st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)),
       st.text(min_size=1, max_size=200))
def test_a_cursor_reads_back_as_the_place_it_was_made_from(created_at: datetime, key: str) -> None:
    micros, read_key = read_entity_cursor(entity_cursor(created_at, key))
    assert EPOCH + timedelta(microseconds=micros) == created_at and read_key == key


@pytest.mark.parametrize("cursor", [
    None, 5, "", "e1.", "e1.!!!", "abc", "e2." + entity_cursor(EPOCH, "dana")[3:],
    entity_cursor(EPOCH, "dana") + "A", entity_cursor(EPOCH, "dana")[:-2], "e1." + "QUJD" * 600,
    "e1.bm90LWEtbnVtYmVyOmRhbmE",  # "not-a-number:dana"
    "e1.MTIz",  # "123": no key
])
def test_anything_but_a_cursor_is_refused_with_what_to_do(cursor: object) -> None:
    with pytest.raises(InvalidInputError, match="pass the `next` of the page before"):
        read_entity_cursor(cursor)
