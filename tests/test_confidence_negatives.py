"""Issue 19's reproductions on real code: the installed `requests` package indexed with the real
local model.

- "match %" never rises with rank, within one answer;
- prompts about the clock, arithmetic, an editor or another project get the nothing form, decided
  from their wording and from the index (their words are not all in `requests`);
- a real code question in the same index is never skipped, and keeps its passages.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import build_index
from paqad.config import load_settings
from paqad.deliver.delivery import deliver
from paqad.deliver.intent import classify
from paqad.project import ProjectPaths
from paqad.search import load_embedder, search
from paqad.search.floor import percent

pytest.importorskip("requests")


def _deliver(root: Path, prompt: str):
    paths = ProjectPaths(root)
    settings = load_settings(paths, environ={})
    embedder, why = load_embedder(paths, settings)
    assert why is None
    return deliver(paths, settings, prompt, "this prompt", embedder=embedder)


@pytest.mark.parametrize("query", ["where are redirects handled?", "HTTPAdapter.send", "how are cookies merged into a request",
                                   "proxy authentication header"])
def test_confidence_never_rises_with_rank(requests_project, query):
    paths = ProjectPaths(requests_project)
    settings = load_settings(paths, environ={})
    embedder, _ = load_embedder(paths, settings)
    results = search(paths, settings, query, embedder=embedder, top_n=12).results
    confidences = [r.confidence for r in results]
    assert len(confidences) == 12 and None not in confidences
    assert confidences == sorted(confidences, reverse=True)
    assert [r.fused_rank for r in results] == list(range(1, 13))


# a delivered percentage: a passage's heading ("· match 88%") or a pointer's ("· 88% — ")
_SHOWN_MATCH = re.compile(r"· (?:match )?(\d+)%")


@pytest.mark.parametrize("prompt,form,count", [
    # round 10's refit: the class alone for RequestsCookieJar (round 8 also delivered RequestsCookieJar.copy at 75 %)
    ("how are cookies merged into a request", "confident", 1), ("HTTPAdapter.send", "confident", 1),
    ("proxy authentication header", "low-confidence", 1), ("RequestsCookieJar", "confident", 1),
    ("where is the request body encoded as multipart form data", "low-confidence", 1)])
def test_the_delivered_passages_are_the_ranking_s_first_results_listed_best_first(requests_project, prompt, form, count):
    """Issue 19's "sections list 81 % before 90 %" and "rank 2 at 52 % is not delivered while rank
    12 at 80 % is": what the section shows is a prefix of the ranking (no rank below a dropped
    one), in rank order, and the percentages it prints never rise down the section."""
    delivery = _deliver(requests_project, prompt)
    assert (delivery.outcome.form, len(delivery.outcome.results)) == (form, count)
    paths = ProjectPaths(requests_project)
    settings = load_settings(paths, environ={})
    embedder, _ = load_embedder(paths, settings)
    ranked = search(paths, settings, prompt, embedder=embedder, top_n=len(delivery.outcome.results)).results
    key = [(r.path, r.start_line, r.end_line) for r in delivery.outcome.results]
    assert key == [(r.path, r.start_line, r.end_line) for r in ranked]
    shown = [int(m) for m in _SHOWN_MATCH.findall(delivery.section)]
    assert len(shown) == min(len(key), 12) and shown == sorted(shown, reverse=True)
    assert shown[0] == percent(delivery.outcome.best_score)


@pytest.mark.parametrize("prompt,reason", [
    ("what time is it in tokyo right now?", "time or date"),
    ("what is 48 times 12", "arithmetic"),
    ("how do I exit vim without saving", "editor, shell or git how-to"),
    ("how does kubernetes restart a crashed pod", "another project"),
    ("tell me a joke about compilers", "writing"),
    ("how are you doing today?", "chat"),
])
def test_off_project_prompts_get_the_nothing_form_on_a_real_project(requests_project, prompt, reason):
    delivery = _deliver(requests_project, prompt)
    assert (delivery.outcome.form, delivery.outcome.results, delivery.intent.reason) == ("nothing", (), reason)
    assert f"this prompt needs no project context ({reason})" in delivery.section


def test_a_code_question_is_never_skipped_and_the_index_can_overrule_the_wording(requests_project):
    delivery = _deliver(requests_project, "where are redirects handled?")
    # searched (not skipped by the intent check): the floor decides on the calibrated confidence
    assert delivery.intent.needs_retrieval and delivery.outcome.best_score is not None
    # The wording says "git how-to", but every word of it is in requests' index: the search decides.
    assert classify("how do I delete a session cookie branch", known_terms=lambda words: set(words)).needs_retrieval
    assert not classify("how do I delete a session cookie branch", known_terms=lambda words: set()).needs_retrieval


def _rated(root: Path, query: str) -> dict[str | None, float]:
    """The shipped fit's own estimate per result symbol (the calibrated probability before the
    monotone cap, which only follows the ranking)."""
    from paqad import store as store_mod
    from paqad.search import gather
    from paqad.search.confidence import calibration_for
    from paqad.search.ranking import rank_with_evidence

    paths = ProjectPaths(root)
    embedder, _ = load_embedder(paths, load_settings(paths, environ={}))
    calibration = calibration_for(embedder.model_id)
    with store_mod.open_store(paths, readonly=True) as store:
        results, evidence = rank_with_evidence(store, gather(store, embedder, query), top_n=20)
    return {r.symbol: calibration.probability(ev) for r, ev in zip(results, evidence)}


def test_the_redirect_question_no_longer_rates_handle_redirect_confident(requests_project):
    """Issue 19: without negatives ``HTTPDigestAuth.handle_redirect`` (an auth hook, not where
    redirects are handled) was rated 89 % and delivered confident; round 6's refit rated it 66 %,
    round 8's 79 % (a wrong confident passage again, a strict xfail); round 10's (symbol cases'
    other chunks at target 0, bench/README.md "Round 10: confidence precision") 28 %."""
    rated = _rated(requests_project, "where are redirects handled?")
    assert rated["HTTPDigestAuth.handle_redirect"] < 0.35  # round 10: 28 %, not even the relief band
    assert _deliver(requests_project, "where are redirects handled?").outcome.form != "confident"


@pytest.mark.xfail(strict=True, reason="issue 19, open: resolve_redirects ranks 8th (handle_redirect 1st) and every "
                                       "per-result evidence of it is weaker; a chunk-level fit does not change that "
                                       "either (28 % vs 5 %): needs a ranking change, not the fit")
def test_the_redirect_question_rates_resolve_redirects_above_handle_redirect(requests_project):
    rated = _rated(requests_project, "where are redirects handled?")
    assert rated["SessionRedirectMixin.resolve_redirects"] > rated["HTTPDigestAuth.handle_redirect"]


def test_a_websockets_question_in_the_requests_index_is_not_delivered_confident(requests_project):
    """A cross-project negative: a question about another project's code (websocket framing,
    the ``ws`` benchmark's subject) asked in requests gets no confident passage."""
    delivery = _deliver(requests_project, "where is the websocket frame masked before it is sent?")
    assert delivery.intent.needs_retrieval
    assert delivery.outcome.form != "confident" and delivery.outcome.best_score < 0.75


@pytest.mark.xfail(strict=True, reason="issue 19, open: with the refit (negatives) the copy of requests (465 chunks, "
                                       "under the 500 the query-level evidence needs) rates every result of this "
                                       "prompt under the 35 % relief floor (best 20 %): nothing is delivered")
def test_the_redirect_question_delivers_resolve_redirects(requests_project):
    # issue 19: the 4-line HTTPDigestAuth.handle_redirect was delivered alone at 89 %; passage choice
    # (search.signals.passage_choice) gives each file its chunk of code, and sessions.py's is resolve_redirects
    delivery = _deliver(requests_project, "where are redirects handled?")
    assert ("src/requests/sessions.py", "SessionRedirectMixin.resolve_redirects") in {
        (r.path, r.symbol) for r in delivery.outcome.results}


@pytest.fixture(scope="module")
def loguru_project(tmp_path_factory, paqad_home):
    loguru = pytest.importorskip("loguru")
    folder = Path(loguru.__file__).parent
    files = {f"loguru/{p.relative_to(folder).as_posix()}": p.read_text(encoding="utf-8")
             for p in sorted(folder.rglob("*.py*")) if p.suffix in (".py", ".pyi")}
    files["pyproject.toml"] = "[project]\nname = 'loguru-copy'\nversion = '0'\n"
    return build_index(tmp_path_factory.mktemp("neg") / "loguru", files, paqad_home)


COLORS = "where are log records formatted with colors?"


def test_the_colors_question_reproduces_the_wrong_first_passage(loguru_project):
    """Issue 19, round 7 (the lead's newcomer run on loguru): the first passage for the colors
    question is ``Logger._log`` (it calls the colorizer), not ``loguru/_colorizer.py``, which
    holds the answer; ``Handler.emit`` follows within 4 % of its fused score (a toss-up)."""
    rated = _rated(loguru_project, COLORS)
    delivery = _deliver(loguru_project, COLORS)
    assert delivery.outcome.results[0].symbol == "Logger._log"
    assert "loguru/_colorizer.py" not in {r.path for r in delivery.outcome.results}
    assert "Logger._log" in rated


def test_the_colors_question_is_not_delivered_confident(loguru_project):
    """Issue 19: ``Logger._log`` was rated 88 % (confident) for a question its file does not answer;
    round 8's MiniLM refit (partial targets 0.7, small indexes' query evidence at the 75th
    percentile) rates it under the floor (bench/README.md "Round 8: the lead's run")."""
    assert _deliver(loguru_project, COLORS).outcome.form != "confident"


# --- round 8: a keyword-only index (no model) asked another project's question -------------------

def _keyword_only(root: Path, prompt: str):
    """The prompt path with no usable model (degraded search: keyword and symbol evidence only,
    rated by the keyword-only fit)."""
    paths = ProjectPaths(root)
    return deliver(paths, load_settings(paths, environ={}), prompt, "this prompt", embedder=None)


def _query_evidence(root: Path, prompt: str):
    from paqad import store as store_mod
    from paqad.search import gather

    with store_mod.open_store(ProjectPaths(root), readonly=True) as store:
        return gather(store, None, prompt).query_evidence


@pytest.mark.parametrize("prompt,missing,undefined", [
    ("mergeConfig", 2 / 3, 1.0),  # axios' config merger: "merge" and "mergeconfig" are in no chunk of loguru
    ("what does sdsMakeRoomFor do when the string needs to grow", 0.5, 1.0),  # hiredis
    ("Logger.opt", 0.0, 0.0),  # loguru's own method
])
def test_a_small_index_measures_the_words_and_names_it_lacks(loguru_project, prompt, missing, undefined):
    """Round 8: below 500 chunks (loguru: 371) the background evidence is unknown, but the share of
    the query's terms no chunk holds and of its identifiers no chunk defines are measured at every
    size: another project's names are undefined here."""
    evidence = _query_evidence(loguru_project, prompt)
    assert (evidence.bm25_reach, evidence.top_cosine) == (None, None)
    assert (evidence.missing_terms, evidence.undefined_names) == pytest.approx((missing, undefined))


def test_a_keyword_only_index_still_answers_its_own_symbol(loguru_project):
    delivery = _keyword_only(loguru_project, "Logger.opt")
    assert delivery.degraded is not None
    assert delivery.outcome.form != "nothing" and delivery.outcome.results[0].symbol == "Logger.opt"


@pytest.mark.parametrize("prompt", [
    "setProxy",  # axios
    "redisCommand",  # hiredis
    "what does sdsMakeRoomFor do when the string needs to grow",  # hiredis
])
def test_a_keyword_only_index_does_not_deliver_another_project_s_question_confident(loguru_project, prompt):
    """Issue 19, open since round 8: the shipped keyword-only fit rated these 84-85 % confident in
    loguru (setProxy -> load_ctime_functions, redisCommand -> Logger.add). Round 11: the fit's
    QueryCap (the query names identifiers and loguru defines none of them) rates them at most 70 %;
    the passages are still shown, as low confidence, so a cap takes no passage away."""
    from paqad.search.confidence import KEYWORD_ONLY, load_calibration

    assert _query_evidence(loguru_project, prompt).undefined_names == 1.0
    outcome = _keyword_only(loguru_project, prompt).outcome
    assert outcome.form == "low-confidence" and len(outcome.results) >= 1
    assert outcome.best_score == pytest.approx(load_calibration(KEYWORD_ONLY).query_cap.ceiling)


def test_a_keyword_only_index_does_not_deliver_echos_balancer_question_confident(loguru_project):
    # in the xfail list above until round 11: the close call at the top (signals.file_evidence) now puts the
    # loguru file with more candidates first, and the delivery is no longer confident (a ranking change, not a fit)
    prompt = "how does roundRobinBalancer.Next avoid retrying a failed request on the same target?"  # echo
    assert _keyword_only(loguru_project, prompt).outcome.form != "confident"


def test_the_keyword_only_query_cap_round_trips_and_caps_only_at_its_bound():
    """Round 11: the shipped keyword-only fit carries a QueryCap (undefined names 1.0, ceiling 0.70)."""
    from dataclasses import replace

    from paqad.search.confidence import KEYWORD_ONLY, NO_QUERY_EVIDENCE as NO_QUERY, Calibration, QueryCap, \
        load_calibration

    fit = load_calibration(KEYWORD_ONLY)
    assert fit.query_cap == QueryCap(1.0, float("inf"), 0.70)
    assert Calibration.from_dict(fit.to_dict()) == fit
    assert fit.query_cap.applies(replace(NO_QUERY, undefined_names=1.0))
    assert not fit.query_cap.applies(replace(NO_QUERY, undefined_names=0.5, missing_terms=1.0))

