"""Precision and recall of offload on the labelled conversations (see ``conversations.py``).

Each conversation is offloaded into a scope of its own through the real path (redaction,
prompt, HTTP client, parser, trust settings, ``Memory.upsert``); what the scope then holds
(believed and candidate facts, history included) is compared with the labels:

- precision = stored facts that match a label / stored facts
- recall = labels matched by a stored fact / labels

A stored fact matches a label when its subject, predicate and object each equal one of the
label's alternatives (names compared as the memory keys them, case-folded). Each label is
matched at most once.

Run: ``python -m benchmarks.offload_eval`` (the scripted fake model on loopback), or
``python -m benchmarks.offload_eval --model-url http://127.0.0.1:8080 --model NAME``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.offload_eval.conversations import CONVERSATIONS, Conversation, Spec
from synapse_graph import Memory
from synapse_graph.offload import FileJobLog, Offloader, OpenAIChatClient
from synapse_graph.offload.client import ChatClient
from synapse_graph.rules.text import name_key
from synapse_graph.testing import FakeModelServer, Reply


@dataclass
class Outcome:
    name: str
    stored: list[tuple[str, str, str, str]] = field(default_factory=list)
    """(subject, predicate, object, status) of every stored fact."""
    matched: int = 0
    labels: int = 0
    status: str = ""
    error: str | None = None
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)


@dataclass
class Report:
    model: str
    outcomes: list[Outcome]

    @property
    def stored(self) -> int:
        return sum(len(o.stored) for o in self.outcomes)

    @property
    def matched(self) -> int:
        return sum(o.matched for o in self.outcomes)

    @property
    def labels(self) -> int:
        return sum(o.labels for o in self.outcomes)

    @property
    def precision(self) -> float:
        return self.matched / self.stored if self.stored else 0.0

    @property
    def recall(self) -> float:
        return self.matched / self.labels if self.labels else 0.0


def _alternatives(part: str) -> set[str]:
    return {name_key(p.strip()) for p in part.split("|")}


def matches(stored: tuple[str, str, str], label: Spec) -> bool:
    subject, predicate, obj = label
    return (name_key(stored[0]) in _alternatives(subject) and stored[1] in set(predicate.split("|"))
            and name_key(stored[2]) in _alternatives(obj))


def score(stored: list[tuple[str, str, str]], labels: list[Spec]) -> int:
    """How many labels a stored fact matches (each label once, each fact once)."""
    free = list(labels)
    matched = 0
    for fact in stored:
        hit = next((label for label in free if matches(fact, label)), None)
        if hit is not None:
            free.remove(hit)
            matched += 1
    return matched


def expected_scripted() -> tuple[float, float]:
    """Precision and recall the scripted replies must give, from their stated mistakes alone."""
    correct = sum(len(c.expected) - c.missed for c in CONVERSATIONS)
    stored = correct + sum(c.wrong for c in CONVERSATIONS)
    labels = sum(len(c.expected) for c in CONVERSATIONS)
    return correct / stored, correct / labels


def scripted_model(body: dict[str, Any]) -> Reply:
    """The fake model: the scripted answer of the conversation the request quotes."""
    text = body["messages"][-1]["content"]
    for conversation in CONVERSATIONS:
        if conversation.turns[0][1][:30] in text:
            return Reply(content=conversation.scripted)
    return Reply(status=400, body=b'{"error": "unknown conversation"}')


def evaluate(location: str | None, client: ChatClient, *, auth: tuple[str, str] | None = None,
             conversations: list[Conversation] | None = None, timeout: float = 600,
             progress: Callable[[Outcome], None] | None = None) -> Report:
    """Offload every conversation into a fresh scope and score what was stored."""
    run = uuid.uuid4().hex[:8]
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory() as scratch:
        log = FileJobLog(Path(scratch) / "jobs.jsonl")
        for conversation in conversations or CONVERSATIONS:
            with Memory(location, scope=f"offload-eval-{run}-{conversation.name}", auth=auth) as memory:
                started = time.perf_counter()
                with Offloader(memory, client, log=log) as offloader:
                    turns = [{"role": role, "text": text} for role, text in conversation.turns]
                    job = offloader.wait(offloader.submit(turns, reference=_time(conversation.reference)), timeout)
                facts = memory.facts(include_history=True, include_candidates=True)
                stored = [(f.subject, f.predicate, f.object) for f in facts]
                outcome = Outcome(conversation.name, [(*s, f.status) for s, f in zip(stored, facts, strict=True)],
                                  score(stored, conversation.expected), len(conversation.expected), job.status,
                                  job.error, time.perf_counter() - started, job.problems)
                memory.purge(scope=memory.scope)
            outcomes.append(outcome)
            if progress is not None:
                progress(outcome)
    return Report(client.model, outcomes)


def _time(text: str) -> Any:
    from datetime import datetime

    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def format_report(report: Report) -> str:
    lines = [f"offload eval with {report.model}: {len(report.outcomes)} conversations, {report.labels} labels",
             f"{'conversation':<14} {'status':<7} {'stored':>6} {'matched':>7} {'labels':>6} {'seconds':>8}"]
    for o in report.outcomes:
        lines.append(f"{o.name:<14} {o.status:<7} {len(o.stored):>6} {o.matched:>7} {o.labels:>6} {o.seconds:>8.1f}")
    lines.append(f"precision {report.precision:.3f} ({report.matched}/{report.stored}), "
                 f"recall {report.recall:.3f} ({report.matched}/{report.labels})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.offload_eval", description=__doc__.split("\n")[0])
    parser.add_argument("--db", help="memory location (default: a temporary embedded file)")
    parser.add_argument("--model-url", help="OpenAI-compatible endpoint on loopback (default: the scripted fake)")
    parser.add_argument("--model", default="fake-extractor")
    parser.add_argument("--response-format", default="json_schema", choices=("json_schema", "json_object", "none"))
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per conversation")
    parser.add_argument("--limit", type=int, help="only the first N conversations")
    parser.add_argument("--out", type=Path, help="write the outcomes as JSON here")
    parser.add_argument("--verbose", action="store_true", help="print what was stored for each conversation")
    args = parser.parse_args(argv)
    conversations = CONVERSATIONS[: args.limit] if args.limit else CONVERSATIONS

    def show(outcome: Outcome) -> None:
        print(f"  {outcome.name}: {outcome.status}, {len(outcome.stored)} stored, {outcome.matched}/{outcome.labels}"
              f" matched, {outcome.seconds:.1f}s" + (f" ({outcome.error})" if outcome.error else ""), flush=True)
        if args.verbose:
            for s, p, o, status in outcome.stored:
                print(f"      {s} -[{p}]-> {o}  ({status})", flush=True)

    with tempfile.TemporaryDirectory() as scratch:
        location = args.db or str(Path(scratch) / "eval.db")
        if args.model_url:
            client = OpenAIChatClient(args.model_url, args.model, timeout=args.timeout,
                                      response_format=args.response_format)
            report = evaluate(location, client, conversations=conversations, timeout=args.timeout, progress=show)
        else:
            with FakeModelServer(scripted_model) as server:
                client = OpenAIChatClient(server.url, args.model)
                report = evaluate(location, client, conversations=conversations, progress=show)
    print(format_report(report))
    if args.out:
        args.out.write_text(json.dumps({"model": report.model, "precision": report.precision,
                                        "recall": report.recall, "outcomes": [asdict(o) for o in report.outcomes]},
                                       indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
