"""What one query delivers: intent check, search, floor, section (DESIGN §8.6, §9).

:func:`deliver` is the one path from a query to the ``## Retrieved context`` section, shared by
the background refresh, the prompt hook's in-budget answer and ``rag eval``:

1. a prompt that needs no retrieval (:mod:`paqad.deliver.intent`) gets the nothing form at once;
2. otherwise :func:`paqad.search.search` (calibrated confidence on every result), then the floor
   (:func:`paqad.search.floor.apply_floor`, with :data:`~paqad.config.MAX_COMPANIONS`), then :func:`paqad.deliver.render.render_section`.
"""

from __future__ import annotations

from dataclasses import dataclass

from paqad import store as store_mod
from paqad.config import MAX_COMPANIONS, Settings
from paqad.deliver.intent import Intent, classify
from paqad.deliver.render import render_section
from paqad.embed.base import Embedder
from paqad.errors import PaqadError
from paqad.project import ProjectPaths
from paqad.search import RankingOptions, search
from paqad.search.degraded import Degraded
from paqad.search.floor import NOTHING, FloorOutcome, apply_floor, is_timing_miss, unrated_keyword_floor


@dataclass(frozen=True)
class Delivery:
    """The floor's outcome, the rendered section, the prompt's intent and, when semantic search
    could not be used, why (``degraded``)."""

    outcome: FloorOutcome
    section: str
    intent: Intent
    degraded: Degraded | None = None


def deliver(
    paths: ProjectPaths,
    settings: Settings,
    text: str,
    label: str,
    *,
    embedder: Embedder | None,
    degraded: Degraded | None = None,
    store: store_mod.IndexStore | None = None,
    is_prompt: bool = True,
    deadline: float | None = None,
    companions: int = MAX_COMPANIONS,
    options: RankingOptions | None = None,
) -> Delivery:
    """The section for ``text`` (a prompt, or a changed-files query when ``is_prompt`` is False),
    labelled ``label`` after ``Query:``. ``deadline`` (``time.monotonic()``): the dense side
    joins only if ready by then (:func:`paqad.search.search`). ``companions``: the floor's
    (:func:`paqad.search.floor.apply_floor`; 0: a confident answer alone); ``options``: the
    ranking's (None: the product's; benchmarks pass ablations). Raises what
    :func:`paqad.search.search` raises."""
    threshold, relief = settings.rag_similarity_threshold, settings.rag_relief_floor
    intent = classify(text, known_terms=_index_terms(paths, store)) if is_prompt else Intent(True)
    if not intent.needs_retrieval:
        outcome = FloorOutcome(NOTHING, (), None, threshold, relief)
        return Delivery(outcome, render_section(outcome, label, skipped=intent.reason), intent)
    ranking = {} if options is None else {"options": options}
    response = search(paths, settings, text, embedder=embedder, degraded=degraded, store=store, deadline=deadline,
                      **ranking)
    # Out of time for the dense side: keyword matches without the keyword-only fit's rating,
    # which the full search (probe, the warm process) would contradict (issue 19).
    if is_timing_miss(response.degraded):
        outcome = unrated_keyword_floor(response.results, threshold, relief)
    else:  # a confident answer with its companion (issue 19, round 8: often the right chunk)
        outcome = apply_floor(response.results, threshold, relief, companions)
    words = response.degraded.words if response.degraded is not None else None
    return Delivery(outcome, render_section(outcome, label, words, coverage=response.coverage), intent,
                    response.degraded)


def _index_terms(paths: ProjectPaths, store: store_mod.IndexStore | None):
    """The index's evidence for the intent check: given words, those some chunk holds (FTS5
    document frequency > 0). Opens the index read-only only when asked; None when there is none."""

    def known(words) -> set[str]:
        try:
            if store is not None:
                return {w for w, n in store.document_frequencies(sorted(words)).items() if n}
            with store_mod.open_store(paths, readonly=True) as own:
                return {w for w, n in own.document_frequencies(sorted(words)).items() if n}
        except PaqadError:
            return set(words)  # no index to ask: do not skip on its behalf
    return known


index_terms = _index_terms  # the refresh's intent check asks the index the same way (deliver/refresh.py)
