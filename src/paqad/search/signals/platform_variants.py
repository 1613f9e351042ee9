"""Platform variants below the core code (issue 24), two signals:

- ``platform_variants``: a file for one platform (``win32/``, ``unix/``, ``util/env_windows.cc``,
  ``ae_kqueue.c``, ``terminal_check_bsd.go``, ``port/``) x ``platform_prior`` unless the query
  names that platform (or asks about platforms / portability in general); an architecture
  question about an event loop is about the core file, not its kqueue backend;
- ``named_platforms``: only when the query names a platform ("on Windows", "the epoll backend"):
  the variants for *other* platforms x ``named_platform_prior`` (the twin the query does not name
  must not crowd out the one it does). A question naming no platform is left alone, so a
  project whose only implementation of an interface is ``env_posix.cc`` keeps it.

Older version folders (``v3/`` beside ``v4/``) are :mod:`~paqad.search.signals.version_copies`;
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
