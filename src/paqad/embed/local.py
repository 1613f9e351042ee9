"""The local embedding provider: an ONNX sentence-embedding model run with onnxruntime.

Pipeline (matches sentence-transformers, see ``shared/models/README.md``): word pieces from
``tokenizer.json`` truncated at the model window (256 for all-MiniLM-L6-v2, *not* the 128 the
file carries), padded to the longest text of each batch, the encoder's ``last_hidden_state``
mean-pooled over the attention mask, then L2-normalised.

The ONNX session and tokenizer load lazily, once per process per (repo id, precision), so the
MCP server, the prompt hook and refresh share one loaded model.

Throughput (issue 13): the model costs about 110 us of CPU per word piece on the 2-core build
machine (int8, AVX-512 VNNI), nearly linear in the text length, so the only large waste was in
how the cores were used. One session runs with one intra-op thread and no spin-waiting, and
``workers`` Python threads (default: all CPUs) call it concurrently on different texts (a
session's ``run`` is thread-safe and releases the GIL). Two busy-waiting intra-op threads on
one text cost twice the CPU per chunk and collapse when other processes want the cores; two
independent runs keep both cores busy with no synchronisation. Each text still runs alone (int8)
or in a length-sorted batch (fp32), so a vector does not depend on what else is embedded with it:
the vectors are bit for bit those of the previous single-session pipeline.
"""

from __future__ import annotations

import os
import platform
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from paqad.embed import model_store

DEFAULT_REPO_ID = "Xenova/all-MiniLM-L6-v2"
# Padded word pieces per ONNX run. On the 2-core build VM (onnxruntime 1.32, 250-token code
# chunks) runs of 4 x 256 were fastest: int8 ~70-80 chunks/s against ~46 at 32 x 256.
DEFAULT_MAX_BATCH_TOKENS = 1024
DEFAULT_BATCH_SIZE = 32
INT8_BATCH_SIZE = 1  # see LocalEmbedder: dynamic quantisation makes batched results batch-dependent


@dataclass(frozen=True)
class _Tokenizers:
    window: "object"  # tokenizers.Tokenizer truncating at the model window, no padding
    pad_id: int


@dataclass(frozen=True)
class _Runtime:
    session: "object"  # onnxruntime.InferenceSession
    input_names: frozenset[str]
    output_name: str
    fingerprint: str


_LOCK = threading.Lock()
_TOKENIZERS: dict[tuple[str, str], _Tokenizers] = {}
_COUNTERS: dict[tuple[str, str], object] = {}
_RUNTIMES: dict[tuple[str, str], _Runtime] = {}
_POOLS: dict[int, ThreadPoolExecutor] = {}


def _load_tokenizers(repo_id: str, precision: str) -> _Tokenizers:
    key = (repo_id, precision)
    with _LOCK:
        if key in _TOKENIZERS:
            return _TOKENIZERS[key]
        from tokenizers import Tokenizer

        folder = model_store.ensure_model(repo_id, precision)
        path = str(folder / "tokenizer.json")
        window = Tokenizer.from_file(path)
        pad = window.padding or {}
        pad_id = int(pad.get("pad_id", window.token_to_id("[PAD]") or 0))
        # The file's own settings (all-MiniLM: truncate at 128, pad to a fixed 128) would cut
        # long chunks in half; we truncate at the model window and pad per batch ourselves.
        window.enable_truncation(max_length=model_store.spec_for(repo_id).window)
        window.no_padding()
        loaded = _Tokenizers(window=window, pad_id=pad_id)
        _TOKENIZERS[key] = loaded
        return loaded


def _load_counter(repo_id: str, precision: str):
    """A second tokenizer without truncation or padding, for :meth:`LocalEmbedder.count_tokens`.

    Loaded only when counting (parsing tokenizer.json costs ~25 ms of every process start).
    """
    key = (repo_id, precision)
    with _LOCK:
        if key not in _COUNTERS:
            from tokenizers import Tokenizer

            counter = Tokenizer.from_file(str(model_store.ensure_model(repo_id, precision) / "tokenizer.json"))
            counter.no_truncation()
            counter.no_padding()
            _COUNTERS[key] = counter
        return _COUNTERS[key]


def _load_runtime(repo_id: str, precision: str) -> _Runtime:
    key = (repo_id, precision)
    with _LOCK:
        if key in _RUNTIMES:
            return _RUNTIMES[key]
        import onnxruntime as ort

        folder = model_store.ensure_model(repo_id, precision)
        rel = model_store.onnx_file(precision)
        session = _session(ort, folder / rel)
        outputs = [o.name for o in session.get_outputs()]
        runtime = _Runtime(
            session=session,
            input_names=frozenset(i.name for i in session.get_inputs()),
            output_name="last_hidden_state" if "last_hidden_state" in outputs else outputs[0],
            fingerprint=_fingerprint(repo_id, precision),
        )
        _RUNTIMES[key] = runtime
        return runtime


def _pool(workers: int) -> ThreadPoolExecutor:
    """The process's embedding threads (created on first use, one pool per worker count)."""
    with _LOCK:
        if workers not in _POOLS:
            _POOLS[workers] = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="paqad-embed")
        return _POOLS[workers]


def _session(ort, model_file: Path):
    """An InferenceSession for ``model_file`` (one intra-op thread, no spinning), reusing a graph
    optimised once on this machine.

    Optimising the graph takes about 65 ms of the ~95 ms a session costs to create, on every
    process start (each probe, refresh and prompt hook). The first session saves the optimised
    graph next to the model (keyed by onnxruntime version and CPU architecture, since the
    optimised graph may use CPU-specific kernels); later ones load it with optimisation off.
    Both give identical outputs. Any problem with the saved graph falls back to the original.
    """
    cached = model_file.parent / ".optimized" / f"{model_file.stem}-ort{ort.__version__}-{platform.machine()}.onnx"

    def options(level, save_to: Path | None = None):
        opts = ort.SessionOptions()
        # Parallelism comes from concurrent runs (LocalEmbedder.workers), not from intra-op
        # threads: no thread pool whose idle threads spin on a core another process needs.
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.add_session_config_entry("session.inter_op.allow_spinning", "0")
        opts.graph_optimization_level = level
        opts.log_severity_level = 3  # errors only: no optimiser chatter on stderr
        if save_to is not None:
            opts.optimized_model_filepath = str(save_to)
        return opts

    providers = ["CPUExecutionProvider"]
    if cached.is_file():
        try:
            return ort.InferenceSession(str(cached), sess_options=options(ort.GraphOptimizationLevel.ORT_DISABLE_ALL), providers=providers)
        except Exception:  # noqa: BLE001 - a damaged cache file: rebuild it below
            cached.unlink(missing_ok=True)
    tmp = None
    try:
        cached.parent.mkdir(exist_ok=True)
        tmp = cached.with_name(f".{cached.name}.{os.getpid()}.tmp")
    except OSError:  # read-only model store: just optimise in memory
        pass
    session = ort.InferenceSession(
        str(model_file), sess_options=options(ort.GraphOptimizationLevel.ORT_ENABLE_ALL, tmp), providers=providers)
    if tmp is not None and tmp.is_file():
        try:
            os.replace(tmp, cached)
        except OSError:
            tmp.unlink(missing_ok=True)
    return session


def _fingerprint(repo_id: str, precision: str) -> str:
    import onnxruntime as ort

    model_store.ensure_model(repo_id, precision)
    rel = model_store.onnx_file(precision)
    sha = model_store.verified_sha256(repo_id, rel) or "unknown"
    return f"{repo_id}|{rel}|{sha[:16]}|onnxruntime {ort.__version__}"


class LocalEmbedder:
    """Embeds texts on this machine with an ONNX model from the model store.

    Implements :class:`paqad.embed.base.Embedder`.

    Args:
        repo_id: hub repo id of the model, e.g. ``"Xenova/all-MiniLM-L6-v2"`` (384-d, window 256).
        precision: ``"int8"`` (``onnx/model_quantized.onnx``, default, ~1.8x faster) or
            ``"fp32"`` (``onnx/model.onnx``).
        workers: texts embedded at the same time, each by one thread (one session, concurrent
            runs); default all CPUs.
        batch_size: most texts per ONNX run. Default: 32 for fp32, 1 for int8. The int8 file
            quantises activations with one scale per run (dynamic quantisation), so a text's
            vector would depend on the texts batched with it (cosine to itself down to 0.967 in
            a mixed batch, 0.989 among equal-length chunks); one text per run keeps a vector a
            function of its text alone (what the embedding cache assumes) and closest to the
            reference, for ~10-15% less throughput on 250-token chunks.
        max_batch_tokens: most padded word pieces per ONNX run (texts x longest text); long
            texts go in small runs because big ones are slower on CPU (measured below).

    Nothing is loaded until the first embedding, token count or fingerprint; the model files
    are fetched then if absent (:func:`model_store.ensure_model`), which raises
    ``ModelMissingError`` when offline.
    """

    provider = "local"

    def __init__(
        self,
        repo_id: str = DEFAULT_REPO_ID,
        precision: str = "int8",
        *,
        workers: int | None = None,
        batch_size: int | None = None,
        max_batch_tokens: int = DEFAULT_MAX_BATCH_TOKENS,
    ) -> None:
        model_store.onnx_file(precision)  # reject a bad precision now, not at first use
        if batch_size is None:
            batch_size = INT8_BATCH_SIZE if precision == "int8" else DEFAULT_BATCH_SIZE
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.model_id = repo_id
        self.precision = precision
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.batch_size = batch_size
        self.max_batch_tokens = max_batch_tokens
        self.window = model_store.spec_for(repo_id).window
        self._dimension = model_store.spec_for(repo_id).dimension
        self._fingerprint: str | None = None

    @property
    def dimension(self) -> int:
        """Vector length, e.g. 384 for all-MiniLM-L6-v2."""
        if not self._dimension:  # unknown model: read config.json once the files are present
            model_store.ensure_model(self.model_id, self.precision)
            self._dimension = model_store.model_dimension(self.model_id)
        return self._dimension

    @property
    def fingerprint(self) -> str:
        """``"<repo id>|<onnx file>|<sha256[:16]>|onnxruntime <version>"``.

        int8 results differ between model files and onnxruntime versions, so vectors are only
        comparable when this string matches (models README).
        """
        if self._fingerprint is None:
            self._fingerprint = _fingerprint(self.model_id, self.precision)
        return self._fingerprint

    def count_tokens(self, text: str) -> int:
        """Word pieces in ``text`` including the special tokens ([CLS], [SEP]), not truncated."""
        return len(_load_counter(self.model_id, self.precision).encode(text).ids)

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query. Returns ``(dimension,)`` float32 of unit length."""
        return self.embed_documents([text])[0]

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``. Returns ``(len(texts), dimension)`` float32 with rows of unit length.

        Texts longer than the window are truncated to it. Texts are grouped by length so each
        batch pads little; the output keeps the input order.
        """
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        toks = _load_tokenizers(self.model_id, self.precision)
        runtime = _load_runtime(self.model_id, self.precision)
        # One text at a time: encode_batch would start the tokenizers thread pool, which then
        # warns on every later fork (the hook and refresh spawn processes).
        encodings = [toks.window.encode(text) for text in texts]
        lengths = np.array([len(e.ids) for e in encodings])
        order = np.argsort(lengths, kind="stable")
        batches = _batches(order, lengths, self.batch_size, self.max_batch_tokens)
        # Longest first, so the last runs to finish are short ones and no worker idles long at the end.
        batches.reverse()

        def run(rows: np.ndarray) -> np.ndarray:
            return _embed_batch(runtime, [encodings[i] for i in rows], toks.pad_id)

        if self.workers > 1 and len(batches) > 1:
            pooled_runs = list(_pool(self.workers).map(run, batches))
        else:
            pooled_runs = [run(rows) for rows in batches]
        out = np.empty((len(texts), pooled_runs[0].shape[1]), dtype=np.float32)
        for rows, pooled in zip(batches, pooled_runs):
            out[rows] = pooled
        return out


def _batches(order: np.ndarray, lengths: np.ndarray, max_texts: int, max_tokens: int) -> list[np.ndarray]:
    """Split ``order`` (indices sorted by length) into runs of at most ``max_texts`` texts whose
    padded size (texts x longest) stays within ``max_tokens``; a single text always fits."""
    batches: list[np.ndarray] = []
    start = 0
    while start < len(order):
        end = start + 1
        while end < len(order) and end - start < max_texts and (end - start + 1) * lengths[order[end]] <= max_tokens:
            end += 1
        batches.append(order[start:end])
        start = end
    return batches


def _embed_batch(runtime: _Runtime, encodings: list, pad_id: int) -> np.ndarray:
    """Pad to the longest encoding, run the model, mean-pool and L2-normalise: ``(b, d)`` float32."""
    width = max(len(e.ids) for e in encodings)
    ids = np.full((len(encodings), width), pad_id, dtype=np.int64)
    mask = np.zeros((len(encodings), width), dtype=np.int64)
    types = np.zeros((len(encodings), width), dtype=np.int64)
    for row, enc in enumerate(encodings):
        n = len(enc.ids)
        ids[row, :n] = enc.ids
        mask[row, :n] = enc.attention_mask
        types[row, :n] = enc.type_ids
    feeds = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in runtime.input_names:
        feeds["token_type_ids"] = types
    hidden = runtime.session.run([runtime.output_name], feeds)[0].astype(np.float32, copy=False)
    weights = mask[:, :, None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)
