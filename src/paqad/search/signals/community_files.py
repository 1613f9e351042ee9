"""A repository's community files below its code (issue 24, round 6): ``CONTRIBUTING``,
``SECURITY``, ``CODE_OF_CONDUCT``, ``SUPPORT``, ``GOVERNANCE``, ``MAINTAINERS`` (at the root, in
``.github/`` or ``docs/``) speak of pull requests, builds, tests, bugs and releases in the words of
every bug report and commit message ("Change coding style of PR", "improve code quality"), and
answer none of them. Such a file's chunks x ``community_prior`` unless the query names the file or
asks what they are about (:data:`ASKS`: contributing, security policy, vulnerability, conduct,
governance, maintainers).

Switch: ``RankingOptions.community_prior`` (1.0 = off; ablation ``with-community-files``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

# upper case, as GitHub names them: a module security.py is code
_COMMUNITY = re.compile(r"(^|/)(CONTRIBUTING|SECURITY|CODE_OF_CONDUCT|SUPPORT|GOVERNANCE|MAINTAINERS)"
                        r"(\.(md|rst|txt|adoc|markdown))?$")
ASKS = re.compile(r"\b(contribut\w*|security polic\w*|vulnerabilit\w*|disclos\w*|conduct|governance|maintainers?)\b",
                  re.IGNORECASE)


def is_community_file(path: str) -> bool:
    """True for ``CONTRIBUTING.md``, ``.github/SECURITY.md``, ``CODE_OF_CONDUCT.rst``, ...;
    ``path`` project-relative with ``/``."""
    return bool(_COMMUNITY.search(path))


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores x ``community_prior`` for chunks of community files the query does not ask for."""
    if ASKS.search(context.info.text):
        return scores
    out = dict(scores)
    for cid in scores:
        path = context.rows[cid].path
        if path not in context.named_paths and is_community_file(path):
            out[cid] *= context.options.community_prior
    return out
