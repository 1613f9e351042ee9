"""Platform twins (issue 24): of several definitions of one name, the core one ranks first unless
the query names a platform.

A function written once per platform (logrus's ``checkIfTerminal`` in
``terminal_check_notappengine.go``, ``terminal_check_windows.go`` and
``terminal_check_appengine.go``; bytes' ``trait AtomicMut`` under ``#[cfg(not(all(test, loom)))]``
and again under ``#[cfg(all(test, loom))]``) gets the same definition share in every copy, and the
copy the query does not ask for often wins on its words. A definition is a *variant* when its
file is a platform variant (:func:`~paqad.search.signals.platform_variants.platform_words`:
``win32/``, ``*_windows.go``, ``env_posix.cc``) or its chunk puts it under a condition naming a
platform or tests (:func:`conditions`: a Go ``//go:build`` line, a Rust ``#[cfg(...)]`` attribute
or a C ``#if``/``#ifdef`` line, in the chunk's text, with a term that is not negated).

For each name the query asks for (not in a long prompt), among the chunks with its best
definition share: when the query names a platform that some of them are variants for, the
others x ``platform_twin_share``; else, when at least one is not a variant, the variants x
``platform_twin_share`` (with ``twin_symbols``, round 6: only the variants whose symbol path a
core twin shares; a method of a type named like the per-platform functions is no core copy of them). Unlike ``platform_variants`` (off by default: leveldb's only
implementation of ``env.h`` is ``env_posix.cc``), it never discounts a file with no core twin.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from paqad.search.signals.platform_variants import PLATFORM_ALIASES as _ALIASES
from paqad.search.signals.platform_variants import platform_words
from paqad.search.signals.symbol_shares import symbol_parts

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext
    from paqad.store import ChunkRow

_GO_BUILD = re.compile(r"^//go:build[ \t]+(.+)$|^//[ \t]*\+build[ \t]+(.+)$", re.MULTILINE)
_RUST_CFG = re.compile(r"^[ \t]*#\[cfg\((.+)\)\][ \t]*$", re.MULTILINE)
_C_IF = re.compile(r"^[ \t]*#[ \t]*(?:if|ifdef|elif)\b(.*)$", re.MULTILINE)
_TERM = re.compile(r"(!?)[ \t]*(?:defined[ \t]*\(?[ \t]*)?_*([A-Za-z][A-Za-z0-9]*)")
_TEST_TERMS = frozenset({"test", "loom", "miri", "fuzzing"})
# a share this close to the best is a tie (float noise of the same product of factors)
TIE = 0.999


def _positive_terms(expression: str, negations: tuple[str, ...]) -> set[str]:
    """Lower-case terms of a condition that are not negated (``!x``, ``not(x)``)."""
    for word in negations:  # drop `not(...)` groups (Rust), one level of nesting is enough for cfgs
        expression = re.sub(rf"{word}\((?:[^()]|\([^()]*\))*\)", " ", expression)
    return {m.group(2).lower() for m in _TERM.finditer(expression) if not m.group(1)}


def conditions(text: str) -> frozenset[str]:
    """Platforms (and ``test``) a chunk's own conditions name: positive terms of its Go build
    lines, Rust ``cfg`` attributes and C ``#if`` lines that name a known platform or tests."""
    terms: set[str] = set()
    for m in _GO_BUILD.finditer(text):
        terms |= _positive_terms(m.group(1) or m.group(2), ())
    for m in _RUST_CFG.finditer(text):
        body = re.sub(r"target_os[ \t]*=[ \t]*\"(\w+)\"|target_family[ \t]*=[ \t]*\"(\w+)\"",
                      lambda t: t.group(1) or t.group(2), m.group(1))
        terms |= _positive_terms(body, ("not",))
    for m in _C_IF.finditer(text):
        terms |= _positive_terms(m.group(1), ())
    named = {_ALIASES[t] for t in terms if t in _ALIASES}
    return frozenset(named | ({"test"} if terms & _TEST_TERMS else set()))


def variant_of(row: ChunkRow) -> frozenset[str]:
    """The platforms (or ``test``) a defining chunk is a variant for; empty for a core definition."""
    return (platform_words(row.path) or frozenset()) | conditions(row.text)


def _symbol_key(row: ChunkRow) -> tuple[str, ...]:
    return tuple(p.lower() for p in symbol_parts(row.symbol))


def _has_core(context: RankingContext, cid: int, twins: dict[int, frozenset[str]]) -> bool:
    """Whether a core (non-variant) twin is the same definition as the variant ``cid``: with
    ``twin_symbols``, the same symbol path (a free ``isTerminal`` per platform is not a copy of
    the method ``TextFormatter.isTerminal``); a chunk without a symbol matches any."""
    if not context.options.twin_symbols:
        return True
    key = _symbol_key(context.rows[cid])
    cores = [_symbol_key(context.rows[o]) for o, v in twins.items() if not v]
    return any(not key or not core or core == key for core in cores)


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with ``platform_twin_share`` on the twins of a name the query does not ask for."""
    info = context.info
    words = {w.lower() for w in re.findall(r"[A-Za-z0-9]+", info.text)}
    asked = frozenset(_ALIASES[w] for w in words if w in _ALIASES) | ({"test"} if info.mentions_tests else frozenset())
    out = dict(scores)
    if info.long:
        return scores  # a pasted report names many functions; which copy is meant is not its question
    for identifier in info.identifiers:
        shares = {cid: s for cid, s in context.definition_shares.items() if identifier.name in context.rows[cid].text}
        if len(shares) < 2:
            continue
        top = max(shares.values())
        twins = {cid: variant_of(context.rows[cid]) for cid, s in shares.items() if s >= TIE * top}
        if len(twins) < 2:
            continue
        named = {cid for cid, v in twins.items() if v & asked}
        if named:
            losers = set(twins) - named
        elif any(not v for v in twins.values()):
            losers = {cid for cid, v in twins.items() if v and _has_core(context, cid, twins)}
        else:
            continue
        for cid in losers:
            out[cid] *= context.options.platform_twin_share
    return out
