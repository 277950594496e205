"""Evidence recall@k and full hits of ranked sentences, per category and per conversation, with latency."""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from benchmarks.locomo.data import CATEGORIES, Conversation, Question
from benchmarks.measure import summary

KS = (5, 10, 20)


@dataclass(frozen=True)
class Answer:
    """What one system returned for one question: sentence indices, best first, and the call's seconds."""

    conversation: str
    question: Question
    ranked: tuple[int, ...]
    seconds: float


def covered(conv: Conversation, ranked: Sequence[int], k: int) -> frozenset[str]:
    return frozenset().union(*(conv.sentences[i].evidence for i in ranked[:k]))


def recall_at(conv: Conversation, answer: Answer, k: int) -> float:
    evidence = answer.question.evidence
    return len(evidence & covered(conv, answer.ranked, k)) / len(evidence)


def _scores(conversations: dict[str, Conversation], answers: Sequence[Answer]) -> dict[str, float]:
    out: dict[str, float] = {"questions": len(answers)}
    for k in KS:
        recalls = [recall_at(conversations[a.conversation], a, k) for a in answers]
        out[f"recall@{k}"] = round(statistics.fmean(recalls), 4) if recalls else 0.0
        hits = [r == 1.0 for r in recalls]
        out[f"full_hit@{k}"] = round(sum(hits) / len(hits), 4) if hits else 0.0
    return out


def report(conversations: Iterable[Conversation], answers: Sequence[Answer]) -> dict[str, object]:
    """Scores over every question, per category and per conversation, and latency (ms) of the calls."""
    by_name = {c.name: c for c in conversations}
    per_category = {name: _scores(by_name, [a for a in answers if a.question.category == number])
                    for number, name in CATEGORIES.items()}
    per_conversation = {name: _scores(by_name, [a for a in answers if a.conversation == name]) for name in by_name}
    spread = [s["recall@10"] for s in per_conversation.values() if s["questions"]]
    latency = summary([a.seconds for a in answers])
    return {
        "overall": _scores(by_name, answers),
        "categories": {k: v for k, v in per_category.items() if v["questions"]},
        "conversations": per_conversation,
        "recall@10_spread": {"min": min(spread, default=0.0), "max": max(spread, default=0.0)},
        "latency_ms": {"p50": latency["median_ms"], "p95": latency["p95_ms"], "mean": latency["mean_ms"]},
    }
