"""What an eval arm delivers for a query: the pluggable retriever of :mod:`paqad.evaluate.runner`.

A *retriever* is any callable ``(index, query) -> Delivery``: given the open eval index and a
prompt, it returns what would reach the agent, the floor's outcome and the rendered
``## Retrieved context`` section. The runner scores only that, so any retrieval strategy can
be put through the same cases and the same gate (``run_eval(..., retriever=...)``):

- :func:`product_retriever` (the ``on`` / ``rag`` arms, the default): the product's path, as
  ``refresh-context`` takes it: :func:`paqad.deliver.delivery.deliver` (does the prompt need
  retrieval; search with calibrated confidence; floor; section);
- :func:`lexical_retriever` (the ``lexical`` arm): the same path without the dense ranker
  (keyword and symbol search, the keyword-only confidence fit).

A retriever of your own builds its results however it likes and hands them to
:func:`deliver_results`, which applies the configured floor and renders the section.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

from paqad import store as store_mod
from paqad.config import MAX_COMPANIONS, Settings
from paqad.deliver.delivery import Delivery, deliver
from paqad.deliver.intent import Intent
from paqad.deliver.render import render_section
from paqad.embed.base import Embedder
from paqad.project import ProjectPaths
from paqad.search.floor import apply_floor
from paqad.search.results import SearchResult

QUERY_LABEL = "this prompt"  # what the hook path labels a prompt query (deliver.answer.section_for_prompt)


@dataclass(frozen=True)
class EvalIndex:
    """The open index a retriever answers from: the temporary eval project's ``paths`` and
    ``store``, the user's ``settings`` and the ``embedder`` it was built with (None: keyword only)."""

    store: store_mod.IndexStore
    paths: ProjectPaths
    settings: Settings
    embedder: Embedder | None


class Retriever(Protocol):
    """``retriever(index, query) -> Delivery``; plain functions qualify."""

    def __call__(self, index: EvalIndex, query: str) -> Delivery: ...


def deliver_results(results: Sequence[SearchResult], settings: Settings) -> Delivery:
    """The product's floor (``rag_similarity_threshold`` / ``rag_relief_floor``) over ``results``
    and the section it renders: what any retriever's ranked list would deliver (no intent check:
    the retriever decided to deliver)."""
    outcome = apply_floor(results, settings.rag_similarity_threshold, settings.rag_relief_floor, MAX_COMPANIONS)
    return Delivery(outcome, render_section(outcome, QUERY_LABEL), Intent(True))


def product_retriever(index: EvalIndex, query: str) -> Delivery:
    """The product: intent -> search -> floor -> rendered section (the ``on`` and ``rag`` arms)."""
    return deliver(index.paths, index.settings, query, QUERY_LABEL, embedder=index.embedder, store=index.store)


def lexical_retriever(index: EvalIndex, query: str) -> Delivery:
    """The product without the dense ranker (the ``lexical`` arm): keyword and symbol evidence only."""
    return deliver(index.paths, index.settings, query, QUERY_LABEL, embedder=None, store=index.store)


ARM_RETRIEVERS: dict[str, Retriever] = {"on": product_retriever, "rag": product_retriever, "lexical": lexical_retriever}
