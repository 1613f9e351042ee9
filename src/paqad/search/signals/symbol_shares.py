"""What the issue-24 symbol signals (``reexports``, ``header_declarations``, ``qualified_members``,
``type_members``, ``macro_or_function``, ``root_package``) share: the factor an identifier's
place in the query gives a share, and a late additive boost.

They run after the ``definitions`` signal, the path priors, saturation and ``record_data`` (near
the end of :data:`~paqad.search.signals.PIPELINE`, before ``passage_choice``, so merges stay
simple); a share added there is scaled by the chunk's prior product, as if it had been added by
``definitions`` before the priors.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable

from paqad.search.analysis import Identifier
from paqad.search.signals.path_priors import prior_of

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext


def identifier_factor(context: RankingContext, identifier: Identifier) -> float:
    """The share an identifier's definition gets for where the query names it: 1.0 for the whole
    query, ``embedded_share`` inside prose, times ``long_prompt_share`` in a long prompt."""
    options = context.options
    if not identifier.embedded:
        return 1.0
    return options.embedded_share * (options.long_prompt_share if context.info.long else 1.0)


def add_shares(scores: dict[int, float], context: RankingContext, extra: dict[int, float]) -> dict[int, float]:
    """Scores plus ``definition_boost`` x best fused score x share x the chunk's prior product, for
    each chunk id -> share in ``extra``; a negative share takes a boost back (never below 0)."""
    out = dict(scores)
    unit = context.options.definition_boost * context.best
    for cid, share in extra.items():
        if share and cid in out:
            out[cid] = max(0.0, out[cid] + unit * share * prior_of(context.prior_factors.get(cid, ())))
    return out


def symbol_parts(symbol: str | None) -> list[str]:
    """A chunk's symbol split at ``.`` and ``::`` (``Immer.produce`` -> ``['Immer', 'produce']``)."""
    return [p for p in re.split(r"::|\.|#|->", symbol or "") if p]


def path_components(path: str) -> set[str]:
    """A path's folders and file stem, lower case, ``-`` as ``_`` (``crates/wire-core/src/lib.rs``
    -> ``{'crates', 'wire_core', 'src', 'lib'}``): what a crate, package or module name matches."""
    pieces = path.lower().replace("-", "_").split("/")
    return {*pieces[:-1], pieces[-1].split(".", 1)[0]}


def module_names(context: RankingContext) -> Callable[[str], frozenset[str]]:
    """What a qualifier part may name in a path: its :func:`path_components`, and with
    ``package_qualifiers`` (round 11) the names of the package it belongs to (``grep_regex`` for
    ``crates/regex/src/matcher.rs`` under ``[package] name = "grep-regex"``)."""
    packages = context.package_names if context.options.package_qualifiers else None
    if packages is None:
        return lambda path: frozenset(path_components(path))
    return lambda path: frozenset(path_components(path)) | packages(path)
