"""The embedder interface every provider implements."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, Sequence, runtime_checkable

if TYPE_CHECKING:  # the search's keyword side imports this module and must not pay for numpy
    import numpy as np


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised vectors.

    Attributes:
        provider: ``"local"``, ``"openai"`` or ``"voyageai"``.
        model_id: the model's id, e.g. ``"Xenova/all-MiniLM-L6-v2"``.
        dimension: vector length, e.g. 384.
        fingerprint: what must match for two vectors to be comparable (model file sha256,
            runtime version, ...). Recorded with the index; a change makes the index stale.
    """

    provider: str
    model_id: str
    dimension: int
    fingerprint: str

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed chunk texts. Returns ``(len(texts), dimension)`` float32, rows of unit length."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one search query. Returns ``(dimension,)`` float32 of unit length."""
        ...
