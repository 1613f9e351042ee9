"""How a chunk's text, embedding key and keyword tokens are stored (schema v2, DESIGN §11).

- text: zlib (level 6) of the UTF-8 text; code compresses about 1.6x at chunk size, and only
  the few chunks a search returns are ever decompressed (~3 us each);
- embedding key: the first 16 bytes (128 bits) of the sha256 of the embedded text (the API
  speaks the full hex digest); chunks do not store it: a chunk without a vector recomputes it;
- keyword tokens: the FTS5 table is contentless, so a chunk's row is deleted by handing FTS5
  the very tokens it was inserted with; they are recomputed from the stored chunk
  (:func:`fts_tokens`), and :func:`token_hash` (kept in ``chunks.fts_hash``) proves they match.
"""

from __future__ import annotations

import hashlib
import zlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when tokens are computed (writers), not by searches
    from paqad.index.chunking import Chunk

TEXT_LEVEL = 6


def pack_text(text: str) -> bytes:
    """The stored form of a chunk's text: zlib of its UTF-8 bytes."""
    return zlib.compress(text.encode("utf-8", "surrogatepass"), TEXT_LEVEL)


def unpack_text(blob: bytes | str) -> str:
    """The chunk text back from :func:`pack_text` (a ``str`` is returned as is)."""
    if isinstance(blob, str):
        return blob
    return zlib.decompress(blob).decode("utf-8", "surrogatepass")


KEY_BYTES = 16


def key_bytes(text_hash: str) -> bytes:
    """The stored key of a sha256 hex digest (64 characters): its first 16 bytes."""
    return bytes.fromhex(text_hash[: 2 * KEY_BYTES])


def fts_tokens(chunk: "Chunk") -> str:
    """The token string the chunk's FTS5 row holds (:func:`paqad.index.tokens.index_document`)."""
    from paqad.index.chunking import keyword_text
    from paqad.index.tokens import index_document

    return index_document(keyword_text(chunk))


def fts_tokens_of(path: str, symbol: str | None, signature: str | None, text: str) -> str:
    """:func:`fts_tokens` of a chunk known only by its stored columns (lines and kind do not matter)."""
    from paqad.index.chunking import Chunk

    return fts_tokens(Chunk(path, 1, 1, "", symbol, "block", signature, text))


def token_hash(tokens: str) -> int:
    """A signed 64-bit integer from the sha256 of ``tokens`` (what ``chunks.fts_hash`` holds)."""
    return int.from_bytes(hashlib.sha256(tokens.encode("utf-8", "surrogatepass")).digest()[:8], "big", signed=True)
