"""The prompt hook's answer for *this* prompt, within its budget (DESIGN §10).

Kept apart from :mod:`paqad.deliver.refresh` so that it imports only what a keyword search needs
(SQLite, the keyword ranker, the floor, the renderer: no numpy, no model runtime, no chunker):
on a saturated CPU every import is paid several times over, and the keyword answer must be
ready before the budget ends. The dense side (numpy, onnxruntime, the model) is loaded only
after that, and joins only if it is ready in time.
"""

from __future__ import annotations

import time
from typing import Callable

from paqad import store as store_mod
from paqad.config import Settings
from paqad.deliver import dense_cost
from paqad.deliver.delivery import deliver
from paqad.deliver.query import prompt_words
from paqad.errors import PaqadError
from paqad.project import ProjectPaths, index_exists
from paqad.search.degraded import NOT_STARTED, Degraded, DegradedReason

RENDER_MARGIN_SECONDS = 0.03  # of the hook's deadline, kept to fuse, floor and render the answer
# What the keyword section says when the dense side is not started because it would not fit
# (paqad.deliver.dense_cost; issue 20 item 10: it was never started, so "did not finish" would be
# untrue), and what it says once the dense side has been started: if the hook sends the keyword
# section at its deadline, the dense side was late.
KEYWORD_ONLY_NOT_STARTED = Degraded(DegradedReason.NOT_STARTED)
KEYWORD_ONLY_LATE = Degraded(DegradedReason.LATE)
__all__ = ["NOT_STARTED", "configured_embedder", "section_for_prompt"]


def section_for_prompt(paths: ProjectPaths, settings: Settings, prompt: str, deadline: float, embedder=None, *,
                       keyword_first: Callable[[str], None] | None = None, started: float | None = None,
                       warn: Callable[[str], None] | None = None) -> str | None:
    """The ``## Retrieved context`` section for ``prompt`` from the current index (no sync).

    The same delivery as the refresh (:func:`paqad.deliver.delivery.deliver`: intent check,
    search, floor, section), labelled ``this prompt "<first words>"``. ``deadline`` (a
    ``time.monotonic()`` value, the hook's budget): the dense side (loading the model if this
    process has not yet, embedding the prompt) joins only if it is ready by then, else the
    section holds keyword matches and says why. ``keyword_first`` (the hook in its own process):
    the keyword-only section is computed first, without importing the dense side, and handed to
    it; the hybrid one follows only if the dense side is predicted to be ready by the deadline
    (:mod:`paqad.deliver.dense_cost`: this project's learnt ratio to the time the keyword side took
    since ``started``, the process start, default: this call), else the keyword section is
    returned, saying the dense side was not started (while under
    :data:`~paqad.search.degraded.SEMANTIC_MIN_COVERAGE` of the chunks have vectors the keyword
    answer is returned at once, rated as ``rag probe`` rates it: the dense side would not join).
    Once started, the keyword section handed
    over says the dense side was late (what it is if the hook has to send it); a hybrid answer
    ready in time is handed over too, then teaches the prediction this run's ratio.
    ``embedder``: one to reuse (the warm process keeps its model loaded), else the configured
    one; the model is never fetched. ``warn`` gets the reason once when the model cannot be used
    (a missing or damaged model, not a missed deadline).

    Returns None when retrieval is off, there is no usable index, or the index holds no chunks
    (nothing indexable: no section rather than a "no matches" one).
    """
    if not settings.rag_enabled or not index_exists(paths) or not prompt.strip():
        return None
    label = f"this prompt {prompt_words(prompt)}"
    with store_mod.open_store(paths, readonly=True) as store:
        if store.chunk_count() == 0:
            return None
        if keyword_first is not None:
            began = time.monotonic() if started is None else started
            keyword = deliver(paths, settings, prompt, label, embedder=None, degraded=KEYWORD_ONLY_NOT_STARTED,
                              store=store)
            now = time.monotonic()
            cost = dense_cost.load(paths)
            # Still embedding (under SEMANTIC_MIN_COVERAGE): the keyword answer is the full one.
            final = keyword.degraded is not None and keyword.degraded.reason is DegradedReason.STILL_EMBEDDING
            if final or not keyword.intent.needs_retrieval or not cost.fits(began, now, deadline):
                keyword_first(keyword.section)
                return keyword.section
            keyword_first(keyword.section.replace(KEYWORD_ONLY_NOT_STARTED.words, KEYWORD_ONLY_LATE.words, 1))
        why = None
        if embedder is None:
            embedder, why = configured_embedder(paths, settings)
            if why and warn is not None:
                warn(why.words)
        delivery = deliver(paths, settings, prompt, label, embedder=embedder, degraded=why, store=store,
                           deadline=deadline - RENDER_MARGIN_SECONDS)
        if keyword_first is not None and delivery.degraded is None and time.monotonic() <= deadline:
            dense_seconds = time.monotonic() - now
            keyword_first(delivery.section)  # the hook holds the hybrid answer before the write below
            dense_cost.record(paths, cost, now - began, dense_seconds)  # a hint for the next prompts
    if delivery.degraded and warn is not None and why is None and delivery.degraded.reason is not DegradedReason.LATE:
        warn(delivery.degraded.words)
    return delivery.section


def configured_embedder(paths: ProjectPaths, settings: Settings):
    """``(embedder, None)``: the configured embedder without loading its model (that is the
    dense side's job), or ``(None, why)``: a :class:`Degraded` whose words name the problem and the fix. Never fetches
    a model (the hook and the warm process must not download)."""
    from paqad.embed.factory import get_embedder

    try:
        return get_embedder(settings, paths, fetch=False), None
    except PaqadError as exc:
        return None, Degraded.from_error(exc)
