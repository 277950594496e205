"""Reading the time a question asks about (rules/asked_time.py): windows, relations, "when" questions."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from synapse_graph.rules.asked_time import AskedTime, Window, asked_time

REF = datetime(2024, 7, 17, 15, 30, tzinfo=UTC)  # a Wednesday


def _days(question: str, reference: datetime = REF) -> list[tuple[date | None, date | None]]:
    return [(w.start.date() if w.start else None, w.end.date() if w.end else None)
            for w in asked_time(question, reference).windows]


@pytest.mark.parametrize(("question", "expected"), [
    ("What did Joanna share with her writers group in August 2022?", (date(2022, 8, 1), date(2022, 9, 1))),
    ("What movie did Nate watch on October 6, 2022?", (date(2022, 10, 6), date(2022, 10, 7))),
    ("What game did he play on 9 October, 2022?", (date(2022, 10, 9), date(2022, 10, 10))),
    ("What book did Tim finish on 8th December, 2023?", (date(2023, 12, 8), date(2023, 12, 9))),
    ("Where was the picture shared on December 1,2023 taken?", (date(2023, 12, 1), date(2023, 12, 2))),
    ("What happened on 2022-05-08?", (date(2022, 5, 8), date(2022, 5, 9))),
    ("Which performances did John achieve in 2023?", (date(2023, 1, 1), date(2024, 1, 1))),
    ("What happened in the summer of 2022?", (date(2022, 6, 1), date(2022, 9, 1))),
    ("Where was John between August 11 and August 15 2023?", (date(2023, 8, 11), date(2023, 8, 16))),
    ("Where was Tim in the week before 16 November 2023?", (date(2023, 11, 9), date(2023, 11, 16))),
    ("What did she bring on the Sunday before October 25, 2022?", (date(2022, 10, 23), date(2022, 10, 24))),
    ("What did we ship before March 2023?", (None, date(2023, 3, 1))),
    ("What changed since 2021?", (date(2021, 1, 1), None)),
    ("Anything after May 2023?", (date(2023, 6, 1), None)),
])
def test_absolute_times_do_not_depend_on_the_reference(question: str, expected: tuple[date | None, date | None]
                                                          ) -> None:
    assert _days(question) == [expected]
    assert _days(question, REF - timedelta(days=900)) == [expected]


@pytest.mark.parametrize(("question", "expected"), [
    ("What did I eat yesterday?", (date(2024, 7, 16), date(2024, 7, 17))),
    ("What is planned today?", (date(2024, 7, 17), date(2024, 7, 18))),
    ("What did we decide last week?", (date(2024, 7, 8), date(2024, 7, 15))),
    ("What is due this month?", (date(2024, 7, 1), date(2024, 8, 1))),
    ("What did she do this year?", (date(2024, 1, 1), date(2025, 1, 1))),
    ("What did he do last weekend?", (date(2024, 7, 13), date(2024, 7, 15))),
    ("What did Tim do 3 days ago?", (date(2024, 7, 14), date(2024, 7, 15))),
    ("What did Dana paint last May?", (date(2024, 5, 1), date(2024, 6, 1))),
    ("What did Dana paint last July?", (date(2023, 7, 1), date(2023, 8, 1))),  # the reference is in July
    ("What happened in September?", (date(2023, 9, 1), date(2023, 10, 1))),  # the latest September so far
    ("What is planned next March?", (date(2025, 3, 1), date(2025, 4, 1))),
    ("Who did I meet before March?", (None, date(2024, 3, 1))),
    ("Where did they travel last summer?", (date(2023, 6, 1), date(2023, 9, 1))),
])
def test_relative_times_count_from_the_reference(question: str, expected: tuple[date | None, date | None]) -> None:
    assert _days(question) == [expected]


def test_the_past_n_units_end_at_the_reference() -> None:
    [window] = asked_time("What did she do in the past 3 months?", REF).windows
    assert window.start == datetime(2024, 4, 17, 15, 30, tzinfo=UTC) and window.end == REF


@pytest.mark.parametrize("question", [
    "What may John do after his basketball career?",  # "may" the verb
    "He scored 2000 points in the game",  # a number, not a year
    "What did Caroline research?",
    "",
])
def test_no_window_where_no_time_is_named(question: str) -> None:
    assert asked_time(question, REF).windows == ()


@pytest.mark.parametrize(("question", "when"), [
    ("When did Caroline go to the LGBTQ support group?", True),
    ("What year did John start surfing?", True),
    ("In which month's game did John score?", True),
    ("How long ago was Caroline's 18th birthday?", True),
    ("Since when has Tim played the piano?", True),
    ("What instruments does Melanie play?", False),
    ("What did Melanie do when it rained?", False),
])
def test_when_questions(question: str, when: bool) -> None:
    assert asked_time(question, REF).asks_when is when


def test_an_impossible_day_is_read_no_finer_than_what_is_certain() -> None:
    assert _days("Is it 30 February 2023 yet?") == [(date(2023, 2, 1), date(2023, 3, 1))]


def test_windows_name_their_words_and_contain_their_instants() -> None:
    found = asked_time("What did Nate make on 9 November, 2022, and what after May 2023?", REF)
    assert [w.phrase for w in found.windows] == ["9 November, 2022", "after May 2023"]
    day, after = found.windows
    assert day.contains(datetime(2022, 11, 9, 23, 59)) and not day.contains(datetime(2022, 11, 10))
    assert after.contains(datetime(2030, 1, 1)) and not after.contains(datetime(2023, 5, 31, tzinfo=UTC))
    assert not found.contains(datetime(2022, 11, 9))  # in every window: none is in both
    assert AskedTime().contains(datetime(1990, 1, 1))


def test_a_naive_reference_is_utc_and_the_default_is_now() -> None:
    assert _days("yesterday?", datetime(2024, 7, 17, 23, 30)) == [(date(2024, 7, 16), date(2024, 7, 17))]
    [window] = asked_time("What happened today?").windows
    assert window.contains(datetime.now(UTC))


_days_since_epoch = st.integers(min_value=0, max_value=(date(2099, 12, 31) - date(1900, 1, 1)).days)


@given(_days_since_epoch, st.sampled_from(["on {d:%d %B, %Y}", "on {d:%B} {d.day}, {d.year}", "{d:%Y-%m-%d}",
                                           "on the {d.day}th of {d:%B} {d.year}"]))
def test_any_written_date_is_read_as_its_day(offset: int, form: str) -> None:
    day = date(1900, 1, 1) + timedelta(days=offset)
    [window] = asked_time(f"What happened {form.format(d=day)}?", REF).windows
    assert window.start == datetime(day.year, day.month, day.day, tzinfo=UTC)
    assert window.end == window.start + timedelta(days=1)


@given(st.datetimes(min_value=datetime(1901, 1, 1), max_value=datetime(2098, 12, 31)),
       st.sampled_from(["this week", "this month", "this year", "today", "in the past 2 weeks"]))
def test_the_present_holds_the_reference(reference: datetime, phrase: str) -> None:
    [window] = asked_time(f"What happened {phrase}?", reference).windows
    at = reference.replace(tzinfo=UTC)
    assert window.start is not None and window.end is not None
    assert window.start <= at and (at < window.end or phrase.startswith("in the past"))


@given(st.datetimes(min_value=datetime(1901, 1, 1), max_value=datetime(2098, 12, 31)),
       st.sampled_from(["January", "March", "May", "August", "December"]), st.sampled_from(["last", "in"]))
def test_a_month_without_a_year_is_the_latest_before_the_reference(reference: datetime, month: str, which: str
                                                                   ) -> None:
    [window] = asked_time(f"What did we do {which} {month}?", reference).windows
    at = reference.replace(tzinfo=UTC)
    assert window.start is not None and window.end is not None
    assert window.start.strftime("%B") == month
    assert window.start <= at and at - window.start < timedelta(days=366 + 31)
    if which == "last":
        assert window.end <= at.replace(day=1, hour=0, minute=0, second=0, microsecond=0)


@given(st.text(max_size=300), st.datetimes(min_value=datetime(1901, 1, 1), max_value=datetime(2098, 12, 31)))
def test_any_text_gives_windows_in_order_or_none(text: str, reference: datetime) -> None:
    found = asked_time(text, reference)
    for window in found.windows:
        assert isinstance(window, Window)
        assert window.start is None or window.end is None or window.start < window.end
