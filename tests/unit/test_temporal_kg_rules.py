"""The temporal-KG benchmark's pure rules: dates -> intervals, names, predicates, the oracle."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from benchmarks.temporal_kg import (
    KINDS,
    MICROSECOND,
    DatedFact,
    Oracle,
    Period,
    Reject,
    Rejected,
    entity_name,
    fact_interval,
    holds,
    make_questions,
    merge_spans,
    parse_line,
    parse_period,
    predicate_name,
    unique_names,
    unique_predicates,
)
from synapse_graph.rules.predicates import check_predicate
from synapse_graph.rules.text import clean_name


def utc(year: int, month: int = 1, day: int = 1) -> datetime:
    return datetime(year, month, day, tzinfo=UTC)


# -- dates ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "period"),
    [
        ("2005-##-##", Period(utc(2005), utc(2006))),
        ("2005-03-##", Period(utc(2005, 3), utc(2005, 4))),
        ("2005-12-##", Period(utc(2005, 12), utc(2006))),
        ("2005-03-07", Period(utc(2005, 3, 7), utc(2005, 3, 8))),
        ("2004-02-29", Period(utc(2004, 2, 29), utc(2004, 3, 1))),
        ("2005-12-31", Period(utc(2005, 12, 31), utc(2006))),
        ("97-##-##", Period(utc(97), utc(98))),
        ("1-##-##", Period(utc(1), utc(2))),
        ("9998-##-##", Period(utc(9998), utc(9999))),
    ],
)
def test_a_date_is_the_period_of_its_precision(text: str, period: Period) -> None:
    assert parse_period(text) == period


def test_an_unknown_year_is_an_unknown_date() -> None:
    assert parse_period("####-##-##") is None


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("-405-##-##", Reject.BCE_YEAR),
        ("19##-##-##", Reject.IMPRECISE_YEAR),
        ("195#-##-##", Reject.IMPRECISE_YEAR),
        ("307-13047-09", Reject.MALFORMED_DATE),
        ("1963-64-65", Reject.MALFORMED_DATE),
        ("2001-02-29", Reject.MALFORMED_DATE),
        ("2001-00-##", Reject.MALFORMED_DATE),
        ("2001-1#-##", Reject.MALFORMED_DATE),
        ("2001-##-05", Reject.MALFORMED_DATE),
        ("2001-05-3#", Reject.MALFORMED_DATE),
        ("2001", Reject.MALFORMED_DATE),
        ("", Reject.MALFORMED_DATE),
        ("0-##-##", Reject.YEAR_OUT_OF_RANGE),
        ("9999-##-##", Reject.YEAR_OUT_OF_RANGE),
        ("12345-##-##", Reject.YEAR_OUT_OF_RANGE),
    ],
)
def test_unusable_dates_are_rejected_with_a_reason(text: str, reason: Reject) -> None:
    with pytest.raises(Rejected) as caught:
        parse_period(text)
    assert caught.value.reason is reason


# -- intervals -------------------------------------------------------------------------------------------


def test_the_end_date_is_inclusive_so_the_interval_runs_to_the_end_of_its_period() -> None:
    assert fact_interval("2006-##-##", "2007-##-##") == (utc(2006), utc(2008))
    assert fact_interval("2006-05-03", "2007-01-02") == (utc(2006, 5, 3), utc(2007, 1, 3))
    assert fact_interval("2006-##-##", "2006-03-##") == (utc(2006), utc(2006, 4))


def test_an_event_lasts_one_period() -> None:
    assert fact_interval("2012-##-##", "2012-##-##") == (utc(2012), utc(2013))
    assert fact_interval("1952-06-21", "1952-06-21") == (utc(1952, 6, 21), utc(1952, 6, 22))


def test_an_end_period_that_overlaps_a_later_start_still_counts() -> None:
    assert fact_interval("2005-06-01", "2005-##-##") == (utc(2005, 6, 1), utc(2006))


def test_an_unknown_end_is_open_or_the_start_period_by_policy() -> None:
    assert fact_interval("1986-##-##", "####-##-##") == (utc(1986), None)
    assert fact_interval("1986-##-##", "####-##-##", "start-period") == (utc(1986), utc(1987))
    assert fact_interval("1986-04-##", "####-##-##", "start-period") == (utc(1986, 4), utc(1986, 5))


@pytest.mark.parametrize(
    ("start", "end", "reason"),
    [
        ("####-##-##", "2001-##-##", Reject.UNKNOWN_START),
        ("####-##-##", "####-##-##", Reject.UNKNOWN_START),
        ("2014-##-##", "2007-##-##", Reject.END_BEFORE_START),
        ("2005-03-07", "2005-03-06", Reject.END_BEFORE_START),
        ("####-##-##", "-405-##-##", Reject.BCE_YEAR),  # a bad date is reported before an unknown start
        ("17##-##-##", "18##-##-##", Reject.IMPRECISE_YEAR),
        ("307-13047-09", "978-##-##", Reject.MALFORMED_DATE),
    ],
)
def test_unusable_intervals_are_rejected_with_a_reason(start: str, end: str, reason: Reject) -> None:
    with pytest.raises(Rejected) as caught:
        fact_interval(start, end)
    assert caught.value.reason is reason


def test_validity_is_half_open() -> None:
    span = (utc(2006), utc(2008))
    assert holds(span, utc(2006))
    assert holds(span, utc(2008) - MICROSECOND)
    assert not holds(span, utc(2008))
    assert not holds(span, utc(2006) - MICROSECOND)
    assert holds((utc(2006), None), utc(9999, 12, 31))


def test_overlapping_and_touching_intervals_merge_and_apart_ones_do_not() -> None:
    spans = [(utc(2010), utc(2012)), (utc(2001), utc(2003)), (utc(2002), utc(2004)), (utc(2004), utc(2005))]
    assert merge_spans(spans) == [(utc(2001), utc(2005)), (utc(2010), utc(2012))]
    assert merge_spans([(utc(2001), utc(2003)), (utc(2002), None), (utc(2010), utc(2011))]) == [(utc(2001), None)]
    assert merge_spans([(utc(2001), utc(2010)), (utc(2002), utc(2003))]) == [(utc(2001), utc(2010))]


# -- names and predicates ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("<Barack_Obama>", "Barack Obama"),
        ("<Athletic_Park_(Vancouver)>", "Athletic Park (Vancouver)"),
        ("<Don_\\u0022Red\\u0022_Barry>", 'Don "Red" Barry'),
        ("<10\\u005e16_to_1>", "10^16 to 1"),
        ("<Emoji_\\ud83d\\ude00>", "Emoji \U0001f600"),
        ("<Fortuna_Düsseldorf>", "Fortuna Düsseldorf"),
        ("<Cafe\u0301__Society>", "Caf\u00e9 Society"),
        ("Q202735", "Q202735"),
    ],
)
def test_entity_names_are_cleaned(raw: str, name: str) -> None:
    assert entity_name(raw) == name
    assert clean_name(name) == name  # the library stores the name exactly as the loader made it


def test_names_that_would_merge_into_one_entity_get_their_id() -> None:
    names = unique_names({"1": "Paris", "2": "PARIS", "3": "London", "4": "Me", "5": "Paris (#2)"})
    assert names == {"1": "Paris (#1)", "2": "PARIS (#2) (#2)", "3": "London", "4": "Me (#4)", "5": "Paris (#2) (#5)"}
    assert len({name.casefold() for name in names.values()}) == len(names)


@pytest.mark.parametrize(
    ("label", "predicate"),
    [
        ("member of sports team", "MEMBER_OF_SPORTS_TEAM"),
        ("<playsFor>", "PLAYS_FOR"),
        ("<wasBornIn>", "WAS_BORN_IN"),
        ("<isAffiliatedTo>", "IS_AFFILIATED_TO"),
        ("IMA status and/or rank", "IMA_STATUS_AND_OR_RANK"),
        ("located in the administrative territorial entity", "LOCATED_IN_THE_ADMINISTRATIVE_TERRITORIAL_ENTITY"),
        ("Señal émise", "SENAL_EMISE"),
        ("2nd place", "REL_2ND_PLACE"),
        ("same as", "SAME_AS_RELATION"),
        ("???", "RELATION"),
        ("a" * 70, "A" * 64),
        ("word " * 20, "_".join(["WORD"] * 13)),  # 64 characters
    ],
)
def test_relation_labels_become_valid_predicates(label: str, predicate: str) -> None:
    assert predicate_name(label) == predicate
    assert check_predicate(predicate) == predicate


def test_relations_with_one_predicate_get_their_id() -> None:
    assert unique_predicates({"P1": "member of", "P2": "Member-Of", "P3": "spouse"}) == {
        "P1": "MEMBER_OF_P1",
        "P2": "MEMBER_OF_P2",
        "P3": "SPOUSE",
    }


def test_a_line_becomes_a_fact_or_a_counted_rejection() -> None:
    entities = {"1": "Dana", "2": "Acme", "3": "x" * 121}
    predicates = {"0": "WORKS_AT"}
    fact = parse_line("1\t0\t2\t2001-##-##\t2003-##-##", entities, predicates, "t:1", "open")
    assert fact == DatedFact("Dana", "WORKS_AT", "Acme", utc(2001), utc(2004), "t:1")
    for line, reason in [
        ("1\t0\t2\t2001-##-##", Reject.MALFORMED_LINE),
        ("1\t0\t9\t2001-##-##\t2003-##-##", Reject.UNKNOWN_ID),
        ("1\t7\t2\t2001-##-##\t2003-##-##", Reject.UNKNOWN_ID),
        ("1\t0\t3\t2001-##-##\t2003-##-##", Reject.NAME_TOO_LONG),
    ]:
        with pytest.raises(Rejected) as caught:
            parse_line(line, entities, predicates, "t:2", "open")
        assert caught.value.reason is reason


# -- the oracle and the questions ---------------------------------------------------------------------------


def fact(obj: str, start: datetime, end: datetime | None) -> DatedFact:
    return DatedFact("Dana", "PLAYS_FOR", obj, start, end, "test")


def test_the_oracle_unites_intervals_and_reads_them_half_open() -> None:
    oracle = Oracle(
        [
            fact("Ajax", utc(2001), utc(2003)),
            fact("Ajax", utc(2003), utc(2004)),  # touches: one interval
            fact("Ajax", utc(2008), None),
            fact("PSV", utc(2002), utc(2009)),
        ]
    )
    assert oracle.history("Dana", "PLAYS_FOR") == [
        ("Ajax", utc(2001), utc(2004)),
        ("Ajax", utc(2008), None),
        ("PSV", utc(2002), utc(2009)),
    ]
    assert oracle.answer("Dana", "PLAYS_FOR", utc(2003)) == {"Ajax", "PSV"}
    assert oracle.answer("Dana", "PLAYS_FOR", utc(2004)) == {"PSV"}
    assert oracle.answer("Dana", "PLAYS_FOR", utc(2009)) == {"Ajax"}
    assert oracle.answer("Dana", "PLAYS_FOR", utc(2001) - MICROSECOND) == set()
    assert oracle.answer("Dana", "LIVES_IN", utc(2003)) == set()
    assert oracle.record_count() == 3


def test_questions_are_deterministic_and_cover_every_kind() -> None:
    oracle = Oracle([fact("Ajax", utc(2001), utc(2004)), fact("Ajax", utc(2008), None), fact("PSV", utc(2002), None)])
    questions = make_questions(oracle, 50, seed=7)
    assert questions == make_questions(oracle, 50, seed=7)
    assert {q.kind for q in questions} == set(KINDS)
    spans = {(utc(2001), utc(2004)), (utc(2008), None), (utc(2002), None)}
    for question in questions:
        if question.kind == "at_start":
            assert question.as_of in {start for start, _ in spans}
        elif question.kind == "at_end":
            assert question.as_of == utc(2004)
            assert "Ajax" not in oracle.answer("Dana", "PLAYS_FOR", question.as_of)
        elif question.kind == "before_start":
            assert question.as_of + MICROSECOND in {start for start, _ in spans}
        elif question.kind == "gap":
            assert utc(2004) <= question.as_of < utc(2008)
            assert oracle.answer("Dana", "PLAYS_FOR", question.as_of) == {"PSV"}
