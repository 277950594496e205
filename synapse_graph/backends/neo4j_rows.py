"""Reads whose rows come back from Neo4j in one record.

The Python driver handles every record as a Bolt message of its own, at a few tens of
microseconds each: a 2-hop read of 150 facts spent more time receiving its rows than the
server spent finding them. So a read statement whose last clause is a plain ``RETURN`` is
sent as the same statement ending ``WITH <its items> RETURN collect({...}) AS <ROWS>``: one
record, unpacked in one call of the driver's packstream decoder, and the same rows in the
same order (``collect`` keeps the order the ``WITH`` gives them, ``ORDER BY`` included).

A statement this module cannot read with certainty (a ``UNION``, an item that is neither
aliased nor a plain variable) is sent as it is.
"""

from __future__ import annotations

import re
from functools import cache
from itertools import pairwise

ROWS = "synapse_rows"
"""The column of a collected read (no statement of the catalogue returns a column of this name)."""

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_CLAUSE_END = ("ORDER BY", "SKIP", "LIMIT")


def _top_level(text: str) -> list[tuple[int, str]]:
    """``(position, character)`` of every character outside brackets, strings and comments."""
    found: list[tuple[int, str]] = []
    depth, quote, i = 0, "", 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"`":
            quote = c
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0:
            found.append((i, c))
        i += 1
    return found


def _words_at(text: str, top: list[tuple[int, str]], word: str) -> list[int]:
    """Positions of ``word`` as a whole word outside brackets, strings and comments."""
    outside = {i for i, _ in top}
    return [m.start() for m in re.finditer(rf"(?<![\w$.]){word}(?!\w)", text)
            if all(i in outside for i in range(m.start(), m.end()))]


def _split_items(text: str) -> list[str]:
    """The comma-separated items of a projection (commas inside brackets or strings do not count)."""
    cuts = [i for i, c in _top_level(text) if c == ","]
    bounds = [-1, *cuts, len(text)]
    return [text[a + 1:b].strip() for a, b in pairwise(bounds)]


def _alias(item: str) -> str | None:
    top = _top_level(item)
    aliases = _words_at(item, top, "AS")
    name = item[aliases[-1] + 2:].strip() if aliases else item
    return name if _IDENTIFIER.fullmatch(name) else None


@cache
def collected(text: str, *, union: bool = False) -> str | None:
    """``text`` returning its rows as one list in the column :data:`ROWS`, or None to send it as it is. A
    ``UNION`` is collected only when ``union`` says its rows are few (see :func:`_union`)."""
    top = _top_level(text)
    if _words_at(text, top, "UNION"):
        return _union(text, top) if union else None
    returns = _words_at(text, top, "RETURN")
    if not returns:
        return None
    start = returns[-1]
    clause = text[start + len("RETURN"):]
    distinct = clause.lstrip().startswith("DISTINCT ")
    if distinct:
        clause = clause.lstrip()[len("DISTINCT "):]
    clause_top = _top_level(clause)
    ends = sorted(p for word in _CLAUSE_END for p in _words_at(clause, clause_top, word))
    items_text, tail = (clause[:ends[0]], clause[ends[0]:]) if ends else (clause, "")
    items = _split_items(items_text)
    aliases = [_alias(item) for item in items]
    if not items or None in aliases or len(set(aliases)) != len(aliases) or ROWS in aliases:
        return None
    names = [a for a in aliases if a is not None]
    projection = "WITH " + ("DISTINCT " if distinct else "") + ", ".join(items) + (f"\n{tail.strip()}" if tail else "")
    return (f"{text[:start]}{projection}\n"
            f"RETURN collect({{{', '.join(f'{n}: {n}' for n in names)}}}) AS {ROWS}")


def _union(text: str, top: list[tuple[int, str]]) -> str | None:
    """A ``UNION`` as a subquery whose rows are collected: ``CALL () { <text> } RETURN collect({...})``, the
    columns those of its last branch's ``RETURN`` (every branch returns the same), its rows in the order the
    branches give them. Recall's reads are unions of legs of at most a few hundred rows, which came back a record
    each (tens of microseconds apiece in the driver: 1-3 ms a recall on LoCoMo)."""
    start = _words_at(text, top, "RETURN")[-1]
    clause = text[start + len("RETURN"):]
    if clause.lstrip().startswith("DISTINCT "):
        clause = clause.lstrip()[len("DISTINCT "):]
    clause_top = _top_level(clause)
    ends = sorted(p for word in _CLAUSE_END for p in _words_at(clause, clause_top, word))
    aliases = [_alias(item) for item in _split_items(clause[:ends[0]] if ends else clause)]
    if not aliases or None in aliases or len(set(aliases)) != len(aliases) or ROWS in aliases:
        return None
    names = [a for a in aliases if a is not None]
    return f"CALL () {{\n{text}\n}}\nRETURN collect({{{', '.join(f'{n}: {n}' for n in names)}}}) AS {ROWS}"


@cache
def merged_text(texts: tuple[str, ...]) -> str:
    """Collected reads as one statement: each a ``CALL () { ... }`` subquery (which returns one row: its rows
    collected), the rows of the i-th in the column ``synapse_<i>``."""
    parts = []
    for i, text in enumerate(texts):
        kept = "".join(f"synapse_{j}, " for j in range(i))
        parts.append(f"CALL () {{\n{text}\n}}\nWITH {kept}{ROWS} AS synapse_{i}")
    return "\n".join(parts) + "\nRETURN " + ", ".join(f"synapse_{i}" for i in range(len(texts)))
