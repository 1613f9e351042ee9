"""The records the index store reads and writes (DESIGN §11): chunks as stored, a sync's change
set, what applying it did, the dense view of one index generation; and the keys the store
derives (symbol-table keys, FTS5 match expressions). No SQL here, no heavy imports."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping

from paqad.index.rows import FileRow

if TYPE_CHECKING:  # a keyword search imports neither numpy nor the chunker (the prompt hook's budget)
    import numpy as np

    from paqad.index.chunking import Chunk


@dataclass(frozen=True)
class ChunkRow:
    """A stored chunk: the fields of a :class:`~paqad.index.chunking.Chunk` (same names and
    meaning, so ``dense_text`` and ``keyword_text`` take it) plus its row id in ``chunks``.

    Not a subclass, so reading the index does not import the chunker.
    """

    path: str
    start_line: int
    end_line: int
    language: str
    symbol: str | None
    kind: str
    signature: str | None
    text: str
    defines: bool = False
    definitions: tuple[str, ...] = ()  # not read back (the symbols table holds them)
    id: int = 0


@dataclass(frozen=True)
class ChunkEntry:
    """A chunk to store: the chunk, the key of its vector (sha256 hex of the embedded text) and
    the token string its FTS5 row holds."""

    chunk: Chunk
    embed_hash: str
    fts_tokens: str


@dataclass(frozen=True)
class PendingChunk:
    """A stored chunk that has no vector yet: its id and the chunk (to compute the embedded text)."""

    id: int
    chunk: ChunkRow


@dataclass(frozen=True)
class DenseView:
    """What the dense ranker needs of one index generation: ``ids`` (n,) int64 sorted ids of the
    chunks that have a vector, ``vectors`` (n, d) int8 and ``scales`` (n,) float32 such that
    ``scales[i] * vectors[i]`` is chunk ``ids[i]``'s unit vector."""

    ids: np.ndarray
    vectors: np.ndarray
    scales: np.ndarray


@dataclass(frozen=True)
class ChangeSet:
    """Everything one sync changes, applied by :meth:`IndexStore.apply` in one transaction.

    ``full``: replace the whole index; ``removed``: paths whose files and chunks go; ``changed``:
    files (re)written with their chunks (their old chunks go first); ``touched``: files whose
    content is unchanged but whose size/mtime row is refreshed; ``meta``: values recorded with
    the commit (the generation and the chunk count are added by the store).
    """

    full: bool
    removed: tuple[str, ...] = ()
    changed: tuple[tuple[FileRow, tuple[ChunkEntry, ...]], ...] = ()
    touched: tuple[FileRow, ...] = ()
    meta: Mapping[str, object] = field(default_factory=dict)
    model: str = ""  # fingerprint of the model whose cached vectors the new chunks get
    dimension: int = 0

    @property
    def empty(self) -> bool:
        return not (self.full or self.removed or self.changed or self.touched)


@dataclass(frozen=True)
class Applied:
    """What :meth:`IndexStore.apply` wrote: chunk rows written and removed, chunks in the index
    after, how many of those have a vector (``embedded``), and the id of the first chunk written
    (``first_id``, 0 when none: every chunk written has an id at or above it, every older one below)."""

    chunks_written: int
    chunks_removed: int
    chunks_total: int
    embedded: int = 0
    first_id: int = 0


def symbol_key(symbol: str) -> str:
    """The symbol table's lookup key: the last component of a symbol path, lower case, letters
    and digits only (``Router.ServeHTTP`` -> ``servehttp``, ``get_user`` -> ``getuser``)."""
    last = symbol.replace("::", ".").rsplit(".", 1)[-1]
    return "".join(ch for ch in last.lower() if ch.isalnum())


def fts_match_expression(terms: list[str], operator: str = "OR") -> str | None:
    """An FTS5 MATCH expression joining the quoted terms with ``operator`` (OR / AND), or None."""
    if not terms:
        return None
    return f" {operator} ".join('"' + t.replace('"', '""') + '"' for t in terms)
