"""Names a long prompt holds that one file defines (issue 24, round 8): rarity as evidence.

A long prompt (a commit message with its body, a pasted report) names many identifiers and by
default none of them gets a definition share (``long_prompt_share`` 0: most are callers, the
reporter's own code or names every module defines, such as ``parse`` or ``__init__``). A name the
symbol table says is defined in exactly one file of the index is different: ``extend_from_within``,
``FileOnDefaultPath``, ``sum_string_vector`` point to one place.

For each identifier of a long prompt (its last component, at least :data:`MIN_NAME` characters)
whose exact-case definitions in the symbol table lie in ``n`` files, ``n`` at most
:data:`MAX_FILES`, each defining chunk among the candidates gains ``rare_name_share`` x the best
fused score / ``n`` x its path priors (a test helper that defines the name stays below the code);
a chunk defining several such names gains for each. 0.0 = off. Names defined in more than
:data:`MAX_FILES` files, or capped by the symbol pool (``MAX_DEFINITIONS_PER_NAME``), give nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paqad.index.languages import SOURCE_LANGUAGES
from paqad.search.signals.path_priors import prior_of

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

MIN_NAME = 4  # `get`, `run`, `add` are everywhere even when one file defines them
MAX_FILES = 2  # a name in three or more files says little about which


def rare_definitions(context: RankingContext) -> dict[int, float]:
    """Chunk id -> the sum over the prompt's rare names it defines of 1 / (files defining the name)."""
    files: dict[str, set[str]] = {}
    chunks: dict[str, set[int]] = {}
    for match in context.definitions:
        name = match.identifier.name
        row = context.rows.get(match.chunk_id)
        if not match.exact or len(name) < MIN_NAME or row is None:
            continue
        files.setdefault(name, set()).add(row.path)
        chunks.setdefault(name, set()).add(match.chunk_id)
    out: dict[int, float] = {}
    for name, paths in files.items():
        if len(paths) > MAX_FILES:
            continue
        for cid in chunks[name]:
            out[cid] = out.get(cid, 0.0) + 1.0 / len(paths)
    return out


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores plus the rare-name share of chunks defining a rare name (long prompts only)."""
    if not context.info.long:
        return scores
    lift = context.options.rare_name_share * context.best
    out = dict(scores)
    for cid, weight in rare_definitions(context).items():
        if cid not in scores or context.rows[cid].language not in SOURCE_LANGUAGES:
            continue
        out[cid] = scores[cid] + lift * weight * prior_of(context.prior_factors.get(cid, ()))
    return out
