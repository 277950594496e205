"""Packing ranked memories into a token budget (``recall(..., max_tokens=N)``, issue 28).

Tokens are estimated without a tokenizer: a quarter of the ASCII characters (English text runs at about four
characters per token for current models' tokenizers) plus one per other character (accented and CJK text
take more tokens per character; counting each as one errs on the safe side, so a budget is not overrun).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field


def approx_tokens(text: str) -> int:
    """An upper-leaning estimate of the tokens a text takes: ``ceil(ascii / 4) + other characters``, at least 1."""
    ascii_chars = len(text) if text.isascii() else len(text.encode("ascii", "ignore"))
    return max(1, math.ceil(ascii_chars / 4) + len(text) - ascii_chars)


@dataclass(frozen=True, slots=True)
class Packed[T]:
    """The items kept (in their order), how many tokens they take, and how many were left out."""

    kept: list[T] = field(default_factory=list)
    tokens: int = 0
    left_out: int = 0


def pack[T](ranked: Sequence[T], max_tokens: int, cost: Callable[[T], int]) -> Packed[T]:
    """The most relevant items that fit in ``max_tokens``, best first.

    Items are taken in rank order; one that does not fit in what is left is passed over (a later, shorter
    one may still fit), never cut. ``cost(item)``: its tokens, e.g. :func:`approx_tokens` of its rendered line.
    """
    if max_tokens < 0:
        raise ValueError("max_tokens must be at least 0")
    kept: list[T] = []
    used = 0
    for item in ranked:
        need = cost(item)
        if need < 0:
            raise ValueError(f"cost must be at least 0, got {need}")
        if used + need <= max_tokens:
            kept.append(item)
            used += need
    return Packed(kept=kept, tokens=used, left_out=len(ranked) - len(kept))
