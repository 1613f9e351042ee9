"""Version copies (issue 24): chunks of a folder named for an older version or release, when a
candidate of the same parent folder lives in a newer one, x ``version_prior`` unless the query
names that version (or the file).

- ``vN/`` (round 4): zod's ``v3/`` beside ``v4/``, a compatibility copy over the current code;
- with ``release_copies`` (round 6, on): dotted releases too, with or without the ``v``
  (``v1.7/``, ``1.7/``, ``2.4.1/``), and ``v1/`` beside ``v1.8/``. jq keeps its manual once per
  release (``docs/content/manual/v1.3/manual.yml`` ... ``v1.8/``, and ``dev/``): six near-identical
  copies of the same prose took the first six places of questions about the C code (dev jq-06,
  jq-12, jq-16). The newest release's copy (and a ``dev/`` or ``latest/`` beside it) keeps its place.

- with ``suffix_versions`` (issue 24, round 10, on): a folder whose name ends in a version
  (``PhpseclibV2/`` beside ``PhpseclibV3/``, ``api_v1/`` beside ``api_v2/``): flysystem keeps its
  phpseclib 2 adapter next to the phpseclib 3 one, and the old copy's near-identical files took
  second place under commits and questions about the current one (git-mined dev flysystem). The
  older copy is kept when the query names it (``PhpseclibV2``, ``v2``).

A bare whole number (``2/``) is not a version folder: too many projects number other things.
Round 6 had this rule twice (``dotted_versions`` of prose-where in ``version_copies`` and
``release_copies`` of cpp-c, each x ``version_prior``); this is their one rule, applied once
(bench/README.md, "Round 7: review").
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

# a version folder, keyed by release_copies: v3/; and v1.7/, V1.7/, 1.7/, 2.4.1/ (not 2/, V3/)
_FOLDER = {False: re.compile(r"(^|/)v(\d+)/"),
           True: re.compile(r"(^|/)(?:v(\d+(?:\.\d+)*)|[vV]?(\d+(?:\.\d+)+))/")}
# a version the query names: v3; and v1.7, 1.7, 2.4.1 (not a bare 3)
_ASKED = {False: re.compile(r"\bv(\d+)\b", re.IGNORECASE),
          True: re.compile(r"\bv(\d+(?:\.\d+)*)\b|\b(\d+(?:\.\d+)+)\b", re.IGNORECASE)}


# a folder named for a version of something: PhpseclibV2/, api_v1/, client-v3/ (a name, then v and digits)
_SUFFIX = re.compile(r"(^|/)([A-Za-z][A-Za-z0-9]*?[A-Za-z0-9])[-_]?[vV](\d+)/")


def suffix_version_of(path: str) -> tuple[str, tuple[int, ...], str] | None:
    """``(parent folder + the name's lower-case stem, version, folder name)`` of the innermost
    folder named for a version (``src/PhpseclibV2/X.php`` -> ``("src/phpseclib", (2,),
    "PhpseclibV2")``), None without one."""
    matches = list(_SUFFIX.finditer(path))
    if not matches:
        return None
    last = matches[-1]
    return path[:last.start(2)] + last.group(2).lower(), (int(last.group(3)),), path[last.start(2):last.end(3)]


def _suffix_copies(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with ``version_prior`` on chunks of an older ``NameVn/`` folder beside a newer one."""
    found: dict[int, tuple[str, tuple[int, ...], str]] = {}
    newest: dict[str, tuple[int, ...]] = {}
    for cid in scores:
        version = suffix_version_of(context.rows[cid].path)
        if version:
            found[cid] = version
            newest[version[0]] = max(newest.get(version[0], ()), version[1])
    if all(version == newest[key] for key, version, _ in found.values()):
        return scores
    text = context.info.text.lower()
    asked = {_version(_number(m)) for m in _ASKED[True].finditer(context.info.text)}
    out = dict(scores)
    for cid, (key, version, name) in found.items():
        if (version < newest[key] and version not in asked and name.lower() not in text
                and context.rows[cid].path not in context.named_paths):
            out[cid] *= context.options.version_prior
    return out


def _number(match: re.Match[str]) -> str:
    """The version digits of a :data:`_FOLDER` or :data:`_ASKED` match (its one group that matched)."""
    return next(g for g in match.groups() if g and g[0].isdigit())


def _version(text: str) -> tuple[int, ...]:
    """``"1.7"`` -> ``(1, 7)``; tuples compare as versions (``(1, 10) > (1, 9) > (1,)``)."""
    return tuple(int(part) for part in text.split("."))


def version_of(path: str, releases: bool = True) -> tuple[str, tuple[int, ...]] | None:
    """``(parent folder, version as a tuple)`` of the innermost version folder in ``path``
    (``docs/manual/v1.7/manual.yml`` -> ``("docs/manual/", (1, 7))``), None without one.
    ``releases`` False: only ``vN/`` folders (``release_copies`` off)."""
    matches = list(_FOLDER[releases].finditer(path))
    if not matches:
        return None
    last = matches[-1]
    return path[:last.end(1)], _version(_number(last))


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with ``version_prior`` on chunks of an older version's folder beside a newer one."""
    if context.options.suffix_versions:
        scores = _suffix_copies(scores, context)
    releases = context.options.release_copies
    found: dict[int, tuple[str, tuple[int, ...]]] = {}
    newest: dict[str, tuple[int, ...]] = {}
    for cid in scores:
        version = version_of(context.rows[cid].path, releases)
        if version:
            found[cid] = version
            newest[version[0]] = max(newest.get(version[0], ()), version[1])
    if all(version == newest[parent] for parent, version in found.values()):
        return scores  # no older copy beside a newer one among the candidates
    asked = {_version(_number(m)) for m in _ASKED[releases].finditer(context.info.text)}
    out = dict(scores)
    for cid, (parent, version) in found.items():
        if version < newest[parent] and version not in asked and context.rows[cid].path not in context.named_paths:
            out[cid] *= context.options.version_prior
    return out
