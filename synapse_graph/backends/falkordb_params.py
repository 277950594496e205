"""Parameters for FalkorDB: the ``CYPHER name=value ...`` header a query is sent with.

FalkorDB takes parameters as Cypher literals in front of the query text. The
``falkordb`` client builds that header too; this builder makes the same literals
(strings double-quoted with ``\\`` and ``"`` escaped, map keys bare when they are plain names, else in
backticks) in a fraction of the time, and shorter, which matters for batches of thousands of records.

FalkorDB stores doubles exactly but prints them in replies with 15 significant digits
(``%.15g``: 0.9999999999999999 reads back as 1.0). So a float under one of
:data:`EXACT_FLOAT_KEYS` that 15 digits cannot carry is sent as its shortest exact text
(``repr``), and the reply decoder (:mod:`.falkordb_wire`) turns it back into the same float.
Floats 15 digits can carry (0.9, 0.75, 1.0: nearly all) stay numbers in the graph.
"""

from __future__ import annotations

import json
import math
import re
import struct
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from synapse_graph.instants import Instant

EXACT_FLOAT_KEYS = frozenset({"confidence"})
"""Property and parameter names whose floats must read back bit for bit."""
FLOAT32_KEYS = frozenset({"vector"})
"""Parameters holding a query vector, which every statement reads as float32 only (``vecf32($vector)``, the
phrases ``query_vector``, ``cosine``, ``nearest_*``): written as each value's float32 with 9 significant digits (a
float literal), which carry a float32 exactly, so the server reads the same float32 values as from the double's
``repr`` (17 digits); the text is ~35% shorter and ~3x faster to write (a recall's 384 floats: 1.36 -> 0.41 ms,
load 11)."""


def exact_float(value: float) -> float | str:
    """``value`` if a ``%.15g`` reply carries it exactly, else its ``repr`` (read back by float())."""
    return value if float(f"{value:.15g}") == value else repr(value)


def params_header(params: Mapping[str, Any]) -> str:
    """``CYPHER `a`=1 `b`="x" `` for ``{"a": 1, "b": "x"}`` (empty for no parameters)."""
    if not params:
        return ""
    out: list[str] = ["CYPHER "]
    for key, value in params.items():
        out.append(f"{_key(key)}=")
        if key in FLOAT32_KEYS and (text := _float32_list(value)) is not None:
            out.append(text)
        else:
            _literal(exact_float(value) if key in EXACT_FLOAT_KEYS and isinstance(value, float) else value, out)
        out.append(" ")
    return "".join(out)


def _float32_list(value: Any) -> str | None:
    """A list of finite floats as the float32 of each with 9 significant digits (:data:`FLOAT32_KEYS`), or None
    for any other value (written as usual)."""
    if type(value) is not list or not value or not all(type(v) is float and math.isfinite(v) for v in value):
        return None
    try:
        singles = struct.unpack(f"{len(value)}f", struct.pack(f"{len(value)}f", *value))  # rounded as vecf32 does
    except OverflowError:
        return None
    if not all(math.isfinite(v) for v in singles):  # beyond float32's range
        return None
    return f"[{('%#.9g,' * len(singles) % singles)[:-1]}]"  # '#': always a float literal (1.00000000, not 1)


@lru_cache(maxsize=4096)
def _key(key: object) -> str:
    text = str(key)
    if not text or "`" in text:
        raise ValueError(f"parameter and map key names must be non-empty and free of backticks: {text!r}")
    return f"`{text}`"


_NAMES: dict[object, str] = {}
"""Map keys as written in a map literal (a key in backticks and a colon), by key: a batch repeats a few keys
thousands of times."""


_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""Map keys FalkorDB reads without backticks (reserved words too: ``{end: 1, type: 2}``): a batch's text is ~10%
shorter with its keys bare (~25 keys a record), less to send and for the server to parse."""


def _name(key: object) -> str:
    """A map key as written in a map literal (bare if it is a plain name, else in backticks), remembered
    (:data:`_NAMES`; keys are the library's own names)."""
    text = str(key)
    name = f"{text}:" if _BARE.fullmatch(text) else f"{_key(key)}:"
    if type(key) is str and len(_NAMES) < 4096:
        _NAMES[key] = name
    return name


def _string(value: str) -> str:
    if "\\" in value or '"' in value:
        value = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{value}"'


_INTEGERS = frozenset({int, Instant})
"""Integer types written inline (an Instant is an int; ``:d`` writes its digits, never its repr)."""


_JSON = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"), check_circular=False).encode
"""No circular check: the library's parameters are trees (a batch's rows are ~2,000 lists, each one the check
would note and forget); a cycle would end in a RecursionError either way."""


def _plain_list(value: list[Any] | tuple[Any, ...]) -> str | None:
    """A list of plain values (strings, integers, floats, booleans, nulls, and lists of them), written by the
    JSON encoder, whose text for them is the Cypher literal this module writes, in C: the rows of a batch
    (engine/writes.py new_record) and embeddings. None for any other list: one holding a map (JSON quotes its
    keys), a string JSON escapes (a backslash in the text: a quote, a backslash or a control character, which
    the slower path writes as it always has), a value JSON cannot write, or NaN or an infinity."""
    try:
        text = _JSON(value)
    except (TypeError, ValueError):
        return None
    return None if "\\" in text or "{" in text else text


def _literal(value: Any, out: list[str]) -> None:
    # Strings, integers and instants, the bulk of every batch, are written inline (no call per value).
    kind = type(value)
    if kind is str:
        out.append(_string(value))
    elif kind in _INTEGERS:
        out.append(f"{value:d}")
    elif value is None:
        out.append("null")
    elif kind is dict or isinstance(value, Mapping):
        separator = "{"
        for key, item in value.items():
            item_kind = type(item)
            name = _NAMES.get(key) or _name(key)
            if item_kind is str:
                if "\\" in item or '"' in item:
                    item = item.replace("\\", "\\\\").replace('"', '\\"')
                out.append(f'{separator}{name}"{item}"')
            elif item_kind in _INTEGERS:
                out.append(f"{separator}{name}{item:d}")
            elif item is None:
                out.append(f"{separator}{name}null")
            elif item_kind is float and key in EXACT_FLOAT_KEYS:
                out.append(f"{separator}{name}")
                _literal(exact_float(item), out)
            else:
                out.append(f"{separator}{name}")
                _literal(item, out)
            separator = ","
        out.append("}" if separator == "," else "{}")
    elif kind is list or isinstance(value, list | tuple):
        if value and type(value[0]) is not dict and (text := _plain_list(value)) is not None:
            out.append(text)
            return
        separator = "["
        for item in value:
            item_kind = type(item)
            if item_kind is str:
                out.append(separator + _string(item))
            elif item_kind in _INTEGERS:
                out.append(f"{separator}{item:d}")
            elif item_kind is float and math.isfinite(item):  # an embedding: hundreds of them, inline too
                out.append(f"{separator}{item!r}")
            elif item is None:  # an absent value of a row (engine/writes.py new_record)
                out.append(separator + "null")
            else:
                out.append(separator)
                _literal(item, out)
            separator = ","
        out.append("]" if separator == "," else "[]")
    elif kind is float:
        if not math.isfinite(value):
            raise ValueError(f"FalkorDB parameters cannot hold {value!r}")
        out.append(repr(value))
    elif kind is bool:
        out.append("true" if value else "false")
    elif isinstance(value, str):  # a str subclass (e.g. an enum member)
        out.append(_string(str(value)))
    elif isinstance(value, bool):
        _literal(bool(value), out)
    elif isinstance(value, int):
        out.append(str(int(value)))
    elif isinstance(value, float):
        _literal(float(value), out)
    else:
        raise TypeError(f"cannot send a {type(value).__name__} as a FalkorDB parameter")
