"""Type-only modules for questions (issue 24, round 7): a TypeScript module that only declares types.

A TypeScript project often keeps its public types in their own modules (ky's
``source/types/retry.ts``: ``export type RetryOptions = {...}`` with a paragraph of doc comment
per field). A behaviour question ("how is the delay before the next retry computed?") repeats
those doc comments' words, so the type module outranks the code that does it (``core/Ky.ts``,
``utils/normalize.ts``). Such a module is a ``.d.ts`` stub in all but its name (``path_priors``
gives stubs ``stub_prior``); it is found from the file's text: every top-level line (column 0,
outside block comments) is an import, a ``type``/``interface``/``declare`` statement, a type-only
export or the continuation of a type (``| 'a'``, ``> & {``, a closing bracket), and at least one
is a declaration.

In a prose question (kinds ``where`` and ``architecture``, long prompts included) every chunk of
such a module x ``type_module_prior``, unless the question asks for types or declarations
(:data:`_TYPE_WORDS`) or names the file. Switch: ``RankingOptions.type_module_prior`` (1.0 = off;
ablation ``with-type-modules``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from paqad.search.analysis import SYMBOL

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

# TypeScript sources (``.d.ts`` stubs are path_priors' already)
_SUFFIXES = (".ts", ".tsx", ".mts", ".cts")
_STUB_SUFFIXES = (".d.ts", ".d.mts", ".d.cts")
_TYPE_WORDS = re.compile(r"\b(types?|typings?|typed|interfaces?|declar\w*|signatures?|generics?)\b", re.IGNORECASE)
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
# a top-level line of a type-only module: imports, type statements, type-only exports, comments,
# closing brackets and the continuations of a multi-line type (unions, intersections, generics)
_TYPE_LINE = re.compile(
    r"^(import\b|export\s+(type|interface|declare|const\s+enum|\*\s+from|\{[^}]*\}\s+from)\b|export\s+type\s*\{"
    r"|(type|interface|declare)\s|const\s+enum\s|//|[}\])>|&?:'\"]|$)")
_DECLARATION = re.compile(r"^(export\s+)?(type|interface|declare)\b")


def is_type_module(text: str) -> bool:
    """True when a TypeScript file's ``text`` only declares types: every top-level line outside
    block comments matches :data:`_TYPE_LINE` and at least one is a ``type``/``interface``/
    ``declare`` statement (a file of imports and comments alone is not a type module)."""
    declarations = 0
    for line in _BLOCK_COMMENT.sub("", text).splitlines():
        if not line or line[0] in " \t":
            continue
        if not _TYPE_LINE.match(line):
            return False
        if _DECLARATION.match(line):
            declarations += 1
    return declarations > 0


def applies(context: RankingContext) -> bool:
    """A prose question that does not ask for types, with the index's file texts at hand."""
    info = context.info
    return info.kind != SYMBOL and context.file_text is not None and not _TYPE_WORDS.search(info.text)


def _typescript(path: str) -> bool:
    return path.endswith(_SUFFIXES) and not path.endswith(_STUB_SUFFIXES)


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores x ``type_module_prior`` on the chunks of type-only TypeScript modules (prose questions)."""
    if not applies(context):
        return scores
    return context.files_scaled(scores, _typescript, lambda _path, text: is_type_module(text),
                                context.options.type_module_prior)
