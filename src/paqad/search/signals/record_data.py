"""Record data: a chunk of source code that is only literal records (a generated table, a list of
test vectors, a word list) is data, and ranks below code like a YAML or JSON file does (issue 19:
a 71 KB generated Lua list won pasted error messages at 81-91 %, because its records repeat the
messages' words).

The data path prior (``RankingOptions.data_prior``, 0.5; waived when the query is about
configuration) multiplies such chunks' scores. Files in a data language (YAML, JSON, TOML) already
get it from :mod:`~paqad.search.signals.path_priors`, and prose is never data. A chunk is record
data when at least :data:`MIN_RECORD_LINES` of its lines, and :data:`MIN_RECORD_SHARE` of its
lines that are not only brackets, are records: after taking out string and number literals,
``true``/``false``/``nil``/``null``, and ``key =`` / ``key:`` / ``[key] =`` keys, nothing but
brackets, commas, semicolons and ``:``/``=``/``=>`` is left, and the line held two literals or a
keyed one (a lone string per line is an import block or a name list, not records). Decided per
chunk, at query time: the index is unchanged, and a file of code around one literal table keeps
its code chunks' scores.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from paqad.search.priors import DATA_LANGUAGES, PROSE_LANGUAGES

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

# Tuned on the ranking benchmark's dev half (bench/README.md, "Delivered passages (issue 19)").
MIN_RECORD_LINES = 6
MIN_RECORD_SHARE = 0.8
# Record chunks of one file among the candidates before they count: a table that spans chunks
# (generated data), not a block of constants in a module (echo's header names, axios' status codes).
MIN_DATA_CHUNKS = 2
# Only the best-scored candidates are looked at: a factor below 1 cannot lift the others into the
# delivered list (rag_top_n at most 20 in practice), and reading every candidate's lines cost 2x rank().
CANDIDATES = 60
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|`[^`\n]*`')
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:0[xXbB][0-9a-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:[eE][-+]?\d+)?)[uUlLfF]*(?![\w.])")
_WORD_LITERAL = re.compile(r"\b(?:true|false|nil|null|None|True|False|undefined)\b")
_KEY = re.compile(r"\[\s*\]\s*=(?!=)|\b\w+\s*(?:=(?!=)|:(?!:))")  # ["k"] = (its string gone), k =, k:
_PUNCTUATION = re.compile(r"[\s{}\[\](),;:=>]*")
_BRACKETS_ONLY = re.compile(r"[\s{}\[\](),;]+")
_LITERAL_HINT = re.compile(r"[\d\"'`]|true|false|nil|null|None|True|False|undefined")  # cheap test first


def _is_record(line: str) -> bool:
    """True for a record line (the module's rule); ``line`` is stripped, not blank, not brackets only."""
    rest, strings = _STRING.subn("", line)
    rest, numbers = _NUMBER.subn("", rest)
    rest, words = _WORD_LITERAL.subn("", rest)
    rest, keys = _KEY.subn("", rest)
    literals = strings + numbers + words
    keyed = keys or ":" in rest or "=>" in rest  # "key": value, 'key' => value
    # a record: several literals, or a keyed one (a lone string per line is an import or a name list)
    return bool(literals >= 2 or (literals and keyed)) and bool(_PUNCTUATION.fullmatch(rest))


def _lines(text: str) -> list[str]:
    """The stripped lines of ``text`` that are neither blank nor brackets only."""
    return [line for line in (raw.strip() for raw in text.split("\n")) if line and not _BRACKETS_ONLY.fullmatch(line)]


def record_lines(text: str) -> tuple[int, int]:
    """``(record lines, lines that are not blank or brackets only)`` of a chunk's ``text``."""
    lines = _lines(text)
    return sum(1 for line in lines if _is_record(line)), len(lines)


def is_record_data(text: str, language: str) -> bool:
    """True when a chunk of ``language`` is literal records (see the module's rule). Stops at the
    first line that makes the share unreachable: most chunks of code are decided in a few lines."""
    if language in DATA_LANGUAGES or language in PROSE_LANGUAGES:
        return False
    lines = _lines(text)
    allowed = len(lines) - max(MIN_RECORD_LINES, MIN_RECORD_SHARE * len(lines))
    misses = 0
    for line in lines:
        if not _LITERAL_HINT.search(line) or not _is_record(line):
            misses += 1
            if misses > allowed:
                return False
    return len(lines) - misses >= MIN_RECORD_LINES


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with record-data chunks times ``data_prior`` when :data:`MIN_DATA_CHUNKS` of one file
    are candidates (unless the query is about configuration, or names the chunk's file)."""
    if context.info.mentions_config or "data" in context.exempt:
        return scores
    data: dict[str, list[int]] = {}
    for cid in sorted(scores, key=lambda c: (-scores[c], c))[:CANDIDATES]:
        row = context.rows[cid]
        if row.path not in context.named_paths and is_record_data(row.text, row.language):
            data.setdefault(row.path, []).append(cid)
    out = dict(scores)
    for ids in data.values():
        if len(ids) >= MIN_DATA_CHUNKS:  # a long table, not one block of hand-written constants
            for cid in ids:
                out[cid] = scores[cid] * context.options.data_prior
    return out
