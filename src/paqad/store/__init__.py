"""The index store: SQLite schema and migrations, the change-set writer, the vector store and
the writer lock. The only package that knows SQL (DESIGN §11, §12)."""

from paqad.store.index_store import (
    FileRow,
    IndexStore,
    backup_database,
    index_exists,
    index_size_bytes,
    open_store,
    read_summary,
    recreate_store,
)
from paqad.store.records import (
    Applied,
    ChangeSet,
    ChunkEntry,
    ChunkRow,
    DenseView,
    PendingChunk,
    fts_match_expression,
    symbol_key,
)
from paqad.store.lock import current_writer, write_lock
from paqad.store.schema import SCHEMA_VERSION
from paqad.store.state import require_same_embedding

__all__ = [
    "Applied", "ChangeSet", "current_writer", "ChunkEntry", "ChunkRow", "DenseView", "FileRow", "IndexStore", "PendingChunk",
    "SCHEMA_VERSION", "backup_database",
    "fts_match_expression", "index_exists", "index_size_bytes", "open_store", "read_summary", "recreate_store",
    "require_same_embedding", "symbol_key", "write_lock",
]
