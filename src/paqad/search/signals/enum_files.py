"""Bare enum files for questions (issue 24, round 8): a file that only declares an enum of plain
constants (Java ``public enum QuoteMode { ALL, ALL_NON_NULL, MINIMAL, NON_NUMERIC, NONE }``, a
TypeScript ``export enum``, a C# or Kotlin one).

Such a file is a few names under a long doc comment, and each constant's Javadoc says what the
code elsewhere does with it in the question's own words ("Quotes fields which contain special
characters such as the field delimiter, quote character or any of the characters in the line
separator"). On commons-csv (dev, round 8) ``QuoteMode.java`` was the first file for three
questions about quoting that the lexer, the printer and the format's validation answer
(commons-csv-14, -15, -16), like the exception files of round 7's ``error_types``.

A candidate file is a bare enum file when its text, comments, a ``package``/``import`` head and
annotations left out, is one ``enum Name { A, B, C }`` (constants optionally ``= value``, nothing
else: an enum with fields, constructors or methods is code and is left alone; :data:`_BARE_ENUM`).
In a prose question (kinds ``where`` and ``architecture``, long prompts included) its chunks x
``RankingOptions.enum_file_prior``, unless the question asks which modes, values, kinds or
options there are (:data:`_ASKS_FOR_VALUES`) or names the file. 1.0 = off (ablation
``no-enum-files``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from paqad.search.analysis import SYMBOL

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

_ENUM_PATH = re.compile(r"\.(java|kt|cs|ts|tsx|mts|cts)$")
_COMMENTS = re.compile(r"/\*.*?\*/|(^|\s)//[^\n]*", re.DOTALL)
_BARE_ENUM = re.compile(
    r"\s*(package\s+[\w.]+;?\s*)?(import\s+[\w.*]+;?\s*)*(@\w+(\([^)]*\))?\s*)*"
    r"((public|internal|export|declare)\s+)*(const\s+)?enum\s+(class\s+)?\w+\s*\{"
    r"\s*\w+(\s*=\s*[^,;{}]+)?(\s*,\s*\w+(\s*=\s*[^,;{}]+)?)*\s*,?\s*;?\s*\}\s*", re.DOTALL)
_ASKS_FOR_VALUES = re.compile(
    r"\b(which|what)\b[^.?!\n]{0,30}\b(modes?|values?|kinds?|options?|constants?|choices?|variants?)\b"
    r"|\benum\w*\b", re.IGNORECASE)


def is_bare_enum_file(path: str, text: str) -> bool:
    """True when ``path`` is a Java, Kotlin, C# or TypeScript file whose text (comments left out)
    declares one enum of plain constants and nothing else."""
    return bool(_ENUM_PATH.search(path)) and _BARE_ENUM.fullmatch(_COMMENTS.sub(" ", text)) is not None


def applies(context: RankingContext) -> bool:
    """A prose question that does not ask which values there are, with the index's file texts at hand."""
    info = context.info
    return info.kind != SYMBOL and context.file_text is not None and not _ASKS_FOR_VALUES.search(info.text)


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores x ``enum_file_prior`` on the chunks of bare enum files (prose questions)."""
    if not applies(context):
        return scores
    return context.files_scaled(scores, lambda path: bool(_ENUM_PATH.search(path)), is_bare_enum_file,
                                context.options.enum_file_prior)
