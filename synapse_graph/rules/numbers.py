"""Numbers given to the API: checked, never coerced.

``True`` is not 1, ``"0.5"`` is not 0.5 and ``2.7`` is not a count of 2: each is refused
with an :class:`InvalidInputError` naming the field. Numbers of other types (numpy scalars,
``Fraction``) are taken only when they are exactly the value asked for. A leaf module
(it imports only the errors), so that the models can use it too.
"""

from __future__ import annotations

import math
import numbers
import operator

from synapse_graph.errors import InvalidInputError


def confidence(value: object, *, field: str = "confidence") -> float:
    """A confidence: a float in [0, 1], kept bit for bit (an int or exact number becomes that float)."""
    if type(value) is float:
        number = value
    elif isinstance(value, bool):
        raise InvalidInputError(f"{field}: a boolean is not a confidence; give a number between 0 and 1, e.g. 0.9")
    elif isinstance(value, str):
        raise InvalidInputError(f"{field} must be a number between 0 and 1, not a string")
    elif isinstance(value, numbers.Real):  # int, float subclasses, numpy scalars, Fraction
        number = float(value)
        if number != value:
            raise InvalidInputError(
                f"{field}: {value!r} is not exactly a float; pass float(value), a number between 0 and 1"
            )
    else:
        raise InvalidInputError(f"{field} must be a number (int or float) between 0 and 1, got {type(value).__name__}")
    if not math.isfinite(number):
        raise InvalidInputError(f"{field} must be a finite number between 0 and 1, got {number!r}")
    if not 0.0 <= number <= 1.0:
        raise InvalidInputError(f"{field} must be between 0 and 1, got {number!r}")
    return number


def count(value: object, *, field: str, minimum: int = 0, maximum: int | None = None) -> int:
    """A whole number in [minimum, maximum]: an int (numpy integers too), never a bool, float or text."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidInputError(f"{field} must be a whole number (int), got {type(value).__name__} {value!r:.40}")
    number = operator.index(value)
    if number < minimum or (maximum is not None and number > maximum):
        bounds = f"from {minimum}" if maximum is None else f"from {minimum} to {maximum}"
        raise InvalidInputError(f"{field} must be {bounds}, got {number}")
    return number
