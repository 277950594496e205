"""The time a question asks about, read without a model: dates, months, years, seasons and relative phrases.

``asked_time("What did Dana paint last May?", reference_time=...)`` gives the window ``[May 1, June 1)`` of the
last May before the reference month, and ``asks_when`` tells a "when" question ("When did ...", "What year
...", "How long ago ...") that prefers memories carrying a time. Relative phrases ("yesterday", "last week",
"3 days ago", "this year") count from ``reference_time`` (default: now); a month or season without a year is
the most recent one at or before it ("in May"), or strictly before its own month or season ("last May").
"before", "after", "since", "until", "between ... and ...", "the week before ..." bound the window by the
expression they govern. Windows are ``[start, end)`` in UTC; ``None`` is an open end. Nothing is guessed
where a reading is not certain: "May" is a month only beside a day, a year or a word like "in" or "last".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from dateutil.relativedelta import relativedelta

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
_MONTH_NUMBER = {**{m: n for n, m in enumerate(MONTHS, 1)}, **{m[:3]: n for n, m in enumerate(MONTHS, 1)},
                 "sept": 9}
_MONTH = r"(?P<{0}>january|february|march|april|may|june|july|august|september|october|november|december|" \
         r"jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\b\.?"
_SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}  # meteorological, northern
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple of": 2, "a couple of": 2,
            "few": 3, "a few": 3}
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_YEAR = r"(?P<{0}>1[89]\d\d|20\d\d)"
_DAY = r"(?P<{0}>[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_MONTH_CONTEXT = r"(?:in|on|of|during|last|this|next|since|before|after|until|till|by|early|late|mid|from|between)"

_SOURCES: tuple[tuple[str, str], ...] = (
    ("day_range", rf"\b{_MONTH.format('m')}\s+{_DAY.format('d')}\s*(?:and|to|until|till|-|–)\s*"
                  rf"(?:{_MONTH.format('m2')}\s+)?{_DAY.format('d2')},?\s*{_YEAR.format('y')}\b"),
    ("iso_day", r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})\b"),
    ("day_month_year", rf"\b(?:the\s+)?{_DAY.format('d')}\s+(?:of\s+)?{_MONTH.format('m')},?\s*"
                       rf"{_YEAR.format('y')}\b"),
    ("month_day_year", rf"\b{_MONTH.format('m')}\s+(?:the\s+)?{_DAY.format('d')},?\s*{_YEAR.format('y')}\b"),
    ("month_year", rf"\b{_MONTH.format('m')},?\s+(?:of\s+)?{_YEAR.format('y')}\b"),
    ("season_year", r"\b(?:the\s+)?(?P<s>spring|summer|autumn|fall|winter)\s+(?:of\s+)?" + _YEAR.format("y") + r"\b"),
    ("year", rf"\b(?:(?:in|during|of|since|before|after|until|till|by|from|between|and|to|around|early|late|mid"
             rf"|year)[\s-]+){_YEAR.format('y')}\b(?!\s*(?:%|percent|people|points|dollars|miles|km))"),
    ("ago", r"\b(?P<n>\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|(?:a\s+)?couple\s+of"
            r"|(?:a\s+)?few)\s+(?P<u>day|week|month|year)s?\s+ago\b"),
    ("past", r"\b(?:in|over|during)\s+the\s+(?:past|last)\s+(?P<n>\d+|two|three|four|five|six|seven|eight|nine|ten"
             r"|twelve|few|couple\s+of)?\s*(?P<u>day|week|month|year)s?\b"),
    ("relative", r"\b(?P<w>last|this|next|past|previous)\s+(?P<u>week|month|year|weekend)\b"),
    ("named_day", r"\b(?P<w>today|tonight|yesterday|tomorrow|last\s+night)\b"),
    ("relative_month", rf"\b(?P<w>last|this|next)\s+{_MONTH.format('m')}(?!\s*\d)"),
    ("relative_season", r"\b(?P<w>last|this|next|past)\s+(?P<s>spring|summer|autumn|fall|winter)\b"),
    ("bare_season", r"\b(?:in|during)\s+(?:the\s+)?(?P<s>spring|summer|autumn|fall|winter)\b(?!\s+(?:of\s+)?\d)"),
    ("bare_month", rf"\b{_MONTH_CONTEXT}\s+(?:the\s+)?(?:(?:early|late|mid)[\s-]+)?{_MONTH.format('m')}"
                   rf"(?!\s*,?\s*\d)"),
    ("month_day", rf"\b{_MONTH.format('m')}\s+(?:the\s+)?{_DAY.format('d')}\b(?!\s*,?\s*\d)"
                  r"|\b(?:the\s+)?" + _DAY.format("d2") + r"\s+(?:of\s+)?" + _MONTH.format("m2") + r"\b(?!\s*,?\s*\d)"),
)
_PATTERNS = tuple((kind, re.compile(pattern, re.IGNORECASE)) for kind, pattern in _SOURCES)
"""Tried in order; an expression overlapping one found earlier is skipped (the longest forms come first)."""
_RELATION = re.compile(r"\b(?:(?P<span>the\s+(?:day|week|month|year|weekend))\s+)?(?P<rel>before|prior\s+to|after|"
                       r"since|until|till|by|between|from)\s*$", re.IGNORECASE)
_WEEKDAY_BEFORE = re.compile(r"\bthe\s+(?P<wd>" + "|".join(_WEEKDAYS) + r")\s+(?P<rel>before|after)\s*$",
                             re.IGNORECASE)
_BETWEEN_JOIN = re.compile(r"^\s*(?:and|to|until|till|-|–)\s*$", re.IGNORECASE)
_WHEN = re.compile(
    r"^\s*when\b|\b(?:what|which)\s+(?:year|month|day|date|week|weekend|time\s+of\s+year|season|decade)\b"
    r"|\bhow\s+long\s+(?:ago|has|have|had|did|was|were|since)\b|\bon\s+what\s+date\b|\bsince\s+when\b"
    r"|\bwhen\s+(?:did|was|were|is|are|will|does|do|has|have|had|would)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Window:
    """A span the question names, ``[start, end)`` in UTC (``None``: open), and the words that named it."""

    start: datetime | None
    end: datetime | None
    phrase: str

    def contains(self, instant: datetime) -> bool:
        at = _aware(instant)
        return (self.start is None or self.start <= at) and (self.end is None or at < self.end)

    def overlaps(self, start: datetime, end: datetime | None) -> bool:
        """Whether ``[start, end)`` (``None``: open) meets the window."""
        return (self.end is None or _aware(start) < self.end) and (
            end is None or self.start is None or _aware(end) > self.start)


@dataclass(frozen=True, slots=True)
class AskedTime:
    """What a question says about time: the windows it names (in order) and whether it asks "when"."""

    windows: tuple[Window, ...] = ()
    asks_when: bool = False

    def contains(self, instant: datetime) -> bool:
        """Whether an instant lies in every window the question names (True when it names none)."""
        return all(w.contains(instant) for w in self.windows)

    def overlaps(self, start: datetime, end: datetime | None) -> bool:
        """Whether an interval ``[start, end)`` (``None``: open) meets every window the question names."""
        return all(w.overlaps(start, end) for w in self.windows)

    def span(self) -> tuple[datetime | None, datetime | None] | None:
        """The intersection of the windows as ``(start, end)`` (``None`` ends open), or None if it names none."""
        if not self.windows:
            return None
        starts = [w.start for w in self.windows if w.start is not None]
        ends = [w.end for w in self.windows if w.end is not None]
        return max(starts, default=None), min(ends, default=None)


@dataclass(frozen=True, slots=True)
class _Span:
    start: datetime
    end: datetime
    first: int  # where in the question its words are
    last: int


def asked_time(question: str, reference_time: datetime | None = None) -> AskedTime:
    """The windows a question names and whether it asks "when", relative to ``reference_time`` (default now).

    A naive ``reference_time`` is taken as UTC, as every time given to the library is.
    """
    now = _aware(reference_time) if reference_time is not None else datetime.now(UTC)
    text = question[:2_000]
    spans = sorted(_spans(text, now), key=lambda s: s.first)
    windows: list[Window] = []
    used: set[int] = set()
    for i, span in enumerate(spans):
        if i in used:
            continue
        before = text[max(0, span.first - 40):span.first]
        following = spans[i + 1] if i + 1 < len(spans) else None
        windows.append(_bounded(text, before, span, following, used, i))
    return AskedTime(windows=tuple(windows), asks_when=bool(_WHEN.search(text)))


def _bounded(text: str, before: str, span: _Span, following: _Span | None, used: set[int], i: int) -> Window:
    """The window of one span, bounded by the relation word in front of it ("before May", "the week after ...")."""
    weekday = _WEEKDAY_BEFORE.search(before)
    if weekday is not None:
        wanted = _WEEKDAYS.index(weekday.group("wd").casefold())
        step = -1 if weekday.group("rel").casefold() == "before" else 1
        day = _day(span.start if step < 0 else span.end - timedelta(days=1)) + timedelta(days=step)
        while day.weekday() != wanted:
            day += timedelta(days=step)
        return Window(day, day + timedelta(days=1), text[span.first - len(weekday.group()):span.last].strip())
    relation = _RELATION.search(before)
    if relation is None:
        return Window(span.start, span.end, text[span.first:span.last])
    rel = re.sub(r"\s+", " ", relation.group("rel").casefold())
    phrase = text[span.first - len(relation.group()):span.last].strip()
    if relation.group("span"):
        unit = relation.group("span").split()[-1].casefold()
        length = {"day": relativedelta(days=1), "week": relativedelta(weeks=1), "weekend": relativedelta(days=2),
                  "month": relativedelta(months=1), "year": relativedelta(years=1)}[unit]
        if rel in ("before", "prior to"):
            return Window(span.start - length, span.start, phrase)
        return Window(span.end, span.end + length, phrase)
    if rel in ("between", "from") and following is not None and _BETWEEN_JOIN.match(text[span.last:following.first]):
        used.add(i + 1)
        return Window(span.start, following.end, text[span.first - len(relation.group()):following.last].strip())
    if rel in ("before", "prior to"):
        return Window(None, span.start, phrase)
    if rel == "after":
        return Window(span.end, None, phrase)
    if rel == "between":  # "between" a range read whole ("between August 11 and 15, 2023")
        return Window(span.start, span.end, phrase)
    if rel in ("since", "from"):
        return Window(span.start, None, phrase)
    return Window(None, span.end, phrase)  # until, till, by


def _spans(text: str, now: datetime) -> Iterator[_Span]:
    """Every time expression of the text, the longest first where two overlap."""
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            first, last = match.span()
            if any(first < b and a < last for a, b in taken):
                continue
            found = _resolve(kind, match, now)
            if found is None:
                continue
            taken.append((first, last))
            start, end = found
            # the words of the expression itself, without a leading "in"/"on" (a relation is read from before it)
            lead = re.match(rf"{_MONTH_CONTEXT}\s+(?:the\s+)?|year\s+", match.group(), re.IGNORECASE)
            skip = lead.end() if lead and kind in ("bare_month", "year", "bare_season") else 0
            yield _Span(start, end, first + skip, last)


def _resolve(kind: str, m: re.Match[str], now: datetime) -> tuple[datetime, datetime] | None:
    groups = {k: v for k, v in m.groupdict().items() if v is not None}
    try:
        if kind in ("iso_day", "day_month_year", "month_day_year"):
            month = int(groups["m"]) if kind == "iso_day" else _month(groups["m"])
            day = datetime(int(groups["y"]), month, int(groups["d"]), tzinfo=UTC)
            return day, day + timedelta(days=1)
        if kind == "day_range":
            first = datetime(int(groups["y"]), _month(groups["m"]), int(groups["d"]), tzinfo=UTC)
            last = datetime(int(groups["y"]), _month(groups.get("m2") or groups["m"]), int(groups["d2"]), tzinfo=UTC)
            return (first, last + timedelta(days=1)) if first <= last else None
        if kind == "month_year":
            start = datetime(int(groups["y"]), _month(groups["m"]), 1, tzinfo=UTC)
            return start, start + relativedelta(months=1)
        if kind == "season_year":
            start = datetime(int(groups["y"]), _SEASONS[groups["s"].casefold()], 1, tzinfo=UTC)
            return start, start + relativedelta(months=3)
        if kind == "year":
            start = datetime(int(groups["y"]), 1, 1, tzinfo=UTC)
            return start, start + relativedelta(years=1)
        if kind == "month_day":
            month = _month(groups.get("m") or groups["m2"])
            day_number = int(groups.get("d") or groups["d2"])
            year = now.year if (month, day_number) <= (now.month, now.day) else now.year - 1
            day = datetime(year, month, day_number, tzinfo=UTC)
            return day, day + timedelta(days=1)
        if kind in ("bare_month", "relative_month"):
            return _month_window(_month(groups["m"]), groups.get("w", "in").casefold(), now)
        if kind in ("relative_season", "bare_season"):
            return _season_window(_SEASONS[groups["s"].casefold()], groups.get("w", "in").casefold(), now)
        if kind == "named_day":
            shift = {"today": 0, "tonight": 0, "yesterday": -1, "tomorrow": 1}.get(groups["w"].casefold(), -1)
            day = _day(now) + timedelta(days=shift)
            return day, day + timedelta(days=1)
        if kind == "relative":
            return _relative(groups["w"].casefold(), groups["u"].casefold(), now)
        if kind == "ago":
            return _ago(_count(groups["n"]), groups["u"].casefold(), now)
        if kind == "past":
            count = _count(groups["n"]) if "n" in groups else 1
            return now - _units(groups["u"].casefold(), count), now
    except (ValueError, OverflowError):  # "30 February 2023", a year out of range
        return None
    return None


def _aware(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _day(at: datetime) -> datetime:
    return at.replace(hour=0, minute=0, second=0, microsecond=0)


def _month(name: str) -> int:
    return _MONTH_NUMBER[name.casefold().rstrip(".")]


def _count(word: str) -> int:
    word = re.sub(r"\s+", " ", word.casefold())
    return int(word) if word.isdigit() else _NUMBERS[word]


def _units(unit: str, count: int) -> relativedelta:
    if unit == "day":
        return relativedelta(days=count)
    if unit == "week":
        return relativedelta(weeks=count)
    return relativedelta(months=count) if unit == "month" else relativedelta(years=count)


def _season_of(at: datetime) -> datetime:
    """The first day of the season holding ``at`` (winter starts in December)."""
    if at.month < 3:
        return datetime(at.year - 1, 12, 1, tzinfo=UTC)
    return datetime(at.year, (at.month - 3) // 3 * 3 + 3, 1, tzinfo=UTC)


def _month_window(month: int, which: str, now: datetime) -> tuple[datetime, datetime]:
    """``in May``: the latest May at or before now's month; ``last May``: strictly before; ``next May``: after."""
    year = now.year
    if which == "next":
        year += 1 if month <= now.month else 0
    elif which == "last":
        year -= 1 if month >= now.month else 0
    elif which != "this":
        year -= 1 if month > now.month else 0
    start = datetime(year, month, 1, tzinfo=UTC)
    return start, start + relativedelta(months=1)


def _season_window(first_month: int, which: str, now: datetime) -> tuple[datetime, datetime]:
    """Like :func:`_month_window` for three-month seasons (winter runs December to February)."""
    current = _season_of(now)
    start = datetime(current.year, first_month, 1, tzinfo=UTC)
    if start > current:
        start -= relativedelta(years=1)
    if which == "next":
        start += relativedelta(years=1) if start <= current else relativedelta()
    elif which in ("last", "past") and start == current:
        start -= relativedelta(years=1)
    return start, start + relativedelta(months=3)


def _relative(which: str, unit: str, now: datetime) -> tuple[datetime, datetime]:
    step = {"last": -1, "past": -1, "previous": -1, "this": 0, "next": 1}[which]
    today = _day(now)
    if unit == "weekend":  # weeks start on Monday: this week's weekend, the one before or the one after
        saturday = today + timedelta(days=5 - today.weekday(), weeks=step)
        return saturday, saturday + timedelta(days=2)
    if unit == "week":
        start = today - timedelta(days=today.weekday()) + timedelta(weeks=step)
        return start, start + timedelta(weeks=1)
    if unit == "month":
        start = today.replace(day=1) + relativedelta(months=step)
        return start, start + relativedelta(months=1)
    start = today.replace(month=1, day=1) + relativedelta(years=step)
    return start, start + relativedelta(years=1)


def _ago(count: int, unit: str, now: datetime) -> tuple[datetime, datetime]:
    """``3 days ago``: that day; ``2 weeks ago``: the 7 days around that instant; months and years alike."""
    at = _day(now) - _units(unit, count)
    if unit == "day":
        return at, at + timedelta(days=1)
    half = {"week": relativedelta(days=3), "month": relativedelta(days=15), "year": relativedelta(months=6)}[unit]
    return at - half, at + half + timedelta(days=1)
