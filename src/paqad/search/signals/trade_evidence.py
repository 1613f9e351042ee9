"""Trade evidence: a file's thin best chunk is traded for its code only when that code holds the
question's words (issue 19, "the passage that answers").

:mod:`~paqad.search.signals.passage_choice` trades a thin best chunk (a doc comment, a header, a
small function under a long comment) for the file's best chunk of code. When the thin chunk is
the small function that answers (``request_timeout`` under its doc comment for "how do the read,
write and open timeouts ... reach the adapter?", which holds 5 of the question's 8 terms), the
code chunk it would go to is a neighbour that holds few or none (``initialize``: 1 of 8). So a
trade needs the code chunk to hold at least :data:`~paqad.search.options.RankingOptions`
``passage_trade_coverage`` times the share of the query's search terms the thin chunk holds;
else the next code chunk of the file is tried, and with none the thin chunk stays.

A term is held when it occurs in the chunk's lowercased text (the index's tokens are lowercased
identifier parts and joined identifiers, ``retryDelay`` -> ``retrydelay``): a substring test, the
same that the result's ``term_coverage`` evidence uses (:func:`held_terms`).
"""

from __future__ import annotations


def held_terms(text: str, terms: tuple[str, ...] | list[str]) -> frozenset[str]:
    """The search ``terms`` (lowercased, :func:`~paqad.index.tokens.query_terms`) that occur in
    ``text`` (any case)."""
    lowered = text.lower()
    return frozenset(t for t in terms if t in lowered)


def coverage(text: str, terms: tuple[str, ...] | list[str]) -> float:
    """Share of ``terms`` that ``text`` holds, in [0, 1] (0.0 for no terms)."""
    return len(held_terms(text, terms)) / len(terms) if terms else 0.0


def may_trade(thin_text: str, code_text: str, terms: tuple[str, ...] | list[str], share: float) -> bool:
    """True when the code chunk ``code_text`` holds at least ``share`` x the share of ``terms``
    that the thin chunk ``thin_text`` holds (always true for ``share`` 0 or no terms)."""
    if share <= 0 or not terms:
        return True
    return coverage(code_text, terms) >= share * coverage(thin_text, terms)
