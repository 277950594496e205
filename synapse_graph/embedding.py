"""The embedder protocol used by recall's optional vector leg."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable


@runtime_checkable
class Embedder(Protocol):
    """Turns short texts (entity names) into unit-length vectors, locally.

    Implementations must not reach the network at run time.
    """

    name: str
    """Identifies the model; stored with the vectors so a changed model is noticed."""
    dimensions: int

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit-normalised vector of ``dimensions`` floats per text, in order."""
        ...
