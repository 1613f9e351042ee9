"""The embedding fingerprint a team store keys vectors by (DESIGN §14).

Two machines may share a vector when the text (its sha256 is the other half of the key) and
this string match: provider, model (for a local model also the sha256 of its ONNX file, since a
re-uploaded file embeds differently), precision, dimension and the preprocessing version. The
onnxruntime version is left out on purpose: it is part of the local index's fingerprint (a new
runtime makes a local index stale), but teammates rarely run the same runtime, and the int8
vectors the store holds are the same across runtimes up to one rounding step.
"""

from __future__ import annotations

from typing import Mapping

from paqad.embed.base import Embedder

# Bump when what happens between a text and its stored vector changes: tokenisation window and
# truncation, pooling, normalisation, the int8 quantisation of paqad.store.vectors.
PREPROCESSING_VERSION = 1


def fingerprint_of(provider: str, model: str, precision: str, dimension: int, local_fingerprint: str) -> str:
    """``"local|Xenova/all-MiniLM-L6-v2@<sha256[:16]>|int8|384|p1w256"`` or
    ``"openai|text-embedding-3-small|float|1536|p1"``.

    ``local_fingerprint`` is what the embedder (and the index's meta) records: for a local model
    ``"<repo id>|<onnx file>|<sha256[:16]>|onnxruntime <version>"``, whose file hash is kept.
    """
    if provider == "local":
        from paqad.embed import model_store

        parts = local_fingerprint.split("|")
        sha = parts[2] if len(parts) > 2 else "unknown"
        window = model_store.spec_for(model).window
        return f"local|{model}@{sha}|{precision or 'int8'}|{dimension}|p{PREPROCESSING_VERSION}w{window}"
    return f"{provider}|{model}|float|{dimension}|p{PREPROCESSING_VERSION}"


def team_fingerprint(embedder: Embedder) -> str:
    """:func:`fingerprint_of` an embedder (a local one reads its model files' hash, fetching them
    when absent as any embedding would)."""
    return fingerprint_of(embedder.provider, embedder.model_id, getattr(embedder, "precision", ""),
                          embedder.dimension, embedder.fingerprint)


def index_team_fingerprint(meta: Mapping[str, str]) -> str | None:
    """:func:`fingerprint_of` the model an index was built with (its ``meta``), None before a build."""
    if not meta.get("fingerprint") or not meta.get("dimension"):
        return None
    return fingerprint_of(meta.get("provider", ""), meta.get("model", ""), meta.get("precision", ""),
                          int(meta["dimension"]), meta["fingerprint"])
