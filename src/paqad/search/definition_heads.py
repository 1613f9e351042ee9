"""Definition heads (issue 24): a split definition that names itself on its last line lands on
its first piece.

C and C++ name a ``typedef struct yaml_emitter_s { ... } yaml_emitter_t;`` after its body, so the
chunker's symbol-table entry for ``yaml_emitter_t`` (the chunk holding the naming line) is the
struct's *last* piece when the struct is longer than one chunk, and an exact-name lookup lands on
the closing fields rather than on the ``typedef struct`` line a reader starts from. Every piece of
a split definition keeps the definition's symbol, kind and signature (the naming line: here
``} yaml_emitter_t;``), so the head is found from the index alone, at query time (no chunker or
schema change): walking back from the table's chunk over the file's chunks of the same symbol and
kind.

Only for naming lines that start with a closing bracket (``}``): elsewhere the naming line is the
definition's first line (``def``, ``fn``, ``class``), and an earlier piece of the same symbol is
the doc comment above it, which a lookup should not land on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from paqad import store as store_mod

MAX_PIECES = 64  # pieces walked back from the naming line (a 230-line struct is 9 pieces of 800 characters)


def names_last(signature: str | None) -> bool:
    """Whether a definition's naming line closes its body (``} yaml_emitter_t;``, ``} Name, *PName;``)."""
    return bool(signature) and signature.lstrip().startswith("}")


def definition_heads(store: store_mod.IndexStore, chunk_ids: Iterable[int]) -> dict[int, int]:
    """``{table chunk id: head chunk id}`` for the symbol-table chunks among ``chunk_ids`` whose
    definition names itself last and starts in an earlier chunk of the same symbol and kind
    (chunks that are their definition's head are left out)."""
    heads: dict[int, int] = {}
    rows = store.chunks_by_id(list(dict.fromkeys(chunk_ids)))
    for cid, row in rows.items():
        if not row.symbol or not names_last(row.signature):
            continue
        head = cid
        for other, symbol, kind in store.chunks_before(row.path, row.start_line, MAX_PIECES):
            if symbol != row.symbol or kind != row.kind:
                break
            head = other
        if head != cid:
            heads[cid] = head
    return heads
