"""Error-type files for questions (issue 24, round 7): a file that only declares an exception class.

Libraries keep each exception in its own small file (commons-cli's
``MissingOptionException.java``, guzzle's ``src/Exception/ClientException.php``, ky's
``source/errors/NetworkError.ts``). Its doc comment says when it is thrown in the question's own
words ("thrown when a required option has not been provided"), so for "where are missing
required options detected?" or "how does ky decide whether an error is retried?" the exception
file outranks the code that detects the condition and throws (``DefaultParser.java``,
``core/Ky.ts``). On the dev half before this signal, 9 of 207 prose questions had a file named
like an error type among their first three; it was the grade-2 answer in one (ky-21, which asks
"what error is thrown").

A candidate file is an error-type file when its name says so (:data:`_ERROR_PATH`: ``...Exception.java``,
``...Error.ts``, a file in an ``errors/`` or ``exceptions/`` folder) and its text is short
(:data:`MAX_CODE_CHARS` of code, comments left out) and declares a class deriving from an error or
exception type (:data:`_DERIVES`). In a prose question (kinds ``where`` and ``architecture``, long
prompts included) its chunks x ``error_type_prior``, unless the question asks which error or
exception it gets (:data:`_ASKS_FOR_ERROR`: "what error is thrown?", "the exception hierarchy") or
names the file. Switch: ``RankingOptions.error_type_prior`` (1.0 = off; ablation ``with-error-types``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from paqad.search.analysis import SYMBOL

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

# a file of one exception class is short: commons-cli's longest (AmbiguousOptionException.java) has
# 1,241 characters of code without its license and Javadoc, jackson-core's StreamReadException.java
# 2,030; a module of many error classes (faraday's error.rb: 3,733) is a catalogue an answer may need
MAX_CODE_CHARS = 3000
_ERROR_PATH = re.compile(
    r"(Exception|Error)s?\.(java|kt|scala|cs|php|ts|tsx|js|mjs|py|rb|swift|dart)$"
    r"|(^|/)(errors?|exceptions?|exc)/[^/]+$", re.IGNORECASE)
_DERIVES = re.compile(
    r"\bclass\s+\w+(<[^>{]*>)?\s*(extends|:|<)\s*[\w.:\\]*(Exception|Error|Throwable)\b"  # Java, TS, PHP, Kotlin, C#, Ruby
    r"|\bclass\s+\w+\s*\(\s*[\w.]*(Exception|Error|Warning)\b")  # Python
_COMMENTS = re.compile(r"/\*.*?\*/|(^|\s)(//|#)[^\n]*|\"\"\".*?\"\"\"", re.DOTALL)
_ASKS_FOR_ERROR = re.compile(
    r"\b(which|what)\b[^.?!\n]{0,30}\b(errors?|exceptions?)\b"
    r"|\b(errors?|exceptions?)\s+(class|classes|type|types|hierarchy|subclass\w*)\b", re.IGNORECASE)


def is_error_type_file(path: str, text: str) -> bool:
    """True when ``path`` names an error type and ``text`` is a short file deriving a class from
    an error or exception type (comments are not counted in its length)."""
    if not _ERROR_PATH.search(path):
        return False
    code = _COMMENTS.sub(" ", text)
    return len(code) <= MAX_CODE_CHARS and bool(_DERIVES.search(code))


def applies(context: RankingContext) -> bool:
    """A prose question that does not ask which error it gets, with the index's file texts at hand."""
    info = context.info
    return info.kind != SYMBOL and context.file_text is not None and not _ASKS_FOR_ERROR.search(info.text)


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores x ``error_type_prior`` on the chunks of error-type files (prose questions)."""
    if not applies(context):
        return scores
    return context.files_scaled(scores, lambda path: bool(_ERROR_PATH.search(path)), is_error_type_file,
                                context.options.error_type_prior)
