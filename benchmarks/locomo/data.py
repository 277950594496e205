"""LoCoMo's development split read as an agent's memories and questions (nothing of it is ever written out).

The data (CC BY-NC 4.0) is read from ``$SYNAPSE_LOCOMO_DATA``, else from the first ``shared/data/locomo-dev``
beside the repository or one of its parent folders (CI lays ``shared/`` beside its checkout). Each
conversation's ``session_N_observation`` sentences become observations of their speaker, dated with the
session; questions of categories 1-4 that cite evidence are asked.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ENV_VAR = "SYNAPSE_LOCOMO_DATA"
RELATIVE = Path("shared") / "data" / "locomo-dev"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
SMALL = ("conv-30",)
"""The ``--small`` size: one conversation (the split's smallest: 169 sentences, 81 questions)."""

_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")  # "D3:5", and the malformed "D:11:26", "D30:05", "D8:6; D9:17"
_SESSION = re.compile(r"session_(\d+)_observation")
_SESSION_DATE = re.compile(r"(\d{1,2}):(\d{2})\s*(am|pm) on (\d{1,2}) (\w+),? (\d{4})", re.IGNORECASE)
_MONTHS = {m: n for n, m in enumerate(
    "january february march april may june july august september october november december".split(), start=1)}


@dataclass(frozen=True)
class Sentence:
    """One observation as stored: who it is about, its text, its session and that session's date."""

    index: int
    speaker: str
    text: str
    session: int
    date: datetime
    evidence: frozenset[str]
    """The turns it cites (of every copy of the same sentence about the same speaker)."""


@dataclass(frozen=True)
class Question:
    text: str
    category: int
    evidence: frozenset[str]


@dataclass(frozen=True)
class Conversation:
    name: str
    speakers: tuple[str, str]
    sentences: tuple[Sentence, ...]
    questions: tuple[Question, ...]
    session_dates: dict[int, datetime]

    @property
    def last_date(self) -> datetime:
        """The date of the conversation's last session with observations: "now" for its questions."""
        return max(s.date for s in self.sentences)


def evidence_ids(raw: Iterable[str] | str) -> list[str]:
    """Turn ids normalised: ``D:11:26`` -> ``D11:26``, ``D30:05`` -> ``D30:5``, ``D8:6; D9:17`` -> both."""
    items = [raw] if isinstance(raw, str) else list(raw)
    found = [f"D{int(a)}:{int(b)}" for item in items for a, b in _EVIDENCE.findall(str(item))]
    return list(dict.fromkeys(found))


def session_date(text: str) -> datetime:
    """``1:56 pm on 8 May, 2023`` -> 2023-05-08 13:56 (naive: the data names no zone)."""
    match = _SESSION_DATE.search(text)
    if match is None:
        raise ValueError(f"not a LoCoMo session date: {text!r}")
    hour, minute, half, day, month, year = match.groups()
    hour_24 = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
    return datetime(int(year), _MONTHS[month.casefold()], int(day), hour_24, int(minute))


def data_dir(given: str | os.PathLike[str] | None = None) -> Path:
    """Where the split is: ``given``, ``$SYNAPSE_LOCOMO_DATA``, or ``shared/data/locomo-dev`` beside the repo."""
    if given or os.environ.get(ENV_VAR):
        return Path(given or os.environ[ENV_VAR])
    for folder in REPO.parents:
        if (folder / RELATIVE).is_dir():
            return folder / RELATIVE
    return REPO.parent / RELATIVE


def conversation(path: Path) -> Conversation:
    raw = json.loads(path.read_text(encoding="utf-8"))
    speakers = (str(raw["speaker_a"]), str(raw["speaker_b"]))
    dates = {int(m.group(1)): session_date(raw[f"session_{m.group(1)}_date_time"])
             for m in (_SESSION.fullmatch(k) for k in raw) if m}
    first: dict[tuple[str, str], tuple[int, set[str]]] = {}
    for session in sorted(dates):
        for speaker, items in raw[f"session_{session}_observation"].items():
            for text, cited in items:
                key = (str(speaker), str(text))
                first.setdefault(key, (session, set()))[1].update(evidence_ids(cited))
    sentences = tuple(Sentence(index=i, speaker=speaker, text=text, session=session, date=dates[session],
                               evidence=frozenset(cited))
                      for i, ((speaker, text), (session, cited)) in enumerate(first.items()))
    questions = tuple(Question(text=str(q["question"]), category=int(q["category"]),
                               evidence=frozenset(evidence_ids(q.get("evidence") or [])))
                      for q in raw["qa"] if int(q["category"]) in CATEGORIES and evidence_ids(q.get("evidence") or []))
    return Conversation(name=path.stem, speakers=speakers, sentences=sentences, questions=questions,
                        session_dates=dates)


def load(folder: Path, names: Iterable[str] | None = None) -> list[Conversation]:
    """The split's conversations (``names``: only these, e.g. :data:`SMALL`), by name."""
    if not folder.is_dir():
        raise FileNotFoundError(
            f"LoCoMo's development split is not at {folder}: set {ENV_VAR} or pass --data (see its README for the "
            "licence: never copy it into the repository)")
    wanted = set(names) if names is not None else None
    paths = sorted(p for p in folder.glob("*.json") if wanted is None or p.stem in wanted)
    if wanted is not None and {p.stem for p in paths} != wanted:
        raise FileNotFoundError(f"{folder} lacks {sorted(wanted - {p.stem for p in paths})}")
    return [conversation(p) for p in paths]


def best_possible(conversations: Iterable[Conversation]) -> float:
    """Mean over questions of the share of their evidence that any stored sentence cites (a ranking's ceiling)."""
    shares = []
    for conv in conversations:
        cited = frozenset().union(*(s.evidence for s in conv.sentences))
        shares += [len(q.evidence & cited) / len(q.evidence) for q in conv.questions]
    return sum(shares) / len(shares) if shares else 0.0
