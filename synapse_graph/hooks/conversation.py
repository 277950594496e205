"""The sessions one Claude Code conversation writes to.

A session takes writes for a fixed time after it was registered (7 days), and its expiry never
moves. A conversation resumed after that (``claude --resume`` a week later) goes on in a new
session linked to the old one by its id: ``<id>.2``, then ``<id>.3`` (each with a fresh ttl).
The hooks write to the newest, and a SessionStart recalls from all of them, newest first; the
old sessions keep their memory and take no writes. A revoked session is never continued: once
the user revoked one of a conversation's sessions, its offloads fail (each a failed job).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from synapse_graph.models import Session

_MAX_BASE = 56
"""Session ids are at most 64 characters: a longer conversation id is linked by its hash."""


def link_id(conversation: str, number: int) -> str:
    """The id of the conversation's ``number``-th session (2 and up; the first is the conversation's own id)."""
    base = conversation if len(conversation) <= _MAX_BASE else hashlib.sha256(conversation.encode()).hexdigest()[:40]
    return f"{base}.{number}"


def chain(sessions: Iterable[Session], conversation: str) -> list[Session]:
    """The conversation's registered sessions, oldest first."""
    by_id = {s.id: s for s in sessions}
    found = [by_id[conversation]] if conversation in by_id else []
    while (link := by_id.get(link_id(conversation, len(found) + 1))) is not None and found:
        found.append(link)
    return found


def next_session(links: list[Session], conversation: str) -> str:
    """The session the conversation writes to now: the newest, or a new one after it if the newest expired
    (never after a revoked one)."""
    if not links:
        return conversation
    newest = links[-1]
    if newest.status() == "expired" and not any(s.revoked_at is not None for s in links):
        return link_id(conversation, len(links) + 1)
    return newest.id
