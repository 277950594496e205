"""Near-identical memories on LoCoMo (issue 30): how many observations the default rule absorbs, and recall.

    python -m benchmarks.duplicates.locomo_absorbed [--data DIR]

Stores the development split as ``benchmarks.locomo`` does (each speaker's sentences per session, one observe
call each), counts the sentences not stored because their speaker holds a near-identical one already, and runs
the harness's evidence recall for the library (no embedder) with near-identity as it is and with exact
equality only (what observe did before), side by side. LoCoMo (CC BY-NC) is read from its folder, never copied.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks.locomo.data import data_dir, load
from benchmarks.locomo.run import RunConfig, run_backend
from synapse_graph import Memory
from synapse_graph.engine import observations


@contextmanager
def exact_only() -> Any:
    """Observe as before near-identity: only an equal text is held already."""
    saved = observations.near_identity
    observations.near_identity = lambda text: text  # type: ignore[assignment]
    try:
        yield
    finally:
        observations.near_identity = saved  # type: ignore[assignment]


def absorbed(conversations: list[Any]) -> dict[str, int]:
    """Sentences stored with near-identity and without it, over the split."""
    counts = {"sentences": 0, "stored_exact": 0, "stored_near": 0}
    for conv in conversations:
        for near in (False, True):
            with tempfile.TemporaryDirectory() as folder:
                memory = Memory(str(Path(folder) / "m.db"), scope="locomo-absorbed", max_facts=100_000)
                batches: dict[tuple[int, str], list[str]] = {}
                for s in conv.sentences:
                    batches.setdefault((s.session, s.speaker), []).append(s.text)
                if near:
                    for (_, speaker), texts in sorted(batches.items()):
                        memory.observe(speaker, texts)
                else:
                    with exact_only():
                        for (_, speaker), texts in sorted(batches.items()):
                            memory.observe(speaker, texts)
                counts["stored_near" if near else "stored_exact"] += memory.stats().observations
                memory.close()
        counts["sentences"] += len(conv.sentences)
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.duplicates.locomo_absorbed", description=__doc__)
    parser.add_argument("--data", type=Path, default=None)
    args = parser.parse_args(argv)
    conversations = load(data_dir(args.data), None)
    print(json.dumps({"part": "absorbed", **absorbed(conversations)}), flush=True)
    config = RunConfig(conversations=conversations, size="dev", systems=("ours",), progress=False)
    for near in (False, True):
        if near:
            found = run_backend(config, "falkordb")
        else:
            with exact_only():
                found = run_backend(config, "falkordb")
        print(json.dumps({"part": "recall", "near_identity": near, **found["ours"]["overall"]}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
