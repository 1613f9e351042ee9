"""Release copies (issue 24, round 6): a folder named for a dotted release (``v1.7/``, ``1.7/``,
``2.4.1/``) when a candidate of the same parent folder lives in a newer release's folder x
``version_prior`` (the factor of ``version_copies``), unless the query names that release.

jq keeps its manual once per release (``docs/content/manual/v1.3/manual.yml`` ... ``v1.8/``, and
``dev/``): six near-identical copies of the same prose took the first six places of questions
about the C code (dev jq-06, jq-12, jq-16). ``version_copies`` reads only whole-number folders
(zod's ``v3/`` beside ``v4/``); this reads the dotted ones, so the newest release's copy (and a
``dev/`` or ``latest/`` beside it) keeps its place and the older ones go below the code.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

# a folder named for a release with at least one dot: v1.7/, 1.7/, 2.4.1/ (not v3/: version_copies)
_RELEASE = re.compile(r"(^|/)v?(\d+(?:\.\d+)+)/", re.IGNORECASE)
_ASKED = re.compile(r"\bv?(\d+(?:\.\d+)+)\b", re.IGNORECASE)


def release_of(path: str) -> tuple[str, tuple[int, ...]] | None:
    """``(parent folder, release as a tuple)`` of the innermost release folder in ``path``
    (``docs/manual/v1.7/manual.yml`` -> ``("docs/manual/", (1, 7))``), None without one."""
    matches = list(_RELEASE.finditer(path))
    if not matches:
        return None
    last = matches[-1]
    return path[:last.start(2)].rstrip("vV"), tuple(int(p) for p in last.group(2).split("."))


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with ``version_prior`` on chunks of an older release's folder beside a newer one."""
    found: dict[int, tuple[str, tuple[int, ...]]] = {}
    newest: dict[str, tuple[int, ...]] = {}
    for cid in scores:
        release = release_of(context.rows[cid].path)
        if release:
            found[cid] = release
            newest[release[0]] = max(newest.get(release[0], ()), release[1])
    if all(release == newest[parent] for parent, release in found.values()):
        return scores  # no older copy beside a newer one among the candidates
    asked = {tuple(int(p) for p in v.split(".")) for v in _ASKED.findall(context.info.text)}
    out = dict(scores)
    for cid, (parent, release) in found.items():
        if release < newest[parent] and release not in asked and context.rows[cid].path not in context.named_paths:
            out[cid] *= context.options.version_prior
    return out
