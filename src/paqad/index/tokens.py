"""Code-aware tokens for the BM25 keyword index and for keyword queries (the same rules on both sides).

``getUserName``, ``get_user_name`` and ``get user name`` all produce ``get``, ``user``,
``name``; an identifier also keeps its whole lowercased form without separators
(``getusername``) so an exact identifier query ranks its definition first.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import chain

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")
# camelCase / PascalCase / ACRONYMWord boundaries: "HTTPServerError" -> HTTP, Server, Error
_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+")

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
        parts.extend(p.lower() for p in _CAMEL_PART.findall(piece))
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


def index_tokens(text: str) -> list[str]:
    """Tokens to store in the FTS5 index for ``text``: every identifier's parts plus its joined form."""
    return list(chain.from_iterable(map(_word_tokens, _IDENTIFIER.findall(text))))


def index_document(text: str) -> str:
    """The space-joined token string stored in the FTS5 column (tokenised by ``unicode61``)."""
    return " ".join(chain.from_iterable(map(_word_tokens, _IDENTIFIER.findall(text))))


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
