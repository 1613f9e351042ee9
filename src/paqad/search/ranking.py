"""The ranking pipeline in two steps, so a benchmark can rank one query many ways:

- :func:`gather`: everything that needs the model or the index's rankers, done once per query
  (dense pool with cosines, BM25 pool);
- :func:`rank`: fuse the pools and apply the ranking signals chosen by :class:`RankingOptions`.

:func:`ablations` names the configurations ``bench/ranking/run.py`` compares.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from paqad import store as store_mod
from paqad.embed.base import Embedder
from paqad.search.fusion import RankedLists, fuse, rank_candidates
from paqad.search.results import SearchResult
from paqad.search.signals import ALL_SIGNALS, DEFAULT_SIGNALS


@dataclass(frozen=True)
class RankingOptions:
    """Which rankers and ranking signals are used (the defaults are what the product runs)."""

    dense: bool = True
    lexical: bool = True
    signals: frozenset[str] = DEFAULT_SIGNALS

    @property
    def rankers(self) -> tuple[str, ...]:
        return tuple(name for name, on in (("dense", self.dense), ("lexical", self.lexical)) if on)


@dataclass(frozen=True)
class Pools:
    """What :func:`gather` found for one query."""

    query: str
    ranked: RankedLists


def gather(store: store_mod.IndexStore, embedder: Embedder | None, query: str, *,
           path_prefix: str | None = None) -> Pools:
    """Run the rankers once for ``query`` (dense pool only when ``embedder`` is given)."""
    return Pools(query, rank_candidates(store, embedder, query, path_prefix=path_prefix))


def rank(store: store_mod.IndexStore, pools: Pools, *, top_n: int, options: RankingOptions = RankingOptions()) -> list[SearchResult]:
    """Fuse ``pools`` under ``options`` and cut to ``top_n`` results."""
    return fuse(store, pools.ranked, pools.query, top_n=top_n, signals=options.signals, rankers=options.rankers)


def ablations() -> dict[str, RankingOptions]:
    """Named configurations for the benchmark: baselines, the default, each signal left out."""
    default = RankingOptions()
    configs = {
        "bm25": RankingOptions(dense=False, signals=frozenset()),
        "dense": RankingOptions(lexical=False, signals=frozenset()),
        "rrf": RankingOptions(signals=frozenset()),
        "default": default,
    }
    for signal in sorted(ALL_SIGNALS):
        configs[f"no-{signal}"] = replace(default, signals=default.signals - {signal})
        configs[f"only-{signal}"] = replace(default, signals=frozenset({signal}))
    return configs
