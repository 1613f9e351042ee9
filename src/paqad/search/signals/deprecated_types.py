"""Deprecated types for questions (issue 24, round 8): a file whose own top-level type is marked
deprecated (Java/Kotlin ``@Deprecated public class Parser``, C# ``[Obsolete] public class X``)
is kept for old callers; the code a question is about is its replacement.

Libraries keep the old API beside the new one for years: commons-cli (dev) has ``Parser``,
``BasicParser``, ``GnuParser``, ``PosixParser``, ``OptionBuilder`` and the old ``HelpFormatter``
annotated ``@Deprecated``, each with Javadoc in the words of the questions its successor answers
("where are missing required options detected after parsing": ``Parser.java`` ranked above
``DefaultParser.java``). It is the compatibility folder of ``compat_prior`` (``v3/``,
``legacy/``) one level down: a single file marked so by its own declaration.

A candidate file is a deprecated type's file when its text holds the annotation right before the
declaration of the type named like the file (:func:`is_deprecated_type_file`: other annotations
and modifiers may come between; a deprecated member of a live class does not count). In a prose
question (kinds ``where`` and ``architecture``) that does not ask for old, deprecated or legacy
code (:data:`_ASKS_FOR_OLD`), its chunks x ``RankingOptions.deprecated_prior``, unless the query
names the file. 1.0 = off (ablation ``no-deprecated-types``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from paqad.search.analysis import SYMBOL

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

_TYPED_PATH = re.compile(r"\.(java|kt|cs)$")
_ASKS_FOR_OLD = re.compile(r"\b(deprecat\w*|old|older|legacy|obsolete|former|previous|earlier|replaced|compat\w*)\b",
                           re.IGNORECASE)


@lru_cache(maxsize=256)
def _declaration(stem: str) -> re.Pattern[str]:
    return re.compile(
        r"(?:@Deprecated\b(?:\([^)]*\))?|\[Obsolete\b[^\]]*\])\s*"  # the mark
        r"(?:(?:@\w+(?:\([^)]*\))?|\[\w+[^\]]*\])\s*)*"  # other annotations or attributes
        r"(?:(?:public|internal|protected|private|abstract|final|sealed|static|open|partial|data)\s+)*"
        rf"(?:class|interface|enum|@interface|record|object)\s+{re.escape(stem)}\b")


def is_deprecated_type_file(path: str, text: str) -> bool:
    """True when ``path`` is a Java, Kotlin or C# file whose type named like the file is marked
    ``@Deprecated`` / ``[Obsolete]`` on its declaration."""
    if not _TYPED_PATH.search(path):
        return False
    stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
    return ("Deprecated" in text or "Obsolete" in text) and bool(_declaration(stem).search(text))


def applies(context: RankingContext) -> bool:
    """A prose question that does not ask for old code, with the index's file texts at hand."""
    info = context.info
    return info.kind != SYMBOL and context.file_text is not None and not _ASKS_FOR_OLD.search(info.text)


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores x ``deprecated_prior`` on the chunks of deprecated types' files (prose questions)."""
    if not applies(context):
        return scores
    return context.files_scaled(scores, lambda path: bool(_TYPED_PATH.search(path)), is_deprecated_type_file,
                                context.options.deprecated_prior)
