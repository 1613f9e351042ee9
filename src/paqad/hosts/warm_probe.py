"""``rag probe`` served by the project's warm process when one runs (issue 20: probe p50 <= 0.5 s).

A probe as its own process pays Python's start, the search stack's imports, the model load and
the index's dense view on every call (533 ms median at 46k chunks, of which the search itself is
18 ms). The warm process (:mod:`paqad.hosts.warm`) already holds all of that for the prompt hook,
so :func:`probe` asks it first: the warm process runs the same job
(:func:`paqad.jobs.probe.probe`: sync the edited files, search, band) and sends back the result
that ``--json`` prints. Anything unusual is answered in this process instead, where the job's
own errors and warnings come out as they always did: no warm process, another version, a
degraded (keyword-only) search, an error of any kind, or ``PAQAD_RAG_*`` settings in this
process's environment (the warm process reads the files only). When none was running and
``rag_warm_process`` is on, one is started for the next calls, as the prompt hook does.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Callable

from paqad.config import Settings
from paqad.project import ProjectPaths

# How long a probe waits for the warm process (which may be answering a prompt or syncing many
# edited files first) before answering in its own process instead.
WARM_PROBE_SECONDS = 60.0
# After this many seconds without the warm process's answer, the probe says what it waits for
# (a sync of a large edited file took a minute, silent, before it fell back to keywords).
WARM_NOTICE_SECONDS = 3.0
WAITING_NOTE = (f"waiting for the project's warm process, which syncs the edited files before it searches "
                f"(up to {WARM_PROBE_SECONDS:.0f} s, then this process searches the index as committed; "
                "PAQAD_RAG_WARM_PROCESS=false syncs here, with progress)")


def probe(paths: ProjectPaths, settings: Settings, text: str, *, top_n: int | None = None,
          path_prefix: str | None = None, cwd: Path | None = None, no_sync: bool = False, progress=None,
          warn: Callable[[str], None], note: Callable[[str], None]):
    """:func:`paqad.jobs.probe.probe`'s :class:`~paqad.jobs.probe.ProbeResult` for ``text``, from the
    warm process when it can answer, else computed here (same arguments, same errors raised).
    ``path_prefix`` is read from ``cwd`` (the caller's folder) when it names something there, as
    ``--explain`` is (:func:`paqad.project.from_cwd`): ``-p .`` in ``src/`` means ``src/``.
    ``text`` over 20,000 characters is cut as the prompt hook cuts a pasted log
    (:func:`paqad.deliver.query.bounded_prompt`), and ``note`` says so: a search's cost grows
    with the query's distinct words (400,000 characters of them took 149 s)."""
    from paqad.deliver.query import PROMPT_HEAD_CHARS, PROMPT_TAIL_CHARS, bounded_prompt
    from paqad.hosts import warm
    from paqad.project import from_cwd

    searched = bounded_prompt(text)
    if searched != text:
        note(f"the query has {len(text):,} characters; searched its first {PROMPT_HEAD_CHARS:,}, last "
             f"{PROMPT_TAIL_CHARS:,} and its lines naming an error, {len(searched):,} in all, as the prompt hook does")
        text = searched
    if path_prefix:
        path_prefix = from_cwd(paths.root, path_prefix, cwd)

    absent = False
    if settings.rag_warm_process and not warm.settings_in_environment():
        request = {"query": text, "top_n": top_n, "path_prefix": path_prefix, "no_sync": no_sync}
        notice = threading.Timer(WARM_NOTICE_SECONDS, note, (WAITING_NOTE,))
        notice.daemon = True
        notice.start()
        try:
            return _from_reply(warm.ask_probe(paths, request, time.monotonic() + WARM_PROBE_SECONDS), warn, note)
        except warm.Miss as miss:
            absent = miss.absent
        finally:
            notice.cancel()
    from paqad.jobs.probe import probe as run_probe

    result = run_probe(paths, settings, text, top_n=top_n, path_prefix=path_prefix, no_sync=no_sync,
                       progress=progress, warn=warn, note=note)
    if absent and settings.rag_enabled and settings.rag_warm_process:
        warm.start(paths)  # for the next probes and prompts; it exits after IDLE_SECONDS unused
    return result


def _from_reply(reply: dict, warn: Callable[[str], None], note: Callable[[str], None]):
    """The warm process's ``{"probe": ..., "messages": [[kind, text], ...]}`` as a ProbeResult
    (its warnings and notes passed on); :class:`~paqad.hosts.warm.Miss` when it is malformed."""
    from paqad.hosts.warm import Miss
    from paqad.jobs.probe import ProbeResult

    try:
        result = ProbeResult.from_dict(reply["probe"])
        messages = [(str(kind), str(line)) for kind, line in reply.get("messages", [])]
    except (KeyError, TypeError, ValueError) as exc:
        raise Miss(f"warm process sent a malformed probe: {type(exc).__name__}") from None
    for kind, line in messages:
        (warn if kind == "warn" else note)(line)
    return result


def serve_probe(paths: ProjectPaths, settings: Settings, embedder, request: dict) -> dict:
    """The warm process's side: ``{"probe": ProbeResult.to_dict(), "messages": [...]}``, or
    ``{"fallback": why}`` when the caller should answer in its own process (no loaded model, a
    degraded search, a bad request or any error: the caller's own run then reports it)."""
    from paqad.jobs.probe import probe as run_probe

    if embedder is None:
        return {"fallback": "no model"}
    messages: list[tuple[str, str]] = []
    try:
        result = run_probe(paths, settings, str(request["query"]), top_n=request.get("top_n"),
                           path_prefix=request.get("path_prefix"), no_sync=bool(request.get("no_sync")),
                           warn=lambda line: messages.append(("warn", line)),
                           note=lambda line: messages.append(("note", line)), embedder=embedder)
    except Exception as exc:  # noqa: BLE001 - the caller's own run raises it again, with its words
        return {"fallback": type(exc).__name__}
    if result.degraded is not None or any(kind == "warn" for kind, _ in messages):
        return {"fallback": "degraded"}
    return {"probe": result.to_dict(), "messages": messages}
