"""How the public models read to people: a short, exact ``repr``, and their text in notebooks."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any, ClassVar

from pydantic import ConfigDict

from synapse_graph import render


class _IsoTime:
    """A time as ``repr`` shows it: ISO-8601, unquoted (a string field stays quoted, so the two never mix)."""

    __slots__ = ("_text",)

    def __init__(self, value: datetime) -> None:
        self._text = render.iso_text(value)

    def __repr__(self) -> str:
        return self._text


class ShortRepr:
    """``repr`` names the model and each field that differs from its default (required ones always),
    times in ISO-8601: exact, and short enough to read a list of them in a REPL."""

    def __repr_args__(self) -> Iterator[tuple[str, object]]:
        fields = type(self).model_fields  # type: ignore[attr-defined]
        for name, field in fields.items():
            if not field.repr:
                continue
            value = getattr(self, name)
            if not field.is_required() and value == field.get_default(call_default_factory=True):
                continue
            if isinstance(value, frozenset):
                value = _SortedSet(value)
            yield name, _IsoTime(value) if isinstance(value, datetime) else value


class _SortedSet(frozenset[Any]):
    """A frozenset whose repr lists its members in order (the same set always reads the same)."""

    def __repr__(self) -> str:
        return "frozenset({" + ", ".join(repr(item) for item in sorted(self)) + "})"


class Readable(ShortRepr):
    """Notebook display for the public models: ``str()`` as text, a small HTML form; ``repr`` stays exact."""

    model_config: ClassVar[ConfigDict] = ConfigDict(defer_build=True)  # validators built on first use

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # IPython, also inside lists
        printer.text(repr(self) if cycle else str(self))

    def _repr_html_(self) -> str:
        return render.html_line(str(self))
