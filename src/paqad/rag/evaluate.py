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

Cases come from the built-in evaluation project (:mod:`paqad.evaldata`, copied into a temporary
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
``off`` as baseline the token check passes only through the success waiver.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
import time
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator, Sequence

from paqad.config import MAX_PASSAGES, MAX_POINTERS, Settings, load_settings, paqad_home
from paqad.errors import PaqadError
from paqad.evaldata import EvalCase, ExpectedPlace, load_cases, project_dir
from paqad.project import ProjectPaths
from paqad.rag import store as store_mod
from paqad.rag.context import render_section
from paqad.rag.embeddings.base import Embedder
from paqad.rag.floor import CONFIDENT, FloorOutcome, apply_floor
from paqad.rag.indexer import IndexReport, Progress, sync_index
from paqad.rag.languages import SOURCE_LANGUAGES, language_for_path
from paqad.rag.metrics import distinct_files, recall_at_k, reciprocal_rank
from paqad.rag.search import fuse, is_test_path, rank_candidates, search

MODES = ("feature-off-vs-on", "lexical-vs-rag", "rag-vs-candidate")
# (baseline arm, candidate arm) of each mode.
MODE_ARMS = {
    "feature-off-vs-on": ("off", "on"),
    "lexical-vs-rag": ("lexical", "rag"),
    "rag-vs-candidate": ("snapshot", "rag"),
}
HIT_K = 5  # hit@5, partial@5 (issue 6)
CHARS_PER_TOKEN = 4  # OpenAI rule of thumb: one token ~ 4 characters of English text
QUERY_LABEL = "this prompt"  # what the hook path labels a prompt query (refresh.section_for_prompt)
SNAPSHOT_VERSION = 1
GIT_SCAN_FACTOR = 10  # --from-git N looks at most at 10 N first-parent commits to find N usable ones
GIT_NAMED, GIT_UNNAMED = "git-named", "git-unnamed"
SHOULD_SKIP = "should-skip"

Log = Callable[[str], None]


# --- arithmetic --------------------------------------------------------------------------------


def relative_change(before: float, after: float) -> float:
    """``(after - before) / before``; from ``before == 0``: ``+inf`` if ``after > 0``, ``0.0`` if equal.

    (``-inf`` if ``after < before == 0``, which non-negative metrics never reach.) This makes a
    rise from zero an improvement of unbounded size: ``relative_change(0, 0.4) == inf``,
    ``relative_change(0.2, 0.3) == 0.5``, ``relative_change(0.5, 0.25) == -0.5``.
    """
    if before == 0:
        if after == before:
            return 0.0
        return math.inf if after > before else -math.inf
    return (after - before) / before


def count_tokens(text: str) -> int:
    """Prompt tokens of ``text`` by the stated rule ``ceil(characters / 4)``."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


@dataclass(frozen=True)
class GateThresholds:
    """The gate of ``feature-off-vs-on`` (issue 6 defaults); all values are relative changes.

    ``min_hit_gain``: hit@5 must rise by at least this; ``min_success_gain``: task success must
    rise by at least this; ``min_correction_drop``: correction turns must fall by at least this;
    ``max_token_rise``: prompt tokens may rise by at most this, unless task success rose by at
    least ``token_waiver_success_gain``.
    """

    min_hit_gain: float = 0.20
    min_success_gain: float = 0.10
    min_correction_drop: float = 0.15
    max_token_rise: float = 0.10
    token_waiver_success_gain: float = 0.15


@dataclass(frozen=True)
class CaseResult:
    """One case under one arm.

    ``expected`` and ``delivered_files`` are project-relative paths; ``delivered`` holds the
    delivered items as ``path:Lstart-end`` in delivery order. ``hit``/``partial``/
    ``reciprocal_rank`` are None for cases without expected files. ``tokens`` is the prompt
    tokens added (``ceil(chars / 4)`` of the section). ``form`` is ``"off"``, ``"confident"``,
    ``"low-confidence"`` or ``"nothing"``; ``best_score`` the highest cosine seen (None for off).
    """

    case_id: str
    case_class: str
    arm: str
    expected: tuple[str, ...]
    form: str
    delivered: tuple[str, ...]
    delivered_files: tuple[str, ...]
    hit: bool | None
    partial: float | None
    reciprocal_rank: float | None
    success: bool
    tokens: int
    best_score: float | None


@dataclass(frozen=True)
class Summary:
    """Means over a group of cases of one arm.

    ``hit_at_5``, ``partial_at_5`` and ``mrr`` average the ``targeted`` cases (None when there
    are none); ``success``, ``correction_turns`` and ``tokens_added`` (tokens per case) average
    all ``cases``. ``forms`` counts the delivery forms.
    """

    cases: int
    targeted: int
    hit_at_5: float | None
    partial_at_5: float | None
    mrr: float | None
    success: float
    correction_turns: float
    tokens_added: float
    forms: dict[str, int] = field(default_factory=dict)


# Gate comparisons allow for float rounding: 0.5 -> 0.6 is a 20 % gain, though (0.6 - 0.5) / 0.5
# evaluates to 0.19999999999999996.
_EPS = 1e-9

METRICS = ("hit_at_5", "partial_at_5", "mrr", "success", "correction_turns", "tokens_added")


def summarize(results: Sequence[CaseResult]) -> Summary:
    """Aggregate ``results`` (one arm) into a :class:`Summary`. Empty input gives zeros."""
    targeted = [r for r in results if r.expected]
    n = len(results)

    def mean(values: list[float]) -> float | None:
        return sum(values) / len(values) if values else None

    success = sum(r.success for r in results) / n if n else 0.0
    forms: dict[str, int] = {}
    for r in results:
        forms[r.form] = forms.get(r.form, 0) + 1
    return Summary(
        cases=n,
        targeted=len(targeted),
        hit_at_5=mean([float(bool(r.hit)) for r in targeted]),
        partial_at_5=mean([r.partial or 0.0 for r in targeted]),
        mrr=mean([r.reciprocal_rank or 0.0 for r in targeted]),
        success=success,
        correction_turns=1.0 - success if n else 0.0,
        tokens_added=sum(r.tokens for r in results) / n if n else 0.0,
        forms=dict(sorted(forms.items())),
    )


def changes(baseline: Summary, candidate: Summary) -> dict[str, float | None]:
    """Relative change of every metric from ``baseline`` to ``candidate`` (None when undefined)."""
    out: dict[str, float | None] = {}
    for name in METRICS:
        before, after = getattr(baseline, name), getattr(candidate, name)
        out[name] = None if before is None or after is None else relative_change(before, after)
    return out


@dataclass(frozen=True)
class GateCheck:
    """One line of the gate: the metric's baseline and candidate values, its relative change
    (a drop is reported as a positive number for ``correction turns drop``), the threshold,
    whether it passed, and a note (e.g. that the token rise was waived)."""

    name: str
    baseline: float
    candidate: float
    change: float
    threshold: float
    passed: bool
    note: str = ""


@dataclass(frozen=True)
class Gate:
    """All checks of the gate; ``passed`` when every check passed."""

    checks: tuple[GateCheck, ...]

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)


def evaluate_gate(off: Summary, on: Summary, thresholds: GateThresholds = GateThresholds()) -> Gate:
    """The ``feature-off-vs-on`` gate: ``on`` against the ``off`` baseline.

    Checks: hit@5 gain >= ``min_hit_gain``; task success gain >= ``min_success_gain``;
    correction turns drop (``-relative_change``) >= ``min_correction_drop``; token rise <=
    ``max_token_rise`` or, failing that, success gain >= ``token_waiver_success_gain``.
    A metric without targeted cases counts as 0.
    """
    hit_before, hit_after = off.hit_at_5 or 0.0, on.hit_at_5 or 0.0
    hit_gain = relative_change(hit_before, hit_after)
    success_gain = relative_change(off.success, on.success)
    drop = -relative_change(off.correction_turns, on.correction_turns)
    token_rise = relative_change(off.tokens_added, on.tokens_added)
    t = thresholds
    within = token_rise <= t.max_token_rise + _EPS
    waived = not within and success_gain >= t.token_waiver_success_gain - _EPS
    if within:
        note = ""
    elif waived:
        note = f"waived: task success rose {_pct(success_gain)} (>= {_pct(t.token_waiver_success_gain)})"
    else:
        note = f"not waived: task success rose {_pct(success_gain)} (< {_pct(t.token_waiver_success_gain)})"
    return Gate((
        GateCheck("hit@5 gain", hit_before, hit_after, hit_gain, t.min_hit_gain, hit_gain >= t.min_hit_gain - _EPS),
        GateCheck("task success gain", off.success, on.success, success_gain, t.min_success_gain,
                  success_gain >= t.min_success_gain - _EPS),
        GateCheck("correction turns drop", off.correction_turns, on.correction_turns, drop, t.min_correction_drop,
                  drop >= t.min_correction_drop - _EPS),
        GateCheck("prompt tokens rise", off.tokens_added, on.tokens_added, token_rise, t.max_token_rise,
                  within or waived, note),
    ))


def _pct(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value * 100:+.1f}%"


# --- one case, one arm -------------------------------------------------------------------------


def delivered_items(outcome: FloorOutcome):
    """The results the rendered section shows, in order (see :func:`paqad.rag.context.render_section`):
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


def run_case(
    store: store_mod.IndexStore, paths: ProjectPaths, settings: Settings, embedder: Embedder | None,
    case: EvalCase, arm: str,
) -> CaseResult:
    """Run one case under ``arm`` (``off``, ``lexical``, ``on`` or ``rag``) against an open index.

    ``on``/``rag``: :func:`paqad.rag.search.search` (dense + BM25, RRF, signals), then the floor
    and :func:`render_section` as ``refresh-context`` does. ``lexical``: the same candidates,
    fused from the BM25 ranking alone; each result still carries its cosine as its score, so the
    same floor decides what is delivered.
    """
    if arm == "off":
        return score_case(case, arm, None)
    if arm == "lexical":
        ranked = rank_candidates(store, embedder, case.query)
        results = fuse(store, ranked, case.query, top_n=settings.rag_top_n, rankers=("lexical",))
    elif arm in ("on", "rag"):
        results = search(paths, settings, case.query, embedder=embedder, store=store)
    else:
        raise ValueError(f"unknown arm {arm!r}")
    outcome = apply_floor(results, settings.rag_similarity_threshold, settings.rag_relief_floor)
    return score_case(case, arm, outcome, render_section(outcome, QUERY_LABEL))


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
    try:
        src = sqlite3.connect(paths.index_db)
        dst = sqlite3.connect(tmp)
        try:
            src.backup(dst)
        finally:
            dst.close()
            src.close()
        os.replace(tmp, target)
    except (OSError, sqlite3.Error):
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


# --- cases from the user's git history ---------------------------------------------------------


@dataclass(frozen=True)
class GitCase:
    """A case made from one commit: ``case.query`` is its message, ``case.expected`` the non-test
    source files it changed that existed at ``parent``; ``named`` when the message names one of
    them (its path, file name or stem as a word)."""

    case: EvalCase
    commit: str
    parent: str
    named: bool


def _git(repo: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=False)
    except OSError as exc:
        raise PaqadError(f"--from-git: cannot run git ({exc}); install git") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise PaqadError(f"--from-git: `git {' '.join(args)}` failed in {repo}: {last}")
    return done.stdout


def git_toplevel(root: Path) -> Path:
    """The work tree top of the git repository holding ``root``; PaqadError when there is none."""
    try:
        out = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=root, capture_output=True, text=True, check=False)
    except OSError as exc:
        raise PaqadError(f"--from-git: cannot run git ({exc}); install git") from None
    if out.returncode != 0:
        raise PaqadError(f"--from-git: {root} is not in a git repository; run it inside one or pass --project-root")
    return Path(out.stdout.strip())


def is_source_file(path: str) -> bool:
    """A non-test source file: a language parsed with tree-sitter (``SOURCE_LANGUAGES``) and not
    a test path (:func:`paqad.rag.search.is_test_path`)."""
    return language_for_path(path) in SOURCE_LANGUAGES and not is_test_path(path)


def message_names(message: str, path: str) -> bool:
    """True when ``message`` names ``path``: the path, the file name, or the stem (>= 3 letters)
    as a whole word, case-insensitive (``store: ...`` names ``src/paqad/rag/store.py``)."""
    low = message.lower()
    name = path.rsplit("/", 1)[-1].lower()
    stem = name.rsplit(".", 1)[0]
    if path.lower() in low or name in low:
        return True
    return len(stem) >= 3 and re.search(rf"(?<![\w]){re.escape(stem)}(?![\w])", low) is not None


def git_cases(repo: Path, count: int) -> list[GitCase]:
    """Cases from the last ``count`` first-parent commits of ``repo`` (HEAD) that change a non-test
    source file which existed at the parent (modified, deleted or renamed away; ``--no-renames``).

    Oldest first. Root commits are skipped; at most ``10 * count`` commits are looked at.
    Raises PaqadError when ``repo`` is not a git repository or ``count < 1``.
    """
    if count < 1:
        raise PaqadError(f"--from-git {count}: give a number of commits of at least 1")
    top = git_toplevel(repo)
    revs = _git(top, "rev-list", "--first-parent", f"--max-count={count * GIT_SCAN_FACTOR}", "HEAD").split()
    found: list[GitCase] = []
    for commit in revs:
        parents = _git(top, "rev-list", "--parents", "-n", "1", commit).split()[1:]
        if not parents:
            continue
        parent = parents[0]
        changed = _git(top, "diff", "--name-only", "--no-renames", "--diff-filter=MDT", "-z", parent, commit).split("\0")
        expected = tuple(p for p in changed if p and is_source_file(p))
        if not expected:
            continue
        message = _git(top, "log", "-1", "--format=%B", commit).strip()
        named = any(message_names(message, p) for p in expected)
        case = EvalCase(
            id=f"git-{commit[:10]}", case_class=GIT_NAMED if named else GIT_UNNAMED, query=message,
            expected=tuple(ExpectedPlace(p) for p in expected), notes=message.splitlines()[0] if message else "",
        )
        found.append(GitCase(case, commit, parent, named))
        if len(found) == count:
            break
    found.reverse()
    return found


def _checkout_into(repo: Path, commit: str, target: Path) -> None:
    """Replace everything in ``target`` except ``.paqad/`` with the tree of ``commit`` (``git archive``;
    the repository is not touched)."""
    for child in target.iterdir():
        if child.name == ".paqad":
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()

    def safe(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
        if member.name.split("/", 1)[0] == ".paqad":
            return None
        try:
            return tarfile.data_filter(member, dest)
        except tarfile.FilterError:
            return None  # e.g. a symlink pointing outside the tree: not indexed anyway

    proc = subprocess.Popen(["git", "archive", "--format=tar", commit], cwd=repo, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        with tarfile.open(fileobj=proc.stdout, mode="r|") as archive:
            archive.extractall(target, filter=safe)
    finally:
        if proc.stdout is not None:
            proc.stdout.close()
        err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        if proc.stderr is not None:
            proc.stderr.close()
        if proc.wait() != 0:
            raise PaqadError(f"--from-git: `git archive {commit[:10]}` failed: {err.strip()}")


# --- a whole run -------------------------------------------------------------------------------


@dataclass(frozen=True)
class EvalReport:
    """The outcome of one ``rag eval`` run.

    ``results`` holds the :class:`CaseResult` of both arms; ``overall`` and ``per_class`` the
    (baseline, candidate) summaries; ``gate`` is set for ``feature-off-vs-on`` only. ``meta``:
    provider, model, floor settings, case source, index and timing figures, skipped cases.
    """

    mode: str
    baseline_arm: str
    candidate_arm: str
    results: tuple[CaseResult, ...]
    overall: tuple[Summary, Summary]
    per_class: dict[str, tuple[Summary, Summary]]
    gate: Gate | None
    meta: dict

    @property
    def failed(self) -> bool:
        """True when the gate ran and failed (the CLI exits 1)."""
        return self.gate is not None and not self.gate.passed

    def arm_results(self, arm: str) -> list[CaseResult]:
        return [r for r in self.results if r.arm == arm]


def build_report(mode: str, baseline: Sequence[CaseResult], candidate: Sequence[CaseResult], meta: dict,
                 thresholds: GateThresholds = GateThresholds()) -> EvalReport:
    """Summaries per class and overall, and the gate for ``feature-off-vs-on``."""
    base_arm, cand_arm = MODE_ARMS[mode]
    classes: dict[str, list[list[CaseResult]]] = defaultdict(lambda: [[], []])
    for r in baseline:
        classes[r.case_class][0].append(r)
    for r in candidate:
        classes[r.case_class][1].append(r)
    per_class = {name: (summarize(b), summarize(c)) for name, (b, c) in classes.items()}
    overall = (summarize(baseline), summarize(candidate))
    gate = evaluate_gate(*overall, thresholds) if mode == "feature-off-vs-on" else None
    return EvalReport(mode, base_arm, cand_arm, tuple(baseline) + tuple(candidate), overall, per_class, gate, meta)


def _arm_names(mode: str) -> tuple[str, ...]:
    base, cand = MODE_ARMS[mode]
    return (cand,) if mode == "rag-vs-candidate" else (base, cand)


def _sync(paths: ProjectPaths, settings: Settings, embedder: Embedder, progress: Progress | None) -> IndexReport:
    report = sync_index(paths, settings, embedder, progress=progress)
    assert report is not None  # blocking sync always returns a report
    return report


def run_builtin(settings: Settings, embedder: Embedder, mode: str, *, use_cache: bool = True,
                progress: Progress | None = None, log: Log | None = None,
                cases: Sequence[EvalCase] | None = None) -> tuple[dict[str, list[CaseResult]], dict]:
    """Index a temporary copy of the built-in project and run its cases under the arms of ``mode``.

    Returns (results per arm, meta). ``cases`` defaults to the shipped ``cases.json``.
    """
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
            for case in cases:
                for arm in arms:
                    out[arm].append(run_case(store, paths, settings, embedder, case, arm))
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


def run_git(repo: Path, count: int, settings: Settings, embedder: Embedder, mode: str, *, use_cache: bool = True,
            progress: Progress | None = None, log: Log | None = None) -> tuple[dict[str, list[CaseResult]], dict]:
    """Cases from the last ``count`` qualifying commits of ``repo`` (see :func:`git_cases`), each run
    against an index of its parent commit.

    One temporary folder serves all commits: each parent's tree is extracted into it (``git
    archive``) and the index synced incrementally, so unchanged files cost a hash and unchanged
    chunks are never embedded twice. Expected files the index does not hold (filtered out,
    e.g. ignored or too large) are dropped; a case left without any is skipped and listed in
    ``meta["skipped"]``. The extracted tree has no ``.git`` and no ``.paqad/`` (the user's current
    settings apply to every commit), so a file git tracks inside a git-ignored folder is
    filtered out here although the live index would keep it.
    """
    top = git_toplevel(repo)
    commits = git_cases(top, count)
    if not commits:
        raise PaqadError(f"--from-git {count}: no commit in the first-parent history of {top} changes a non-test source file")
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
                _checkout_into(top, item.parent, paths.root)
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
                for arm in arms:
                    out[arm].append(run_case(store, paths, settings, embedder, case, arm))
            query_seconds += time.perf_counter() - started
    used = len(commits) - len(skipped)
    named = sum(1 for r in out[arms[-1]] if r.case_class == GIT_NAMED)
    meta = {
        "source": "git",
        "source_detail": f"git history of {top}: {used} commit cases ({named} name a changed file in their message)",
        "repository": str(top),
        "commits_requested": count,
        "index": {"embedded": embedded, "cached": cached, "seconds": round(index_seconds, 2)},
        "query_seconds": round(query_seconds, 2),
        "skipped": skipped,
        "commits": [{"id": c.case.id, "commit": c.commit, "parent": c.parent, "named": c.named, "subject": c.case.notes}
                    for c in commits],
    }
    return out, meta


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
) -> EvalReport:
    """Run ``rag eval`` for the project at ``user_paths`` and return the report.

    The user's settings choose provider, model, floor, relief floor and ``rag_top_n``; the user's
    index and ``.paqad/`` files are never written. ``baseline`` is a snapshot file (required for
    and only used by ``rag-vs-candidate``).

    Raises PaqadError for an unknown mode, a missing or unreadable baseline, a mismatch between
    the baseline's cases and this run's, or ``--from-git`` problems.
    """
    if mode not in MODES:
        raise PaqadError(f"--mode {mode}: unknown; use one of {', '.join(MODES)}")
    if from_git is not None and from_git < 1:
        raise PaqadError(f"--from-git {from_git}: give a number of commits of at least 1")
    snapshot = None
    if mode == "rag-vs-candidate":
        if baseline is None:
            raise PaqadError("--mode rag-vs-candidate needs --baseline SNAPSHOT.json (write one with --save-snapshot)")
        snapshot = load_snapshot(baseline)
    elif baseline is not None:
        raise PaqadError(f"--baseline is only used with --mode rag-vs-candidate, not {mode}")
    settings = settings or load_settings(user_paths)
    if embedder is None:
        from paqad.rag.embeddings.factory import get_embedder

        embedder = get_embedder(settings, user_paths)
    started = time.perf_counter()
    if from_git is not None:
        per_arm, meta = run_git(user_paths.root, from_git, settings, embedder, mode, use_cache=use_cache,
                                progress=progress, log=log)
    else:
        per_arm, meta = run_builtin(settings, embedder, mode, use_cache=use_cache, progress=progress, log=log)
    base_arm, cand_arm = MODE_ARMS[mode]
    candidate = per_arm[cand_arm]
    if snapshot is not None:
        baseline_results, candidate = _align_with_snapshot(snapshot, candidate, meta, baseline)
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


RULES = {
    "delivered": "the passages or pointers of the rendered section, in order; none for the 'nothing' form and for off",
    "hit_at_5": "every expected file is among the files of the first 5 delivered items (multi-part: all places); "
                "mean over targeted cases",
    "partial_at_5": "fraction of expected files among the files of the first 5 delivered items; mean over targeted cases",
    "mrr": "1/rank of the first expected file among the distinct delivered files (0 if none); mean over targeted cases",
    "success": "hit@5 for targeted cases; nothing delivered for should-skip; something delivered for other cases "
               "without expected files; mean over all cases",
    "correction_turns": "1 - task success",
    "tokens_added": "ceil(characters / 4) of the rendered '## Retrieved context' section (every form), 0 for off; "
                    "mean per case",
    "relative_change": "(after - before) / before; from before = 0: +inf if after > 0, 0 if after = 0",
}


# --- snapshots ---------------------------------------------------------------------------------


def snapshot_data(report: EvalReport) -> dict:
    """What ``--save-snapshot`` writes: the candidate arm's per-case results of ``report`` and the
    settings it ran with (JSON-able)."""
    return {
        "version": SNAPSHOT_VERSION,
        "kind": "paqad-ai rag eval snapshot",
        "created_at": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        "mode": report.mode,
        "arm": report.candidate_arm,
        "meta": {k: v for k, v in report.meta.items() if k not in ("rules", "commits")},
        "summary": _jsonable(asdict(report.overall[1])),
        "cases": [_jsonable(asdict(r)) for r in report.arm_results(report.candidate_arm)],
    }


def save_snapshot(report: EvalReport, path: Path) -> None:
    """Write :func:`snapshot_data` of ``report`` to ``path`` (JSON). PaqadError when it cannot."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(snapshot_data(report), indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise PaqadError(f"--save-snapshot {path}: cannot write ({exc.strerror or exc})") from None


def load_snapshot(path: Path) -> dict:
    """Read a snapshot file; PaqadError naming the file when it is missing or not a snapshot."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PaqadError(f"--baseline {path}: no such file; write one with `paqad-ai rag eval --save-snapshot {path}`") from None
    except (OSError, ValueError) as exc:
        raise PaqadError(f"--baseline {path}: not a readable JSON snapshot ({exc})") from None
    if not isinstance(data, dict) or data.get("version") != SNAPSHOT_VERSION or not isinstance(data.get("cases"), list):
        raise PaqadError(f"--baseline {path}: not a snapshot of version {SNAPSHOT_VERSION}; write one with --save-snapshot")
    return data


def _case_from_json(raw: dict, arm: str) -> CaseResult:
    values = dict(raw)
    values["arm"] = arm
    for name in ("expected", "delivered", "delivered_files"):
        values[name] = tuple(values.get(name) or ())
    return CaseResult(**{k: values.get(k) for k in CaseResult.__dataclass_fields__})


def _align_with_snapshot(snapshot: dict, candidate: list[CaseResult], meta: dict, path: Path | None):
    """The snapshot's results and this run's, restricted to the cases both have (same order)."""
    try:
        old = {r["case_id"]: _case_from_json(r, "snapshot") for r in snapshot["cases"]}
    except (KeyError, TypeError) as exc:
        raise PaqadError(f"--baseline {path}: malformed case record ({exc}); write it again with --save-snapshot") from None
    common = [r for r in candidate if r.case_id in old]
    if not common:
        raise PaqadError(f"--baseline {path}: shares no case with this run (it was made from "
                         f"{snapshot.get('meta', {}).get('source', 'another case set')}; use the same case source)")
    meta["baseline"] = {
        "file": str(path), "created_at": snapshot.get("created_at"), "model": snapshot.get("meta", {}).get("model"),
        "compared_cases": len(common), "only_in_baseline": len(old) - len(common),
        "only_in_this_run": len(candidate) - len(common),
    }
    return [old[r.case_id] for r in common], common


# --- JSON --------------------------------------------------------------------------------------


def _jsonable(value):
    """Replace infinities (not valid JSON) by the strings ``"+inf"`` / ``"-inf"``; tuples by lists."""
    if isinstance(value, float) and math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def report_data(report: EvalReport) -> dict:
    """The report as JSON-able data (what ``--json`` prints). Infinite changes are ``"+inf"``."""
    def pair(b: Summary, c: Summary) -> dict:
        return {report.baseline_arm: asdict(b), report.candidate_arm: asdict(c), "change": changes(b, c)}

    data = {
        "mode": report.mode,
        "arms": {"baseline": report.baseline_arm, "candidate": report.candidate_arm},
        "meta": report.meta,
        "overall": pair(*report.overall),
        "per_class": {name: pair(*s) for name, s in sorted(report.per_class.items())},
        "gate": None if report.gate is None else {
            "passed": report.gate.passed,
            "checks": [asdict(c) for c in report.gate.checks],
        },
        "cases": [asdict(r) for r in report.results],
    }
    return _jsonable(data)
