"""A fact about the user comes from what the user said, never from what a tool returned.

A model may take a fetched page's "I work at Globex" for the user's words, whatever its prompt
says. So when a conversation holds tool output, a triple about ``User`` is kept only if its
other end is found in the user's own turns (at least half of its words, a word matching on its
first five letters so that plurals and other forms count). Pure functions, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from synapse_graph.models import Triple
from synapse_graph.offload.turns import Turn
from synapse_graph.rules.text import USER_NAME, name_key

_WORD = re.compile(r"\w+")
_STEM = 5
USER_KEY = name_key(USER_NAME)


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def ungrounded_user_facts(triples: Sequence[Triple], turns: Sequence[Turn]) -> list[int]:
    """Indexes of the triples about User that the user's own turns do not support (only when tool output
    is part of the conversation: without it, nothing can be mistaken for the user's words)."""
    if not any(turn.role == "tool" for turn in turns):
        return []
    said = set(_words(" ".join(turn.text for turn in turns if turn.role == "user")))
    stems = {word[:_STEM] for word in said if len(word) >= _STEM}
    found: list[int] = []
    for index, triple in enumerate(triples):
        ends = [name_key(triple.subject), name_key(triple.object)]
        if USER_KEY not in ends or ends == [USER_KEY, USER_KEY]:
            continue
        other = triple.object if ends[0] == USER_KEY else triple.subject
        words = [w for w in _words(other) if len(w) >= 3] or _words(other)
        hits = sum(1 for w in words if w in said or (len(w) >= _STEM and w[:_STEM] in stems))
        if 2 * hits < len(words) or not words:
            found.append(index)
    return found
