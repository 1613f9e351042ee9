"""Waivers a long prompt's title asks for (issue 24, round 6): a pasted bug report or a commit
message reaches the code, not the README, the docs pages or the CI and packaging files.

The prose and data priors are waived for any query holding a docs word ("docs", "README") or a
configuration word ("version", "install", "config", "build", "package", "features": see
:func:`paqad.search.analysis.asked_kinds`). A long prompt (400+ characters or 6+ lines) holds one
in passing almost always ("pip install", "version 4.67.1", "as the docs say"), so every README,
docs page, workflow and ``pyproject.toml`` loses its prior. Here, in a long prompt, a waiver holds
only when the **first line** (an issue's title, a commit's subject; a first line over 160
characters, or one ending in ":" that leads into a quoted block, is not a title, and then
nothing changes) asks for that kind; otherwise
the kind's prior (``prose_prior``, ``data_prior``) is applied after all (``title_waivers``), and
with ``issue_prose_prior`` < 1 such files are multiplied by it once more. Files the prompt names,
and kinds that hold most of the project's code (``context.exempt``), keep their waiver. Tests are
``issue_prompts``'s (it re-applies the tests prior in long prompts already).

Switches: ``RankingOptions.title_waivers``, ``issue_prose_prior`` (ablations ``with-title-waivers``,
``with-issue-prose``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paqad.search.analysis import asked_kinds
from paqad.search.priors import path_kinds
from paqad.search.signals.title_names import title_line

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext


def reapplied(context: RankingContext) -> dict[str, float]:
    """Prior kind -> the factor applied again for this query (empty for a short prompt, and for a
    long one whose first line is a paragraph, not a title: ``title_names.title_line``): for
    ``prose`` and ``data`` files when the title line does not ask for them, the kind's prior where
    the prompt's body alone waived it (``title_waivers``), times ``issue_prose_prior`` (a pasted
    report's docs and config files below its code even where the prior was in force)."""
    info, options = context.info, context.options
    title = title_line(info.text)
    if not info.long or not title or title.endswith(":"):  # "... I get this on stderr:" leads into a block
        return {}
    asked = asked_kinds(title)
    out = {}
    for kind, waived, prior in (("prose", info.mentions_docs, options.prose_prior),
                                ("data", info.mentions_config, options.data_prior)):
        if kind in asked or kind in context.exempt:
            continue
        factor = (prior if waived and options.title_waivers else 1.0) * options.issue_prose_prior
        if factor != 1.0:
            out[kind] = factor
    return out


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with the prose / data priors applied again where only the prompt's body waived them."""
    factors = reapplied(context)
    if not factors:
        return scores
    out = dict(scores)
    for cid in scores:
        row = context.rows[cid]
        if row.path in context.named_paths:
            continue
        for kind in path_kinds(row.path, row.language, "") & factors.keys():
            out[cid] *= factors[kind]
    return out
