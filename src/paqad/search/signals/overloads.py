"""Overload signatures (issue 24): of the chunks of one file that define the same symbol, the one
with the body ranks first.

TypeScript declares overloads as body-less signatures right above the implementation
(``export function each<T>(obj: T, iter: ...): void`` then ``export function each(obj, iter) {``),
and the chunker makes each its own chunk with the symbol-table entry of the name, so both get the
full definition share; the signature chunk, shorter and holding the doc comment, then wins the
lookup. Here, in a brace language (:data:`BRACE_LANGUAGES`), a defining function or method chunk whose last line of
code does not close a body (it ends with ``)``, a return type or ``;``, not ``}``) gets
``overload_share`` x its share when a function or method chunk of the same file and symbol that
does close one defines the name too. A chunk that opens a body it does not close (the first piece
of a long method the chunker cut: more ``{`` than ``}`` in its code) has a body too
(``split_bodies``; off, Java's 75-line ``CodeBlock.Builder.add`` lost to a 4-line overload). A body-less declaration alone (an interface method, an abstract method, a
header prototype) keeps its share: it is then the best place the name is described.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext
    from paqad.store import ChunkRow

# languages whose bodies are closed by `}` (what "has a body" is read from)
BRACE_LANGUAGES = frozenset({"typescript", "tsx", "javascript", "java", "c", "cpp", "csharp", "php",
                             "go", "rust", "swift", "kotlin", "scala", "dart"})
_COMMENT_STARTS = ("//", "/*", "*", "#")
# overloads are functions and methods (a tuple struct `struct S(T);` beside its `impl S` is not one)
FUNCTION_KINDS = frozenset({"function", "method"})


def _last_code_line(text: str) -> str:
    """The chunk's last line that is not blank or a comment, without a trailing ``//`` comment."""
    for line in reversed(text.split("\n")):
        code = line.split("//", 1)[0].strip()
        if code and not code.startswith(_COMMENT_STARTS):
            return code
    return ""


def closes_body(row: ChunkRow) -> bool:
    """Whether the chunk's code ends by closing a body (``}``, ``};``, ``})``)."""
    return _last_code_line(row.text).rstrip(";),").endswith("}")


def opens_body(row: ChunkRow) -> bool:
    """Whether the chunk's code opens more braces than it closes (a definition cut after its first
    piece), comments left out."""
    depth = 0
    for line in row.text.split("\n"):
        code = line.split("//", 1)[0].strip()
        if code and not code.startswith(_COMMENT_STARTS):
            depth += code.count("{") - code.count("}")
    return depth > 0


def prefer_bodies(context: RankingContext, shares: dict[int, float]) -> dict[int, float]:
    """Shares x ``overload_share`` for body-less defining chunks beside a defining chunk of the
    same file and symbol that has the body."""
    if context.options.overload_share == 1.0:
        return shares
    with_body: set[tuple[str, str]] = set()
    bodyless: list[int] = []
    for cid in shares:
        row = context.rows[cid]
        if not row.symbol or not row.defines or row.kind not in FUNCTION_KINDS or row.language not in BRACE_LANGUAGES:
            continue
        if closes_body(row) or (context.options.split_bodies and opens_body(row)):
            with_body.add((row.path, row.symbol))
        else:
            bodyless.append(cid)
    out = dict(shares)
    for cid in bodyless:
        row = context.rows[cid]
        if (row.path, row.symbol) in with_body:
            out[cid] = shares[cid] * context.options.overload_share
    return out
