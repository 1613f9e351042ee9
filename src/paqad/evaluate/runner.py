"""``rag eval``: does retrieval help, measured by script, without an AI judge (DESIGN §3, issue 6).

A run puts a set of cases (a query and the files an answer must come from) through two *arms*
and compares them:

- ``feature-off-vs-on``: ``off`` (retrieval switched off: nothing is delivered) against ``on``
  (what the product would deliver: hybrid search -> confidence floor -> rendered section, the
  code path of ``refresh-context``). Gated: exit 1 when the gate fails.
- ``lexical-vs-rag``: ``lexical`` (BM25 alone decides the order; each result keeps its cosine
  as its score, so the same floor applies) against ``rag`` (the full hybrid). Not gated.
- ``rag-vs-candidate``: ``snapshot`` (the per-case results saved by ``--save-snapshot`` from an
  earlier run) against ``rag`` (this run). Not gated.

What an arm delivers comes from a *retriever* (:mod:`paqad.evaluate.retrievers`): a callable
``(index, query) -> Delivery``. ``run_eval(..., retriever=r)`` puts ``r`` in place of the product
in the candidate arm, so any strategy meets the same cases and the same gate.

Cases come from the built-in evaluation project (:mod:`paqad.evaluate.cases`, copied into a temporary
folder and indexed there) or, with ``from_git=N``, from the user's own history (see
:func:`git_cases`). The user's index and configuration are only read, never written.

Per-case rules (stated in the report too):

- *delivered items*: the passages or pointers of the rendered section, in order (every result
  of the confident or low-confidence form; the first 12 when the confident form shows
  pointers); none for the "nothing" form and for ``off``.
- *hit@5*: every expected file is among the files of the first 5 delivered items (multi-part
  cases need all their places); *partial@5*: the fraction of expected files there (recall@5);
  *MRR*: ``1 / rank`` of the first expected file among the distinct delivered files. These three
  are averaged over targeted cases (those with expected files).
- *task success*: hit@5 for targeted cases; nothing delivered for should-skip cases; something
  delivered for any other case without expected files. *Correction turns* = 1 - success.
- *prompt tokens added*: ``ceil(characters / 4)`` of the rendered ``## Retrieved context``
  section in every form (the "nothing" form is a two-line section too); 0 for ``off``. The
  4-characters-per-token rule of thumb is OpenAI's ("What are tokens and how to count them?").
  Success, correction turns and tokens are averaged over all cases.

Relative change (:func:`relative_change`) is ``(after - before) / before``; from a zero
baseline it is ``+inf`` when the value rose, ``0`` when it stayed 0. So 0 -> something counts
as an improvement, and the off arm's 0 tokens make any delivery an infinite token rise: with
``off`` as baseline the token check passes only through the success waiver. That is why the gate
also holds the ``on`` arm to absolute minimums (hit@5, task success, should-skip success; see
:class:`paqad.evaluate.gate.GateThresholds`).
"""


from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterator, Mapping, Sequence

from paqad import store as store_mod
from paqad.build import IndexReport, sync
from paqad.config import MAX_PASSAGES, MAX_POINTERS, Settings, load_settings, paqad_home
from paqad.embed.base import Embedder
from paqad.errors import EvaluationError, UsageError
from paqad.evaluate.cases import SHOULD_SKIP, EvalCase, load_cases, project_dir
from paqad.evaluate.gate import HIT_K, CaseResult, GateThresholds, count_tokens
from paqad.evaluate.git_cases import GIT_NAMED, MAX_GOLD_FILES, GitScan, checkout_into, git_cases, git_toplevel
from paqad.evaluate.metrics import distinct_files, recall_at_k, reciprocal_rank
from paqad.evaluate.report import MODE_ARMS, MODES, RULES, EvalReport, build_report, load_snapshot, align_with_snapshot
from paqad.evaluate.retrievers import ARM_RETRIEVERS, EvalIndex, Retriever
from paqad.index.sync import Progress
from paqad.project import ProjectPaths
from paqad.search.floor import CONFIDENT, FloorOutcome


Log = Callable[[str], None]


# --- one case, one arm -------------------------------------------------------------------------


def delivered_items(outcome: FloorOutcome):
    """The results the rendered section shows, in order (see :func:`paqad.deliver.render.render_section`):
    all of a low-confidence or up-to-5 confident form, the first 12 pointers of a larger
    confident form, none for "nothing"."""
    if outcome.form == CONFIDENT and len(outcome.results) > MAX_PASSAGES:
        return outcome.results[:MAX_POINTERS]
    return outcome.results


def score_case(case: EvalCase, arm: str, outcome: FloorOutcome | None, section: str = "") -> CaseResult:
    """Score one case from what was delivered: ``outcome`` None means retrieval off (nothing,
    0 tokens); else ``section`` is the rendered section whose tokens are counted."""
    expected = tuple(dict.fromkeys(p.path for p in case.expected))
    items = () if outcome is None else tuple(delivered_items(outcome))
    files = distinct_files(items)
    first_k = distinct_files(items[:HIT_K])
    if expected:
        partial = recall_at_k(first_k, expected, HIT_K)
        hit: bool | None = partial == 1.0
        rr: float | None = reciprocal_rank(files, expected)
        success = bool(hit)
    else:
        partial = hit = rr = None
        success = not items if case.case_class == SHOULD_SKIP else bool(items)
    return CaseResult(
        case_id=case.id, case_class=case.case_class, arm=arm, expected=expected,
        form="off" if outcome is None else outcome.form,
        delivered=tuple(r.location for r in items), delivered_files=tuple(files),
        hit=hit, partial=partial, reciprocal_rank=rr, success=success,
        tokens=0 if outcome is None else count_tokens(section),
        best_score=None if outcome is None else outcome.best_score,
    )


def run_case(index: EvalIndex, case: EvalCase, arm: str, retriever: Retriever | None = None) -> CaseResult:
    """Run one case under ``arm`` against the open ``index``.

    ``off`` delivers nothing. Any other arm asks ``retriever`` (default: the arm's own,
    :data:`ARM_RETRIEVERS`: the product's search -> floor -> section for ``on``/``rag``, BM25
    order for ``lexical``) and scores what it delivered.
    """
    if arm == "off":
        return score_case(case, arm, None)
    chosen = retriever or ARM_RETRIEVERS.get(arm)
    if chosen is None:
        raise ValueError(f"unknown arm {arm!r}")
    delivery = chosen(index, case.query)
    return score_case(case, arm, delivery.outcome, delivery.section)


# --- the temporary index and its persistent embedding cache ------------------------------------


def cache_path(key: str) -> Path:
    """Where the eval index of ``key`` is kept between runs: ``$PAQAD_HOME/eval-cache/<key>.sqlite``.

    It is a copy of the last eval index, embedding cache included, so a later run embeds only
    text it has not seen. Safe to delete.
    """
    return paqad_home() / "eval-cache" / f"{key}.sqlite"


def _restore_cache(paths: ProjectPaths, key: str | None) -> None:
    if key is None:
        return
    source = cache_path(key)
    if source.is_file():
        paths.vectors_dir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, paths.index_db)


def _save_cache(paths: ProjectPaths, key: str | None) -> None:
    """Copy the eval index to the cache with SQLite's online backup (consistent even in WAL mode)."""
    if key is None or not paths.index_db.is_file():
        return
    target = cache_path(key)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    if store_mod.backup_database(paths.index_db, tmp):
        os.replace(tmp, target)
    else:
        tmp.unlink(missing_ok=True)  # the cache is an optimisation; a failed save costs time only


@contextmanager
def temporary_project(cache_key: str | None) -> Iterator[ProjectPaths]:
    """A fresh temporary project folder (its ``.paqad/vectors/`` seeded from the cache of
    ``cache_key`` when present); removed afterwards, its index saved back to the cache."""
    folder = Path(tempfile.mkdtemp(prefix="paqad-eval-"))
    paths = ProjectPaths(folder / "project")
    paths.root.mkdir()
    try:
        _restore_cache(paths, cache_key)
        yield paths
        _save_cache(paths, cache_key)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _copy_builtin_project(target: Path) -> None:
    # shutil.copy (not copy2): fresh mtimes make the sync hash every file, so an edited
    # package file is never mistaken for the cached one.
    shutil.copytree(project_dir(), target, dirs_exist_ok=True, copy_function=shutil.copy)


# --- a whole run -------------------------------------------------------------------------------


def _arm_names(mode: str) -> tuple[str, ...]:
    base, cand = MODE_ARMS[mode]
    return (cand,) if mode == "rag-vs-candidate" else (base, cand)


def _sync(paths: ProjectPaths, settings: Settings, embedder: Embedder, progress: Progress | None) -> IndexReport:
    report = sync(paths, settings, embedder, progress=progress)
    assert report is not None  # blocking sync always returns a report
    return report


def run_builtin(settings: Settings, embedder: Embedder, mode: str, *, use_cache: bool = True,
                progress: Progress | None = None, log: Log | None = None,
                cases: Sequence[EvalCase] | None = None,
                retrievers: Mapping[str, Retriever] | None = None) -> tuple[dict[str, list[CaseResult]], dict]:
    """Index a temporary copy of the built-in project and run its cases under the arms of ``mode``.

    Returns (results per arm, meta). ``cases`` defaults to the shipped ``cases.json``;
    ``retrievers`` maps an arm to the retriever it uses instead of its own (:func:`run_case`).
    """
    retrievers = retrievers or {}
    cases = list(cases if cases is not None else load_cases())
    arms = _arm_names(mode)
    out: dict[str, list[CaseResult]] = {arm: [] for arm in arms}
    with temporary_project("builtin" if use_cache else None) as paths:
        _copy_builtin_project(paths.root)
        started = time.perf_counter()
        index = _sync(paths, settings, embedder, progress)
        index_seconds = time.perf_counter() - started
        if log:
            log(f"eval index: {index.summary()}")
        started = time.perf_counter()
        with store_mod.open_store(paths, readonly=True) as store:
            index_view = EvalIndex(store, paths, settings, embedder)
            for case in cases:
                for arm in arms:
                    out[arm].append(run_case(index_view, case, arm, retrievers.get(arm)))
        query_seconds = time.perf_counter() - started
    meta = {
        "source": "built-in",
        "source_detail": f"built-in Ledgerly project ({index.files_total} files, {index.chunks_total} chunks), {len(cases)} cases",
        "index": {"files": index.files_total, "chunks": index.chunks_total, "embedded": index.embedded,
                  "cached": index.cached, "seconds": round(index_seconds, 2)},
        "query_seconds": round(query_seconds, 2),
        "skipped": [],
    }
    return out, meta


def _no_usable_commit(scan: GitScan, count: int, top: Path) -> EvaluationError:
    """The error for a ``--from-git`` history without a commit that makes a case (none is raised here)."""
    why = (f"the {len(scan.ignored)} that change non-test source files change more than {MAX_GOLD_FILES} each"
           if scan.ignored else "none changes a non-test source file")
    return EvaluationError(f"--from-git {count}: no usable commit among the last {scan.scanned} of the first-parent "
                           f"history of {top}: {why}")


def _git_meta(top: Path, count: int, scan: GitScan, results: list[CaseResult], skipped: list[dict], timing: dict) -> dict:
    """The ``meta`` of a ``--from-git`` run: its source, the ignored and skipped commits, ``timing``
    (``index`` and ``query_seconds``) and the commit list; ``results`` are the last arm's."""
    commits = scan.cases
    used = len(commits) - len(skipped)
    named = sum(1 for r in results if r.case_class == GIT_NAMED)
    ignored = f"; {len(scan.ignored)} ignored: more than {MAX_GOLD_FILES} changed source files" if scan.ignored else ""
    meta = {
        "source": "git",
        "source_detail": f"git history of {top}: {used} commit cases ({named} name a changed file in their message)"
                         f"{ignored}",
        "repository": str(top),
        "commits_requested": count,
        "commits_scanned": scan.scanned,
        "ignored": {
            "count": len(scan.ignored), "max_files": MAX_GOLD_FILES,
            "reason": f"changes more than {MAX_GOLD_FILES} non-test source files: no top {HIT_K} can hold its gold set",
            "commits": [{"id": f"git-{c.commit[:10]}", "commit": c.commit, "files": c.files, "subject": c.subject}
                        for c in scan.ignored],
        },
        **timing,
        "skipped": skipped,
        "commits": [{"id": c.case.id, "commit": c.commit, "parent": c.parent, "named": c.named, "subject": c.case.notes}
                    for c in commits],
    }
    return meta


def run_git(repo: Path, count: int, settings: Settings, embedder: Embedder, mode: str, *, use_cache: bool = True,
            progress: Progress | None = None, log: Log | None = None,
            retrievers: Mapping[str, Retriever] | None = None) -> tuple[dict[str, list[CaseResult]], dict]:
    """Cases from the last ``count`` qualifying commits of ``repo`` (see :func:`git_cases`), each run
    against an index of its parent commit.

    One temporary folder serves all commits: each parent's tree is extracted into it (``git
    archive``) and the index synced incrementally, so unchanged files cost a hash and unchanged
    chunks are never embedded twice. Expected files the index does not hold (filtered out,
    e.g. ignored or too large) are dropped; a case left without any is skipped and listed in
    ``meta["skipped"]``. Commits changing more than 5 source files make no case (no top 5 can
    hold their gold set); ``meta["ignored"]`` counts and lists them. The extracted tree has no
    ``.git`` and no ``.paqad/`` (the user's current
    settings apply to every commit), so a file git tracks inside a git-ignored folder is
    filtered out here although the live index would keep it.
    """
    retrievers = retrievers or {}
    top = git_toplevel(repo)
    scan = git_cases(top, count)
    commits = scan.cases
    if not commits:
        raise _no_usable_commit(scan, count, top)
    arms = _arm_names(mode)
    out: dict[str, list[CaseResult]] = {arm: [] for arm in arms}
    skipped: list[dict] = []
    index_seconds = query_seconds = 0.0
    embedded = cached = 0
    key = "git-" + hashlib.sha256(str(top.resolve()).encode()).hexdigest()[:16] if use_cache else None
    current_parent = None
    with temporary_project(key) as paths:
        for number, item in enumerate(commits, start=1):
            if item.parent != current_parent:
                started = time.perf_counter()
                checkout_into(top, item.parent, paths.root)
                index = _sync(paths, settings, embedder, progress)
                index_seconds += time.perf_counter() - started
                embedded += index.embedded
                cached += index.cached
                current_parent = item.parent
                if log:
                    log(f"[{number}/{len(commits)}] {item.commit[:10]} at parent {item.parent[:10]}: {index.summary()}")
            started = time.perf_counter()
            with store_mod.open_store(paths, readonly=True) as store:
                indexed = store.files()
                places = tuple(p for p in item.case.expected if p.path in indexed)
                if not places:
                    skipped.append({"id": item.case.id, "commit": item.commit, "reason": "no expected file is indexed at the parent",
                                    "expected": [p.path for p in item.case.expected]})
                    continue
                case = replace(item.case, expected=places)
                index_view = EvalIndex(store, paths, settings, embedder)
                for arm in arms:
                    out[arm].append(run_case(index_view, case, arm, retrievers.get(arm)))
            query_seconds += time.perf_counter() - started
    timing = {"index": {"embedded": embedded, "cached": cached, "seconds": round(index_seconds, 2)},
              "query_seconds": round(query_seconds, 2)}
    return out, _git_meta(top, count, scan, out[arms[-1]], skipped, timing)


def _checked_snapshot(mode: str, from_git: int | None, baseline: Path | None) -> dict | None:
    """The baseline snapshot ``rag-vs-candidate`` compares with (None for other modes), after
    checking the options; raises UsageError for an unknown mode, a bad ``--from-git`` count or a
    ``--baseline`` missing or given to another mode."""
    if mode not in MODES:
        raise UsageError(f"--mode {mode}: unknown; use one of {', '.join(MODES)}")
    if from_git is not None and from_git < 1:
        raise UsageError(f"--from-git {from_git}: give a number of commits of at least 1")
    snapshot = None
    if mode == "rag-vs-candidate":
        if baseline is None:
            raise UsageError("--mode rag-vs-candidate needs --baseline SNAPSHOT.json (write one with --save-snapshot)")
        snapshot = load_snapshot(baseline)
    elif baseline is not None:
        raise UsageError(f"--baseline is only used with --mode rag-vs-candidate, not {mode}")
    return snapshot


def run_eval(
    user_paths: ProjectPaths,
    mode: str = "feature-off-vs-on",
    *,
    from_git: int | None = None,
    baseline: Path | None = None,
    thresholds: GateThresholds = GateThresholds(),
    use_cache: bool = True,
    progress: Progress | None = None,
    log: Log | None = None,
    settings: Settings | None = None,
    embedder: Embedder | None = None,
    retriever: Retriever | None = None,
) -> EvalReport:
    """Run ``rag eval`` for the project at ``user_paths`` and return the report.

    The user's settings choose provider, model, floor, relief floor and ``rag_top_n``; the user's
    index and ``.paqad/`` files are never written. ``baseline`` is a snapshot file (required for
    and only used by ``rag-vs-candidate``). ``retriever`` (see :mod:`paqad.evaluate.retrievers`)
    replaces the product's search -> floor -> section in the candidate arm (``on`` / ``rag``), so
    another retrieval strategy meets the same cases and the same gate.

    Raises PaqadError for an unknown mode, a missing or unreadable baseline, a mismatch between
    the baseline's cases and this run's, or ``--from-git`` problems.
    """
    snapshot = _checked_snapshot(mode, from_git, baseline)
    settings = settings or load_settings(user_paths)
    if embedder is None:
        from paqad.embed.factory import get_embedder

        embedder = get_embedder(settings, user_paths)
    base_arm, cand_arm = MODE_ARMS[mode]
    retrievers = {} if retriever is None else {cand_arm: retriever}
    started = time.perf_counter()
    if from_git is not None:
        per_arm, meta = run_git(user_paths.root, from_git, settings, embedder, mode, use_cache=use_cache,
                                progress=progress, log=log, retrievers=retrievers)
    else:
        per_arm, meta = run_builtin(settings, embedder, mode, use_cache=use_cache, progress=progress, log=log,
                                    retrievers=retrievers)
    candidate = per_arm[cand_arm]
    if snapshot is not None:
        baseline_results, candidate = align_with_snapshot(snapshot, candidate, meta, baseline)
    else:
        baseline_results = per_arm[base_arm]
    meta.update({
        "provider": embedder.provider,
        "model": embedder.model_id,
        "similarity_threshold": settings.rag_similarity_threshold,
        "relief_floor": settings.rag_relief_floor,
        "top_n": settings.rag_top_n,
        "seconds": round(time.perf_counter() - started, 2),
        "rules": RULES,
    })
    return build_report(mode, baseline_results, candidate, meta, thresholds)

