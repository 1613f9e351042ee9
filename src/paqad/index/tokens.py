"""Code-aware tokens for the BM25 keyword index and for keyword queries (the same rules on both sides).

``getUserName``, ``get_user_name`` and ``get user name`` all produce ``get``, ``user``,
``name``; an identifier also keeps its whole lowercased form without separators
(``getusername``) so an exact identifier query ranks its definition first. Names are read in
any script (``größe_berechnen`` -> ``größe``, ``berechnen``, ``größeberechnen``); a run of a script
written without spaces (Han, kana, Hangul) is a token of its own (``安全cookie签名`` -> ``安全``,
``cookie``, ``签名``). ASCII text gets exactly the tokens it got before round 11.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import chain

# What an identifier is made of, in every script: the one definition the query analysis, the
# keyword index and the ranking signals share (`café_total`, `Größe`, `用户名`, `_private`). On
# ASCII text each pattern matches exactly what `[A-Za-z_]`, `[A-Za-z_][A-Za-z0-9_]*` and
# `[A-Za-z]` did, so an index of ASCII code tokenizes byte for byte as before.
NAME_START = r"(?!\d)\w"  # a letter of any script or "_"
NAME = NAME_START + r"\w*"  # an identifier: snake_case, camelCase, größe_berechnen, 用户名
LETTER = r"[^\W\d_]"  # a letter of any script


def name_start(extra: str = "") -> str:
    """A pattern for one character that starts a name: :data:`NAME_START` or one of ``extra``
    (characters that are literal inside ``[...]``: ``"$"`` for JavaScript and PHP, ``"$~"``
    for a C++ destructor)."""
    return rf"(?!\d)[\w{extra}]"


# Scripts written without spaces between words (Hangul Jamo, Hiragana, Katakana, Hangul, Han and its
# extensions): a run of them is one token of its own, never part of a Latin name beside it, as people
# write "安全cookie签名" and "call_laterはどこ" without a space (cookie + 签名, call_later + はどこ).
UNSPACED = ("\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
            "\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f")
_IDENTIFIER = re.compile(rf"[^\W\d{UNSPACED}][^\W{UNSPACED}]*|[{UNSPACED}]+|\d+")
_ASCII_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")  # the same on ASCII text, 2.4x faster
_SCRIPT_BOUNDARY = re.compile(rf"(?<=[{UNSPACED}])(?=[^\W_{UNSPACED}])|(?<=[^\W_{UNSPACED}])(?=[{UNSPACED}])")


def spaced(text: str) -> str:
    """``text`` with a space where a run of an :data:`UNSPACED` script meets a letter or digit of
    another script, so that a name written against it reads as a name: ``IOLoop.call_laterはどこ``
    -> ``IOLoop.call_later はどこ``. ``_`` is no boundary (``用户_名称`` stays one name); ASCII text is
    returned as is."""
    return text if text.isascii() else _SCRIPT_BOUNDARY.sub(" ", text)


# camelCase / PascalCase / ACRONYMWord boundaries: "HTTPServerError" -> HTTP, Server, Error; matched
# on case_shape(), so "GrößeBerechnen" -> Größe, Berechnen
_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+")


@lru_cache(maxsize=1 << 14)
def case_shape(text: str) -> str:
    """``text`` with each non-ASCII character replaced by an ASCII one of its kind, so that an
    ASCII pattern about case (``[A-Z]``, ``[a-z0-9][A-Z]``) reads any script: an upper-case
    letter becomes ``A``, a decimal digit ``0``, any other word character (a lower-case letter,
    a letter of a script without case: CJK, Arabic) ``a``, anything else a space. Same length
    as ``text``, so a match's span is the span in ``text``; ASCII text is returned as is.

        case_shape("GrößeBerechnen")  # 'GraaeBerechnen'
    """
    if text.isascii():
        return text
    return "".join(ch if ch.isascii() else "A" if ch.isupper() else "0" if ch.isdecimal()
                   else "a" if ch.isalnum() else " " for ch in text)

# Words that carry no signal in a question about code. Kept short on purpose: programming
# keywords such as "return" or "class" can matter in a query and are left in.
STOPWORDS = frozenset(
    """a an and are as at be by can do does did for from how i in is it its me my of on or our
    so that the their them then there these this to was we what when where which who why will
    with you your should would could please show find tell give get where's what's whats into
    about any all code file files function functions method methods""".split()
)
# "get" is a stopword in questions ("get me the ...") but a real part of identifiers; split parts
# of an identifier are never dropped, only free-standing question words.


def identifier_parts(identifier: str) -> list[str]:
    """Split one identifier into lowercased parts: ``parseHTTPResponse_v2`` -> parse, http, response, v2."""
    parts: list[str] = []
    for piece in identifier.split("_"):
        if not piece:
            continue
        if piece.isascii():
            parts.extend(p.lower() for p in _CAMEL_PART.findall(piece))
        else:
            parts.extend(piece[m.start():m.end()].lower() for m in _CAMEL_PART.finditer(case_shape(piece)))
    return parts


@lru_cache(maxsize=1 << 17)
def _word_tokens(word: str) -> tuple[str, ...]:
    """One identifier's index tokens: its parts, then its joined form when it has several parts.

    Cached: a code base repeats its identifiers, and this was most of the time of building a
    large index's keyword side (a 52k-chunk project: 3.6M identifiers, 14 s of 25 s uncached).
    """
    parts = identifier_parts(word)
    joined = word.replace("_", "").lower()
    if len(parts) > 1 and joined:
        return (*parts, joined)
    return tuple(parts)


def _identifiers(text: str) -> list[str]:
    """The identifiers and numbers of ``text`` in order (:data:`_IDENTIFIER`; an ASCII text through the
    equal, faster ASCII pattern: most chunks of code are ASCII)."""
    return (_ASCII_IDENTIFIER if text.isascii() else _IDENTIFIER).findall(text)


def index_tokens(text: str) -> list[str]:
    """Tokens to store in the FTS5 index for ``text``: every identifier's parts plus its joined form."""
    return list(chain.from_iterable(map(_word_tokens, _identifiers(text))))


def index_document(text: str) -> str:
    """The space-joined token string stored in the FTS5 column (tokenised by ``unicode61``)."""
    return " ".join(chain.from_iterable(map(_word_tokens, _identifiers(text))))


def query_terms(query: str) -> list[str]:
    """Distinct search terms of a query, in first-seen order, question stopwords removed.

    A free-standing stopword is dropped; parts of a compound identifier are all kept.
    """
    seen: dict[str, None] = {}
    for match in _IDENTIFIER.finditer(query):
        word = match.group(0)
        parts = identifier_parts(word)
        if len(parts) > 1:
            for part in parts:
                seen.setdefault(part, None)
            seen.setdefault(word.replace("_", "").lower(), None)
        elif parts and parts[0] not in STOPWORDS and len(parts[0]) > 1:
            seen.setdefault(parts[0], None)
    return list(seen)
