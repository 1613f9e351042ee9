"""Platform variants and compatibility copies below the core code (issue 24), three signals:

- ``platform_variants``: a file for one platform (``win32/``, ``unix/``, ``util/env_windows.cc``,
  ``ae_kqueue.c``, ``terminal_check_bsd.go``, ``port/``) x ``platform_prior`` unless the query
  names that platform (or asks about platforms / portability in general); an architecture
  question about an event loop is about the core file, not its kqueue backend;
- ``named_platforms``: only when the query names a platform ("on Windows", "the epoll backend"):
  the variants for *other* platforms x ``named_platform_prior`` (the twin the query does not name
  must not crowd out the one it does). A question naming no platform is left alone, so a
  project whose only implementation of an interface is ``env_posix.cc`` keeps it;
- ``version_copies``: a folder ``vN/`` when a candidate of the same parent folder lives in a
  newer ``vM/`` (M > N: zod's ``v3/`` beside ``v4/``) x ``version_prior`` unless the query says
  ``vN``; with ``dotted_versions`` (issue 24, round 6) a dotted ``v1.7/`` beside ``v1.8/`` too
  (jq's ``docs/content/manual/v1.3/`` ... ``v1.8/``, six copies of the manual above the C code).
  ``legacy/``, ``compat/``, ``deprecated/`` folders are the ``compat`` path prior.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

# platform word -> the query words that name it (a query saying "windows" asks for win32/ too)
PLATFORMS = {
    "windows": ("windows", "win32", "win64", "win", "msvc", "mingw", "winsock", "iocp"),
    "unix": ("unix", "posix", "linux", "bsd", "darwin", "macos", "osx", "solaris", "unistd"),
    "kqueue": ("kqueue", "bsd", "macos", "darwin"),
    "epoll": ("epoll", "linux"),
    "appengine": ("appengine",),
    "wasm": ("wasm", "webassembly", "emscripten", "wasi"),
}
_ALIASES = {alias: platform for platform, aliases in PLATFORMS.items() for alias in aliases}
_ALIASES.update({"linux": "unix", "bsd": "unix", "darwin": "unix", "macos": "unix"})
PLATFORM_ALIASES = _ALIASES  # a word -> the platform it names (named_platforms reads conditions with it)
_GENERIC_WORDS = frozenset({"platform", "platforms", "portable", "portability", "port", "porting", "os",
                            "operating", "cross", "crossplatform"})
_TOKEN = "|".join(sorted((re.escape(a) for a in _ALIASES), key=len, reverse=True))
# a folder named for a platform, or a file stem ending in one (env_posix, terminal_check_windows,
# ae_select: event-loop backends; a folder select/ is jsoup's CSS selectors, not a backend)
_FOLDER = re.compile(rf"(^|/)({_TOKEN}|platforms?|ports?)/", re.IGNORECASE)
_STEM = re.compile(rf"(^|[_.-])({_TOKEN}|evport|devpoll|select|poll)$", re.IGNORECASE)
_VERSION = re.compile(r"(^|/)v(\d+)/")
_DOTTED_VERSION = re.compile(r"(^|/)v(\d+(?:\.\d+)*)/")
_ASKED = {False: re.compile(r"\bv(\d+)\b", re.IGNORECASE), True: re.compile(r"\bv(\d+(?:\.\d+)*)\b", re.IGNORECASE)}


def _version(text: str) -> tuple[int, ...]:
    """``"1.7"`` -> ``(1, 7)``; tuples compare as versions (``(1, 10) > (1, 9) > (1,)``)."""
    return tuple(int(part) for part in text.split("."))


@lru_cache(maxsize=16384)
def platform_words(path: str) -> frozenset[str] | None:
    """The platforms a path is a variant for (``frozenset()`` for a generic ``platform/`` or
    ``port/`` folder), ``None`` for a core file."""
    stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
    names = [m.group(2).lower() for m in _FOLDER.finditer(path)]
    stem_hit = _STEM.search(stem)
    if stem_hit and stem_hit.start() > 0 or stem_hit and stem.lower() in _ALIASES:
        names.append(stem_hit.group(2).lower())
    if not names:
        return None
    return frozenset(_ALIASES.get(n, n) for n in names if not n.startswith(("platform", "port")))


def _query_platforms(context: RankingContext) -> tuple[frozenset[str], bool]:
    """Platforms the query names, and whether it asks about platforms in general."""
    words = {w.lower() for w in re.findall(r"[A-Za-z0-9]+", context.info.text)}
    named = frozenset(_ALIASES[w] for w in words if w in _ALIASES)
    return named, bool(words & _GENERIC_WORDS)


def platform_variants(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with ``platform_prior`` on platform variants the query does not ask for."""
    named, generic = _query_platforms(context)
    if generic:
        return scores
    out = dict(scores)
    for cid in scores:
        path = context.rows[cid].path
        variant = platform_words(path)
        if variant is None or path in context.named_paths or variant & named:
            continue
        out[cid] *= context.options.platform_prior
    return out


def named_platforms(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with ``named_platform_prior`` on variants for platforms other than the ones the
    query names (nothing changes when it names none, or asks about platforms in general)."""
    named, generic = _query_platforms(context)
    if not named or generic:
        return scores
    out = dict(scores)
    for cid in scores:
        path = context.rows[cid].path
        variant = platform_words(path)
        if variant and not variant & named and path not in context.named_paths:
            out[cid] *= context.options.named_platform_prior
    return out


def version_copies(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with ``version_prior`` on a ``vN/`` folder's chunks when a candidate lives in a newer
    ``vM/`` of the same parent folder (and the query does not name ``vN``); dotted versions
    (``v1.7/``) with ``dotted_versions``."""
    dotted = context.options.dotted_versions
    pattern = _DOTTED_VERSION if dotted else _VERSION
    newest: dict[str, tuple[int, ...]] = {}
    found: dict[int, tuple[str, tuple[int, ...]]] = {}
    for cid in scores:
        matches = list(pattern.finditer(context.rows[cid].path))
        if matches:
            last = matches[-1]  # the innermost version folder
            parent, version = context.rows[cid].path[:last.start(2)], _version(last.group(2))
            found[cid] = (parent, version)
            newest[parent] = max(newest.get(parent, ()), version)
    if all(version == newest[parent] for parent, version in found.values()):
        return scores  # no older copy beside a newer one among the candidates
    asked = {_version(v) for v in _ASKED[dotted].findall(context.info.text)}
    out = dict(scores)
    for cid, (parent, version) in found.items():
        if version < newest[parent] and version not in asked and context.rows[cid].path not in context.named_paths:
            out[cid] *= context.options.version_prior
    return out
