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

from paqad.config import Settings
from paqad.errors import PaqadError
from paqad.project import ProjectPaths, index_exists
from paqad.search import search
from paqad.search.dense import LATE
from paqad.search.floor import apply_floor
from paqad.deliver.render import render_section

RENDER_MARGIN_SECONDS = 0.03  # of the hook's deadline, kept to fuse, floor and render the answer
# In a process that has not loaded the model yet, the dense side (numpy, onnxruntime and tokenizer
# imports, model load, embedding the prompt) took 2.5-4x as long as everything before the keyword
# answer (interpreter start, imports, settings, BM25) on the 2-core machine (bench/README.md,
# "Hook latency"). When 3x that time would run past the deadline (a saturated CPU), the dense
# side is not started at all: a thread importing C extensions holds the GIL, and the hook could
# not answer at its deadline.
DENSE_COST_FACTOR = 3.0


def section_for_prompt(paths: ProjectPaths, settings: Settings, prompt: str, deadline: float, embedder=None, *,
                       keyword_first: Callable[[str], None] | None = None, started: float | None = None) -> str | None:
    """The ``## Retrieved context`` section for ``prompt`` from the current index (no sync).

    ``deadline`` (a ``time.monotonic()`` value, the hook's budget): the dense side (loading the
    model if this process has not yet, embedding the prompt) joins only if it is ready by then,
    else the section holds keyword matches and says why (:func:`paqad.search.search` with a
    deadline). ``keyword_first`` (the hook in its own process): the keyword-only section is
    computed first, without importing the dense side, and handed to it; the hybrid one follows
    only if :data:`DENSE_COST_FACTOR` times the time it took since ``started`` (the process
    start, default: this call) still fits before the deadline (else the keyword section is
    returned). ``embedder``: one to reuse (the warm
    process keeps its model loaded), else the configured one. Returns None when retrieval is off
    or there is no usable index.
    """
    if not settings.rag_enabled or not index_exists(paths) or not prompt.strip():
        return None
    if keyword_first is not None:
        began = time.monotonic() if started is None else started
        keyword = _render(settings, search(paths, settings, prompt, embedder=None, degraded=LATE))
        keyword_first(keyword)
        now = time.monotonic()
        if now + DENSE_COST_FACTOR * (now - began) > deadline:
            return keyword
    why = None
    if embedder is None:
        embedder, why = _unloaded_embedder(paths, settings)
    response = search(paths, settings, prompt, embedder=embedder, degraded=why, deadline=deadline - RENDER_MARGIN_SECONDS)
    return _render(settings, response)


def _render(settings: Settings, response) -> str:
    outcome = apply_floor(response.results, settings.rag_similarity_threshold, settings.rag_relief_floor)
    return render_section(outcome, "Query: this prompt", response.degraded, response.coverage)


def _unloaded_embedder(paths: ProjectPaths, settings: Settings):
    """The configured embedder without loading its model (that is the dense side's job), or (None, why)."""
    from paqad.embed.factory import get_embedder

    try:
        return get_embedder(settings, paths), None
    except PaqadError as exc:
        return None, f"semantic search unavailable ({exc})"
