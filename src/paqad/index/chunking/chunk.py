"""The chunk type, what is embedded and keyword-indexed for it, and the chunker's constants (DESIGN §6)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

# Bump whenever chunk boundaries, symbols, kinds, signatures, dense_text or keyword_text could change:
# the index records it and rebuilds when it differs (DESIGN §6).
CHUNKER_VERSION = "8"  # 8: C/C++ scope macros alone on a line blanked, a Windows `#if` body blanked before its `#else`, heads in blanked bodies as symbols (round 11); 7: C/C++ prefix macros blanked, `#if`/`#else` branches re-parsed, typedef tags and in-class methods as symbols (round 10); 6: C/C++ export/annotation macros blanked before parsing (cpp_macros.py); 5: a C/C++ forward declaration defines nothing; yacc/lex files

# Budget for chunk.text, in characters. all-MiniLM-L6-v2 reads 256 word pieces (model card,
# max_seq_length 256). Measured with its tokenizer on Python sources: 3.5 characters per word
# piece on average (10th percentile 2.5); with a ~30-piece header, 800 characters puts a
# median full chunk at the window, 1000 would overflow it in 9 windows out of 10.
MAX_CHUNK_CHARS = 800
SIGNATURE_MAX_CHARS = 200
SYMBOL_PART_MAX_CHARS = 100

KINDS = ("function", "method", "class", "impl", "module", "section", "key", "block", "window")


@dataclass(frozen=True)
class Chunk:
    """One passage of one file.

    ``path`` is project-relative with ``/``; ``start_line``/``end_line`` are 1-based and
    inclusive; ``symbol`` is a dotted path (``Session.request``) or None for module-level
    statements and merged blocks; ``kind`` is one of :data:`KINDS`; ``signature`` is the line
    naming the definition, stripped, at most 200 characters; ``defines`` says whether the chunk
    holds the line that names ``symbol`` (the definition line, heading or key: a name lookup
    lands there); ``definitions`` lists every symbol whose naming line the chunk holds (its own,
    and those of tiny definitions merged into it); ``text`` is exactly the file's
    lines ``start_line..end_line`` joined with ``"\\n"`` (no ``"\\r"``), credentials cut out
    (:mod:`paqad.index.redact`).
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
    definitions: tuple[str, ...] = ()

    @property
    def content_hash(self) -> str:
        """sha256 hex digest (64 characters) of ``text`` encoded as UTF-8."""
        return hashlib.sha256(self.text.encode("utf-8", "surrogatepass")).hexdigest()


def dense_text(chunk: Chunk) -> str:
    """What is embedded for ``chunk``: a short deterministic header, newline, the text.

    Header lines, each only when known: ``symbol: <symbol>`` and ``signature: <signature>``
    (left out when the text already shows it near its top). The path is left out on purpose:
    a renamed or moved file with the same content then hits the embedding cache (issue "Search
    and deliver"); the path goes into :func:`keyword_text`. ``chunk.text`` is what is shown.
    """
    header = []
    if chunk.symbol:
        header.append(f"symbol: {chunk.symbol}")
    if chunk.signature and chunk.signature not in chunk.text[:300]:
        header.append(f"signature: {chunk.signature}")
    return "\n".join(header) + "\n" + chunk.text if header else chunk.text


def keyword_text(chunk: Chunk) -> str:
    """What is keyword-indexed (BM25) for ``chunk``: ``path: <path>`` then :func:`dense_text`."""
    return f"path: {chunk.path}\n" + dense_text(chunk)

