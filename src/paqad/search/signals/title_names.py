"""Names in an issue's title (issue 24): in a long prompt whose first line is short (a title, at
most ``TITLE_CHARS`` characters), a chunk the symbol table says defines an identifier of that line (a function, class or method
named so; not a keyword argument's default) gets
``title_share`` x ``definition_boost`` x the best fused score x its path priors (a test class
defining the hook a title names stays below the code). Plain words are not names here, even in
backticks (`` `default` ``).

A long prompt's identifiers get no definition share by default (``long_prompt_share`` 0: a pasted
report names dozens of functions, most of them callers or the reporter's own); the title names
what the report is about (``make_class(): Populate the __annotations__ dict``, ``TimeStamper
ignores utc flag``), so its names are the exception.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paqad.index.languages import SOURCE_LANGUAGES
from paqad.search.analysis import _is_identifier, analyze
from paqad.search.signals.path_priors import prior_of

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

TITLE_CHARS = 160


def title_line(text: str) -> str:
    """The prompt's first line when it reads as a title (at most :data:`TITLE_CHARS` characters),
    else "" (a paragraph, not a title)."""
    first = text.strip().split("\n", 1)[0].strip()
    return first if len(first) <= TITLE_CHARS else ""


def title_identifiers(text: str) -> tuple[str, ...]:
    """Identifier names of the prompt's first line when it reads as a title, else ()."""
    first = title_line(text)
    if not first:
        return ()
    # identifier-shaped only: a backticked plain word (`default`, `include`) names too much
    return tuple(dict.fromkeys(i.name for i in analyze(first).identifiers
                               if len(i.name) >= 3 and _is_identifier(i.text)))


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores plus the title share for chunks defining a title name (long prompts only)."""
    if not context.info.long:
        return scores
    names = title_identifiers(context.info.text)
    if not names:
        return scores
    options = context.options
    lift = options.title_share * options.definition_boost * context.best
    defining = {m.chunk_id for m in context.definitions if m.identifier.name in names and m.exact}
    out = dict(scores)
    for cid in defining.intersection(scores):  # a test's hook is still a test: x its priors
        if context.rows[cid].language not in SOURCE_LANGUAGES:
            continue  # a docs page's heading or example "defining" the name (immer's patches.mdx) is not its code
        out[cid] = scores[cid] + lift * prior_of(context.prior_factors.get(cid, ()))
    return out
