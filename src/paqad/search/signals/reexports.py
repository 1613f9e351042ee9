"""Re-exports (issue 24): a package that re-exports a name it does not define (Rust ``pub use
other_crate::Codec;``, TypeScript/JavaScript ``export { Codec } from "./codec"`` and ``export *
from "./codec"``, Python ``from .codec import Codec`` in an ``__init__.py``) ranks right after the
definition, and the definition it points to is resolved at query time from the candidates' text
(no index change).

- a candidate chunk that re-exports a query identifier gains ``reexport_share`` of the best
  definition share of that name among the candidates (1.0 when none is a candidate), so it comes
  next, never first;
- for a qualified identifier whose qualifier names the re-exporting package (``wire_app::Codec``
  and ``crates/wire-app/src/lib.rs``), the definition in the module the re-export names
  (``wire_core`` -> ``crates/wire-core/...``) is raised to a full share: the qualifier agrees with
  it through the re-export. Round 10 (``reexport_best_definitions``): only the definitions with
  the best share among those the re-export points to, not every chunk of that module that names
  it (``impl Serialize for str`` in ``serde_core/src/ser/impls.rs`` for ``serde::Serialize``:
  ``serde/src/lib.rs`` re-exports ``serde_core::Serialize``, so every such impl rose to the
  trait's share, above the re-export);
- round 10 (``reexport_qualifiers``): for a qualified identifier, the re-exports outside the
  package its qualifier names (when one is in it) get ``unqualified_share`` of the re-export share;
  and (``reexport_definition_priors``) every re-export's share is scaled by the path priors of the
  definition it points to (:func:`_definition_prior`), so it stays below that definition.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, AbstractSet, Callable

from paqad.index.tokens import NAME
from paqad.search.analysis import Identifier
from paqad.search.signals.path_priors import prior_of
from paqad.search.signals.symbol_shares import add_shares, identifier_factor, module_names

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext
    from paqad.store import ChunkRow

_RUST_USE = re.compile(r"^[ \t]*pub(?:\([^)]*\))?[ \t]+use[ \t]+([^;]*);", re.MULTILINE)
_JS_NAMED = re.compile(r"^[ \t]*export[ \t]+(?:type[ \t]+)?\{([^}]*)\}[ \t]*from[ \t]*['\"]([^'\"]+)['\"]", re.MULTILINE)
_JS_STAR = re.compile(r"^[ \t]*export[ \t]+\*[ \t]+(?:as[ \t]+\w+[ \t]+)?from[ \t]*['\"]([^'\"]+)['\"]", re.MULTILINE)
_PY_FROM = re.compile(r"^[ \t]*from[ \t]+([.\w]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.MULTILINE)
_MODULE_WORDS = frozenset({"crate", "self", "super", "src", "lib", "index", "mod", "__init__"})


@dataclass(frozen=True)
class ReExport:
    """A chunk that re-exports ``name`` from ``source``: the module path's components, lower case
    (``wire_core::Codec`` -> ``('wire_core',)``, ``./plugins/mapset`` -> ``('plugins', 'mapset')``)."""

    chunk_id: int
    name: str
    source: tuple[str, ...]


def _source(module: str) -> tuple[str, ...]:
    parts = re.split(r"::|/|\.", module.lower().replace("-", "_"))
    return tuple(p for p in parts if p and p not in _MODULE_WORDS and re.fullmatch(r"\w+", p))


@lru_cache(maxsize=4096)
def reexported_names(path: str, text: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``(name, source)`` pairs a chunk's text re-exports (``*`` for ``export * from``); empty for
    a file that cannot re-export (Python outside ``__init__.py``)."""
    found: list[tuple[str, tuple[str, ...]]] = []
    if path.endswith(".rs"):
        for m in _RUST_USE.finditer(text):
            body = m.group(1)
            head = re.split(r"::\s*\{", body, maxsplit=1)
            names = re.findall(NAME, head[1]) if len(head) == 2 else [body.rsplit("::", 1)[-1].split()[0]]
            found += [(n, _source(head[0] if len(head) == 2 else body.rsplit("::", 1)[0])) for n in names]
    elif path.endswith((".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")):
        for m in _JS_NAMED.finditer(text):
            names = [piece.split(" as ")[-1].strip().removeprefix("type ").strip() for piece in m.group(1).split(",")]
            found += [(n, _source(m.group(2))) for n in names if n]
        found += [("*", _source(m.group(1))) for m in _JS_STAR.finditer(text)]
    elif path.endswith("__init__.py"):
        for m in _PY_FROM.finditer(text):
            names = re.findall(NAME, m.group(2).split("#", 1)[0])
            found += [(n, _source(m.group(1))) for n in names if n != "as"]
    return tuple(found)


def _points_to(source: tuple[str, ...], row: ChunkRow, names: Callable[[str], AbstractSet[str]]) -> bool:
    """Whether a definition's file is in the module a re-export names (its last component is one
    of ``names(row.path)``: a folder or the file's stem, with ``package_qualifiers`` its package's
    names: ``pub use grep_matcher::Matcher`` points to ``crates/matcher/``)."""
    return bool(source) and source[-1] in names(row.path)


def _reexports_of(context: RankingContext, identifier: Identifier) -> list[ReExport]:
    name = identifier.name
    defining = [cid for cid in context.definition_shares if name in context.rows[cid].text]
    names = module_names(context)
    out: list[ReExport] = []
    for cid, row in context.rows.items():
        if cid in context.definition_shares or name not in row.text and "*" not in row.text:
            continue
        for exported, source in reexported_names(row.path, row.text):
            star_hit = exported == "*" and any(_points_to(source, context.rows[d], names) for d in defining)
            if exported == name or star_hit:
                out.append(ReExport(cid, name, source))
                break
    return out


def _definition_prior(context: RankingContext, reexport: ReExport, defining: dict[int, float]) -> float:
    """Round 10 (``reexport_definition_priors``): the path-prior product of the definition ``reexport``
    points to with the best share x priors (else of such a one of the name; 1.0 without any): a re-export of a
    name defined in ``deprecated.rs`` (the compat prior) is no more wanted than its definition, and
    ranks after it (``idna::Config``: ``idna/src/lib.rs`` re-exports ``deprecated::Config``)."""
    names = module_names(context)
    pointed = {cid: share for cid, share in defining.items() if _points_to(reexport.source, context.rows[cid], names)}
    pool = pointed or defining
    if not pool:
        return 1.0
    # the definition that ranks: its share x its priors (a test file named like the module, `useAtomValue.test.tsx`,
    # "points to" by its stem too, with the definition's share and the tests prior)
    priors = {cid: prior_of(context.prior_factors.get(cid, ())) for cid in pool}
    best = max(pool, key=lambda cid: (pool[cid] * priors[cid], pool[cid]))
    return priors[best]


def _asking(identifier: Identifier, found: list[ReExport], context: RankingContext) -> set[int]:
    """With ``reexport_qualifiers`` (round 10), the re-exports of a qualified identifier in the
    package its qualifier names (``web::extract::FromRequest``: ``web/src/extract/mod.rs``, not
    ``web/src/lib.rs`` re-exporting the derive macro of that name); empty when none is, or bare."""
    if not (context.options.reexport_qualifiers and identifier.qualified):
        return set()
    asked = identifier.parts[-2].lower().replace("-", "_")
    names = module_names(context)
    return {r.chunk_id for r in found if asked in names(context.rows[r.chunk_id].path)}


def reexport_shares(context: RankingContext) -> dict[int, float]:
    """Chunk id -> the share this signal adds: re-exporting chunks, and definitions resolved
    through a re-export of the package a qualifier names."""
    extra: dict[int, float] = {}
    names = module_names(context)
    for identifier in context.info.identifiers:
        if identifier.embedded and not identifier.qualified:
            continue  # a name in prose asks about behaviour, not where it is exported (marshmallow-14)
        found = _reexports_of(context, identifier)
        if not found:
            continue
        factor = identifier_factor(context, identifier)
        defining = {cid: share for cid, share in context.definition_shares.items()
                    if identifier.name in context.rows[cid].text}
        if identifier.qualified:
            asked = identifier.parts[-2].lower().replace("-", "_")
            for r in (r for r in found if asked in names(context.rows[r.chunk_id].path)):
                pointed = {cid: share for cid, share in defining.items() if _points_to(r.source, context.rows[cid], names)}
                if context.options.reexport_best_definitions and pointed:
                    best = max(pointed.values())  # round 10: the module's definitions, not its uses
                    pointed = {cid: share for cid, share in pointed.items() if share >= best}
                for cid, share in pointed.items():
                    if factor > share:
                        extra[cid] = max(extra.get(cid, 0.0), factor - share)
                        defining[cid] = factor
        top = max(defining.values(), default=factor)
        asking = _asking(identifier, found, context)
        for r in found:
            share = context.options.reexport_share * top
            if asking and r.chunk_id not in asking:  # round 10: another package's re-export of the name
                share *= context.options.unqualified_share
            if context.options.reexport_definition_priors:
                share *= _definition_prior(context, r, defining)
            extra[r.chunk_id] = max(extra.get(r.chunk_id, 0.0), share)
    return extra


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores plus the re-export shares (see the module docstring)."""
    if not context.info.identifiers:
        return scores
    return add_shares(scores, context, reexport_shares(context))
