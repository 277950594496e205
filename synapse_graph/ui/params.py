"""What the inspector's pages and API take from a URL, read the same way everywhere."""

from __future__ import annotations

import re
from dataclasses import dataclass

from synapse_graph.models import TimeInput

_EPOCH = re.compile(r"-?\d{1,12}(\.\d{1,6})?")


def when(text: str | None) -> TimeInput | None:
    """A time from a query parameter: empty is None (now), digits are epoch seconds (what the as-of slider
    sends), anything else goes to the library as text (ISO-8601 and other unambiguous forms)."""
    if text is None or not text.strip():
        return None
    text = text.strip()
    if _EPOCH.fullmatch(text):
        return float(text) if "." in text else int(text)
    return text


def text(value: str | None) -> str | None:
    """An optional text parameter: empty is None."""
    return value if value is not None and value.strip() else None


@dataclass(frozen=True)
class Page:
    """Which page of a list to show (1 first) and how long pages are."""

    number: int
    size: int

    @property
    def offset(self) -> int:
        return (self.number - 1) * self.size

    @property
    def read(self) -> int:
        """How many items to read to show this page and know whether another follows."""
        return self.offset + self.size + 1

    def cut[T](self, items: list[T]) -> tuple[list[T], bool]:
        """This page's items of a list read from the start, and whether more follow."""
        return items[self.offset:self.offset + self.size], len(items) > self.offset + self.size
