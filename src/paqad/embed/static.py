"""The static local provider: a model2vec-format model, one stored vector per token.

A static model is a table, not a network: ``model.safetensors`` holds ``embeddings``
``(rows, d)`` and, optionally, ``weights`` ``(vocab,)`` (a per-token scale) and ``mapping``
``(vocab,)`` (token id -> row, when the vocabulary was quantised to fewer rows than tokens);
``tokenizer.json`` splits text into token ids; ``config.json`` says whether vectors are
normalised and the most tokens read per text (``max_length``, default 512).

A text's vector is the mean of its tokens' rows (each times its weight), L2-normalised: the
same arithmetic as ``model2vec.StaticModel.encode`` (model2vec 0.10: tokens without the
special tokens, the unknown token dropped, the text first cut to ``max_length`` times the
median token length in characters, then to ``max_length`` tokens). We read the files with
``safetensors`` and ``tokenizers`` ourselves rather than import model2vec: its import costs
about 2x ours and its load 5x, and it brings joblib and jinja2 (bench/README.md, "Static embeddings").

A text with no known token gets the zero vector (model2vec does the same): its cosine to
every query is 0, so the dense side simply never proposes it.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from paqad.embed import model_store
from paqad.errors import ModelMissingError

MODEL_FILE = "model.safetensors"
# model2vec's default when config.json has no max_length (model2vec/model.py, DEFAULT_MAX_LENGTH).
DEFAULT_MAX_LENGTH = 512
_FLOAT_DTYPES = (np.float32, np.float16, np.float64)
# What a pulled copy must be, for models whose files have no published sha256 we could pin
# (the hub checks each LFS file against its own sha256 on download, model_store._stage_from_hub):
# rows of `embeddings`, from the model's config.json on the hub ("vocabulary_quantization": 61826,
# minishlab/potion-code-16M at commit 5cf2056), and the dimension from KNOWN_MODELS.
PINNED_ROWS = {"minishlab/potion-code-16M": 61826}


@dataclass(frozen=True)
class StaticTables:
    """A loaded static model.

    Attributes:
        tokenizer: ``tokenizers.Tokenizer`` truncating at ``max_length`` tokens, no padding.
        embeddings: ``(rows, dimension)`` float32.
        weights: ``(vocab,)`` float32 per-token scale, or None.
        mapping: ``(vocab,)`` int64 token id -> row of ``embeddings``, or None (row = token id).
        unk_id: the unknown token's id (dropped from every text), or None.
        max_length: most tokens read per text.
        max_chars: characters kept before tokenising (``max_length`` x median token length).
        normalize: whether vectors are L2-normalised (``config.json`` ``normalize``).
    """

    tokenizer: object
    embeddings: np.ndarray
    weights: np.ndarray | None
    mapping: np.ndarray | None
    unk_id: int | None
    max_length: int
    max_chars: int
    normalize: bool


_LOCK = threading.Lock()
_TABLES: dict[str, StaticTables] = {}


def _read_config(folder: Path) -> dict:
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelMissingError(f"{folder / 'config.json'}: cannot be read as JSON ({exc}); "
                                "remove the model folder and run `paqad-ai rag model pull`") from None
    return config if isinstance(config, dict) else {}


def _read_tensors(path: Path) -> dict[str, np.ndarray]:
    from safetensors.numpy import safe_open

    with safe_open(str(path), framework="numpy") as handle:
        names = set(handle.keys())
        return {name: handle.get_tensor(name) for name in ("embeddings", "weights", "mapping") if name in names}


def check_tables(tensors: dict[str, np.ndarray], vocab_size: int, expected_dimension: int, where: Path) -> None:
    """Reject a model2vec file whose tensors do not fit together or the expected model.

    ``embeddings`` must be 2-D floats with ``expected_dimension`` columns (0: any); ``weights``
    and ``mapping`` (when present) one entry per token of the tokenizer (``vocab_size``); every
    row the mapping names must exist; without a mapping, one row per token.

    Raises:
        ModelMissingError: naming ``where`` and what is wrong.
    """
    def bad(what: str) -> ModelMissingError:
        return ModelMissingError(f"{where}: {what}; remove the model folder and run `paqad-ai rag model pull`")

    emb = tensors.get("embeddings")
    if emb is None or emb.ndim != 2 or emb.dtype.type not in _FLOAT_DTYPES:
        raise bad("holds no 2-D float tensor `embeddings` (not a model2vec static model)")
    if expected_dimension and emb.shape[1] != expected_dimension:
        raise bad(f"`embeddings` has {emb.shape[1]} columns, this model has {expected_dimension}")
    weights, mapping = tensors.get("weights"), tensors.get("mapping")
    if weights is not None and weights.shape != (vocab_size,):
        raise bad(f"`weights` has shape {weights.shape}, the tokenizer has {vocab_size} tokens")
    if mapping is not None:
        if mapping.shape != (vocab_size,) or mapping.dtype.kind not in "iu":
            raise bad(f"`mapping` has shape {mapping.shape} ({mapping.dtype}), expected ({vocab_size},) integers")
        if vocab_size and (int(mapping.min()) < 0 or int(mapping.max()) >= emb.shape[0]):
            raise bad(f"`mapping` names rows outside the {emb.shape[0]} of `embeddings`")
    elif emb.shape[0] < vocab_size:
        raise bad(f"`embeddings` has {emb.shape[0]} rows for {vocab_size} tokens and no `mapping`")


def _unk_id(tokenizer) -> int | None:
    """The unknown token's id, as model2vec finds it (WordPiece/BPE/WordLevel, else Unigram's unk_id)."""
    token = getattr(tokenizer.model, "unk_token", None)
    if token is not None:
        return tokenizer.token_to_id(token)
    if hasattr(tokenizer.model, "unk_token"):
        return None
    return json.loads(tokenizer.to_str())["model"].get("unk_id")


def load_tables(repo_id: str) -> StaticTables:
    """The static model ``repo_id`` from the store (fetched once if absent), loaded once per process.

    Raises:
        ModelMissingError: the files are absent and cannot be fetched, or do not form a
            model2vec model of the expected dimension (see :func:`check_tables`).
    """
    with _LOCK:
        if repo_id in _TABLES:
            return _TABLES[repo_id]
        from tokenizers import Tokenizer

        folder = model_store.ensure_model(repo_id)
        config = _read_config(folder)
        tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        vocab = tokenizer.get_vocab()
        tensors = _read_tensors(folder / MODEL_FILE)
        check_tables(tensors, len(vocab), model_store.spec_for(repo_id).dimension, folder / MODEL_FILE)
        rows = PINNED_ROWS.get(repo_id)
        if rows is not None and tensors["embeddings"].shape[0] != rows:
            raise ModelMissingError(f"{folder / MODEL_FILE}: `embeddings` has {tensors['embeddings'].shape[0]} rows, "
                                    f"{repo_id} has {rows}; remove the model folder and run `paqad-ai rag model pull`")
        max_length = int(config.get("max_length") or DEFAULT_MAX_LENGTH)
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=max_length)
        # model2vec: int(np.median(len(token) for every token)), the character cut before tokenising.
        median = int(np.median([len(token) for token in vocab]))
        weights, mapping = tensors.get("weights"), tensors.get("mapping")
        tables = StaticTables(
            tokenizer=tokenizer,
            embeddings=np.ascontiguousarray(tensors["embeddings"], dtype=np.float32),
            weights=None if weights is None else weights.astype(np.float32, copy=False),
            mapping=None if mapping is None else mapping.astype(np.int64, copy=False),
            unk_id=_unk_id(tokenizer),
            max_length=max_length,
            max_chars=max_length * median,
            normalize=bool(config.get("normalize", True)),
        )
        _TABLES[repo_id] = tables
        return tables


def token_ids(tables: StaticTables, text: str) -> list[int]:
    """Token ids of ``text`` as the model reads them: no special tokens, no unknown token, cut
    to ``max_chars`` characters and ``max_length`` tokens."""
    ids = tables.tokenizer.encode(text[: tables.max_chars], add_special_tokens=False).ids
    if tables.unk_id is not None:
        ids = [i for i in ids if i != tables.unk_id]
    return ids


def embed_ids(tables: StaticTables, ids_per_text: Sequence[list[int]]) -> np.ndarray:
    """Mean of each text's (weighted) token rows: ``(len(ids_per_text), dimension)`` float32,
    L2-normalised when the model says so; an empty id list gives the zero vector."""
    out = np.zeros((len(ids_per_text), tables.embeddings.shape[1]), dtype=np.float32)
    for row, ids in enumerate(ids_per_text):
        if not ids:
            continue
        rows = ids if tables.mapping is None else tables.mapping[ids]
        vectors = tables.embeddings[rows]
        if tables.weights is not None:
            vectors = vectors * tables.weights[ids][:, None]
        out[row] = vectors.mean(axis=0)
    if tables.normalize:
        out /= np.linalg.norm(out, axis=1, keepdims=True) + 1e-32  # model2vec's epsilon: zero stays zero
    return out


def _fingerprint(repo_id: str) -> str:
    model_store.ensure_model(repo_id)
    sha = model_store.verified_sha256(repo_id, MODEL_FILE) or "unknown"
    return f"{repo_id}|{MODEL_FILE}|{sha[:16]}|static"


class StaticEmbedder:
    """Embeds texts with a static (model2vec-format) model from the model store.

    Implements :class:`paqad.embed.base.Embedder` (provider ``"local"``). About 40x less
    time per chunk than the int8 ONNX model on the build machine: a table look-up and a mean
    per text, the tokenizer being most of the cost (bench/README.md, "Static embeddings").

    Args:
        repo_id: hub repo id, e.g. ``"minishlab/potion-code-16M"`` (256-d) or the offline
            stand-in ``"local/all-MiniLM-L6-v2-static256"`` (256-d).

    Nothing is loaded until the first embedding, token count or fingerprint; the files are
    fetched then if absent, which raises ``ModelMissingError`` when offline.
    """

    provider = "local"

    def __init__(self, repo_id: str) -> None:
        self.model_id = repo_id
        self.precision = "static"
        self._dimension = model_store.spec_for(repo_id).dimension
        self._fingerprint: str | None = None

    @property
    def dimension(self) -> int:
        """Vector length (columns of ``embeddings``), e.g. 256."""
        if not self._dimension:
            self._dimension = int(load_tables(self.model_id).embeddings.shape[1])
        return self._dimension

    @property
    def fingerprint(self) -> str:
        """``"<repo id>|model.safetensors|<sha256[:16]>|static"``: vectors are comparable when it matches."""
        if self._fingerprint is None:
            self._fingerprint = _fingerprint(self.model_id)
        return self._fingerprint

    @property
    def window(self) -> int:
        """Most tokens read per text (``max_length``)."""
        return load_tables(self.model_id).max_length

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query. Returns ``(dimension,)`` float32 of unit length (zero without a known token)."""
        return self.embed_documents([text])[0]

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``. Returns ``(len(texts), dimension)`` float32, rows of unit length
        (zero for a text without a known token). A vector depends on its text alone."""
        tables = load_tables(self.model_id)
        return embed_ids(tables, [token_ids(tables, text) for text in texts])
