"""``rag eval``: gate arithmetic, per-case scoring, exit codes, the user's project left alone, --from-git."""

from __future__ import annotations

import io
import json
import math
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from conftest import MODEL_MIRROR, git, write_files
from paqad.cli.main import main
from paqad.errors import PaqadError
from paqad.evaluate.cases import CASE_CLASSES, EvalCase, ExpectedPlace, load_cases
from paqad.deliver.render import render_section
from paqad.evaluate import (
    GIT_NAMED,
    GIT_UNNAMED,
    GateThresholds,
    Summary,
    cache_path,
    count_tokens,
    evaluate_gate,
    git_cases,
    is_source_file,
    load_snapshot,
    message_names,
    relative_change,
    score_case,
    summarize,
)
from paqad.search.floor import apply_floor
from paqad.search.results import SearchResult


def run(*args: str) -> tuple[int, str, str]:
    """The CLI in-process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


# ------------------------------------------------------------------ arithmetic


def test_relative_change_from_zero_counts_as_improvement():
    assert relative_change(0.0, 0.0) == 0.0
    assert relative_change(0.0, 0.4) == math.inf
    assert relative_change(0.0, -0.1) == -math.inf
    assert relative_change(0.2, 0.3) == pytest.approx(0.5)
    assert relative_change(0.5, 0.25) == -0.5
    assert relative_change(100.0, 105.0) == pytest.approx(0.05)


def test_count_tokens_is_ceil_of_chars_over_four():
    assert count_tokens("") == 0
    assert count_tokens("abcd") == 1
    assert count_tokens("abcde") == 2
    assert count_tokens("x" * 1200) == 300


def _summary(hit, success, tokens, cases=10, targeted=8) -> Summary:
    return Summary(cases=cases, targeted=targeted, hit_at_5=hit, partial_at_5=hit, mrr=hit, success=success,
                   correction_turns=1.0 - success, tokens_added=tokens)


GATE_CHECKS = ["hit@5 gain", "task success gain", "correction turns drop", "prompt tokens rise", "hit@5 minimum",
               "task success minimum", "should-skip success minimum"]


def _skip(success: float, cases: int = 8) -> Summary:
    return Summary(cases=cases, targeted=0, hit_at_5=None, partial_at_5=None, mrr=None, success=success,
                   correction_turns=1.0 - success, tokens_added=0.0)


def test_gate_off_vs_on_passes_only_through_the_token_waiver():
    off = _summary(hit=0.0, success=8 / 53, tokens=0.0, cases=53, targeted=45)
    on = _summary(hit=27 / 45, success=30 / 53, tokens=313.0, cases=53, targeted=45)
    gate = evaluate_gate(off, on, should_skip=(_skip(1.0), _skip(7 / 8)))
    by_name = {c.name: c for c in gate.checks}
    assert [c.name for c in gate.checks] == GATE_CHECKS
    assert by_name["hit@5 gain"].change == math.inf and by_name["hit@5 gain"].passed
    assert by_name["task success gain"].change == pytest.approx(22 / 8)  # 8/53 -> 30/53
    assert by_name["correction turns drop"].change == pytest.approx(22 / 45)  # 45/53 -> 23/53
    tokens = by_name["prompt tokens rise"]
    assert tokens.change == math.inf and tokens.passed
    assert tokens.note == "waived: task success rose +275.0% (>= +15.0%)"
    assert [(c.kind, c.baseline, c.candidate, c.change, c.threshold, c.passed, c.note) for c in gate.checks[4:]] == [
        ("minimum", 0.0, 27 / 45, None, 0.40, True, "27 of 45 targeted cases hit"),
        ("minimum", 8 / 53, 30 / 53, None, 0.40, True, "30 of 53 cases succeed"),
        ("minimum", 1.0, 7 / 8, None, 0.75, True, "7 of 8 should-skip cases delivered nothing"),
    ]
    assert {c.kind for c in gate.checks[:4]} == {"relative"}
    assert gate.passed and gate.thresholds == GateThresholds()


def test_few_hits_pass_every_relative_check_but_not_the_minimums():
    # From off's zeros any hit is a +inf gain. 7 hits in 45 with every should-skip prompt left
    # alone: success 8 -> 15 of 53 (+88 %), correction turns 45 -> 38 (-16 %), the token rise
    # waived. The seed's rules all pass; the minimums do not.
    off = _summary(hit=0.0, success=8 / 53, tokens=0.0, cases=53, targeted=45)
    on = _summary(hit=7 / 45, success=15 / 53, tokens=300.0, cases=53, targeted=45)
    gate = evaluate_gate(off, on, should_skip=(_skip(1.0), _skip(1.0)))
    assert [c.name for c in gate.checks if not c.passed] == ["hit@5 minimum", "task success minimum"]
    by_name = {c.name: c for c in gate.checks}
    assert by_name["hit@5 gain"].change == math.inf
    assert by_name["task success gain"].change == pytest.approx(7 / 8)
    assert by_name["correction turns drop"].change == pytest.approx(7 / 45)
    assert by_name["prompt tokens rise"].note == "waived: task success rose +87.5% (>= +15.0%)"
    assert by_name["hit@5 minimum"].note == "7 of 45 targeted cases hit"


def test_delivering_on_every_should_skip_prompt_fails_only_the_skip_minimum():
    off = _summary(hit=0.0, success=8 / 53, tokens=0.0, cases=53, targeted=45)
    on = _summary(hit=30 / 45, success=30 / 53, tokens=337.0, cases=53, targeted=45)
    gate = evaluate_gate(off, on, should_skip=(_skip(1.0), _skip(0.0)))
    assert [c.name for c in gate.checks if not c.passed] == ["should-skip success minimum"]
    skip = gate.checks[-1]
    assert (skip.baseline, skip.candidate, skip.threshold, skip.note) == (1.0, 0.0, 0.75, "0 of 8 should-skip cases delivered nothing")


def test_skip_minimum_without_should_skip_cases_passes_and_says_so():
    off = _summary(hit=0.0, success=0.0, tokens=0.0, cases=18, targeted=18)
    on = _summary(hit=0.5, success=0.5, tokens=380.0, cases=18, targeted=18)
    for should_skip in (None, (_skip(0.0, cases=0), _skip(0.0, cases=0))):
        skip = evaluate_gate(off, on, should_skip=should_skip).checks[-1]
        assert (skip.name, skip.baseline, skip.candidate, skip.passed, skip.note) == (
            "should-skip success minimum", None, None, True, "no should-skip cases in this set")


def test_minimums_are_inclusive_and_overridable():
    off = _summary(hit=0.0, success=0.0, tokens=0.0, cases=10, targeted=10)
    on = _summary(hit=0.4, success=0.4, tokens=100.0, cases=10, targeted=10)
    assert evaluate_gate(off, on, should_skip=(_skip(1.0, 4), _skip(0.75, 4))).passed  # each exactly at its minimum
    strict = GateThresholds(min_hit_at_5=0.5, min_task_success=0.41, min_skip_success=0.8)
    gate = evaluate_gate(off, on, strict, should_skip=(_skip(1.0, 4), _skip(0.75, 4)))
    assert [c.name for c in gate.checks if not c.passed] == GATE_CHECKS[4:]
    assert [c.threshold for c in gate.checks[4:]] == [0.5, 0.41, 0.8] and gate.thresholds == strict


def test_gate_token_rise_without_enough_success_fails():
    off = _summary(hit=0.5, success=0.5, tokens=100.0)
    on = _summary(hit=0.6, success=0.56, tokens=200.0)  # success +12%: enough for the gain, not for the waiver
    gate = evaluate_gate(off, on)
    by_name = {c.name: c for c in gate.checks}
    assert by_name["hit@5 gain"].change == pytest.approx(0.2) and by_name["hit@5 gain"].passed
    assert by_name["task success gain"].change == pytest.approx(0.12) and by_name["task success gain"].passed
    assert by_name["correction turns drop"].change == pytest.approx(0.12) and not by_name["correction turns drop"].passed
    assert by_name["prompt tokens rise"].change == pytest.approx(1.0)
    assert not by_name["prompt tokens rise"].passed
    assert by_name["prompt tokens rise"].note == "not waived: task success rose +12.0% (< +15.0%)"
    assert not gate.passed


def test_gate_small_token_rise_passes_without_waiver():
    off = _summary(hit=0.5, success=0.4, tokens=100.0)
    on = _summary(hit=0.7, success=0.5, tokens=110.0)
    checks = {c.name: c for c in evaluate_gate(off, on).checks}
    assert checks["prompt tokens rise"].change == pytest.approx(0.10)
    assert checks["prompt tokens rise"].passed and checks["prompt tokens rise"].note == ""


def test_gate_zero_to_zero_is_no_improvement():
    off = _summary(hit=0.0, success=0.0, tokens=0.0)
    on = _summary(hit=0.0, success=0.0, tokens=0.0)
    checks = {c.name: c for c in evaluate_gate(off, on).checks}
    assert checks["hit@5 gain"].change == 0.0 and not checks["hit@5 gain"].passed
    assert checks["task success gain"].change == 0.0 and not checks["task success gain"].passed
    assert checks["correction turns drop"].change == 0.0 and not checks["correction turns drop"].passed
    assert checks["prompt tokens rise"].change == 0.0 and checks["prompt tokens rise"].passed


def test_gate_thresholds_are_overridable():
    off = _summary(hit=0.5, success=0.5, tokens=100.0)
    on = _summary(hit=0.55, success=0.55, tokens=100.0)
    assert not evaluate_gate(off, on).passed  # hit +10% < 20%
    loose = GateThresholds(min_hit_gain=0.05, min_success_gain=0.05, min_correction_drop=0.05)
    assert evaluate_gate(off, on, loose).passed  # drop 0.5 -> 0.45 = 10%


# ------------------------------------------------------------------ one case


def _result(path: str, rank: int, score: float, text: str = "def f():\n    return 1\n") -> SearchResult:
    return SearchResult(path=path, start_line=rank * 10, end_line=rank * 10 + 1, symbol=None, language="python",
                        text=text, score=score, fused_rank=rank, dense_rank=rank, lexical_rank=None)


def test_multi_part_needs_every_file_and_reports_partial_credit():
    case = EvalCase("mp", "multi-part", "q", (ExpectedPlace("a.py"), ExpectedPlace("b.py")))
    outcome = apply_floor([_result("c.py", 1, 0.5), _result("a.py", 2, 0.45), _result("b.py", 3, 0.40)])
    section = render_section(outcome, "this prompt")
    r = score_case(case, "on", outcome, section)
    assert outcome.form == "low-confidence"
    assert r.delivered == ("c.py:L10-11", "a.py:L20-21")  # relief delivers two
    assert r.delivered_files == ("c.py", "a.py")
    assert (r.hit, r.partial, r.reciprocal_rank, r.success) == (False, 0.5, 0.5, False)
    assert r.tokens == math.ceil(len(section) / 4)


def test_hit_at_5_counts_only_the_first_five_pointers():
    case = EvalCase("x", "lexical", "q", (ExpectedPlace("f6.py"),))
    results = [_result(f"f{i}.py", i, 0.9) for i in range(1, 8)]
    outcome = apply_floor(results)
    r = score_case(case, "on", outcome, render_section(outcome, "this prompt"))
    assert outcome.form == "confident" and len(r.delivered) == 7  # pointers form: up to 12
    assert (r.hit, r.partial) == (False, 0.0)
    assert r.reciprocal_rank == pytest.approx(1 / 6)


def test_should_skip_succeeds_only_when_nothing_is_delivered():
    case = EvalCase("s", "should-skip", "rename tmp", ())
    nothing = apply_floor([_result("a.py", 1, 0.30)])
    relief = apply_floor([_result("a.py", 1, 0.36)])
    quiet = score_case(case, "on", nothing, render_section(nothing, "this prompt"))
    noisy = score_case(case, "on", relief, render_section(relief, "this prompt"))
    off = score_case(case, "off", None)
    assert (quiet.form, quiet.success, quiet.hit, quiet.partial) == ("nothing", True, None, None)
    assert quiet.tokens == count_tokens(render_section(nothing, "this prompt")) > 0  # the section still says "nothing"
    assert (noisy.form, noisy.success) == ("low-confidence", False)
    assert (off.form, off.success, off.tokens, off.delivered) == ("off", True, 0, ())


def test_summarize_averages_targeted_and_all_cases_separately():
    hit_case = EvalCase("a", "lexical", "q", (ExpectedPlace("a.py"),))
    miss_case = EvalCase("b", "lexical", "q", (ExpectedPlace("z.py"),))
    skip_case = EvalCase("c", "should-skip", "q", ())
    outcome = apply_floor([_result("a.py", 1, 0.5)])
    section = render_section(outcome, "this prompt")
    results = [score_case(hit_case, "on", outcome, section), score_case(miss_case, "on", outcome, section),
               score_case(skip_case, "on", outcome, section)]
    s = summarize(results)
    assert (s.cases, s.targeted) == (3, 2)
    assert (s.hit_at_5, s.partial_at_5, s.mrr) == (0.5, 0.5, 0.5)
    assert s.success == pytest.approx(1 / 3) and s.correction_turns == pytest.approx(2 / 3)
    assert s.tokens_added == count_tokens(section)
    assert s.forms == {"low-confidence": 3}


# ------------------------------------------------------------------ git helpers


def test_source_files_and_named_messages():
    assert is_source_file("src/paqad/rag/store.py")
    assert is_source_file("web/src/auth/session.ts")
    assert not is_source_file("tests/test_store.py")
    assert not is_source_file("web/src/auth/session.test.ts")
    assert not is_source_file("README.md")
    assert not is_source_file("config/plans.json")
    assert message_names("store: run each migration in one transaction", "src/paqad/rag/store.py")
    assert message_names("Fix src/a/b.py crash", "src/a/b.py")
    assert message_names("tweak billing.py rounding", "src/billing.py")
    assert not message_names("restore the old behaviour", "src/paqad/rag/store.py")  # not a whole word
    assert not message_names("Round totals to whole cents", "src/billing.py")


# ------------------------------------------------------------------ end to end (the model, one index)


USER_PROJECT = {
    "pyproject.toml": "[project]\nname = 'shop'\nversion = '0.1'\n",
    "src/shop/cart.py": (
        "def cart_total(items):\n    \"\"\"Sum of price times quantity for every cart line.\"\"\"\n"
        "    return sum(item.price * item.quantity for item in items)\n"
    ),
    "README.md": "# Shop\n\nA tiny shop used to check that `rag eval` leaves the user's index alone.\n",
}


def _tree_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def eval_env(tmp_path_factory, paqad_home):
    """A user project with its own index, then the full built-in eval run from it (once per module).

    The autouse env fixture is function-scoped, so this module-scoped one sets the same env itself.
    """
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PAQAD_HOME", str(paqad_home))
        mp.setenv("PAQAD_MODEL_MIRROR", str(MODEL_MIRROR))
        mp.setenv("HF_HUB_OFFLINE", "1")
        for name in ("PAQAD_RAG_SIMILARITY_THRESHOLD", "PAQAD_RAG_RELIEF_FLOOR", "PAQAD_RAG_TOP_N",
                     "PAQAD_RAG_EMBEDDING_PROVIDER", "PAQAD_RAG_EMBEDDING_MODEL"):
            mp.delenv(name, raising=False)
        root = tmp_path_factory.mktemp("user") / "shop"
        write_files(root, USER_PROJECT)
        code, _, err = run("rag", "init", "--provider", "local", "--project-root", str(root))
        assert code == 0, err
        before = _tree_bytes(root)
        snapshot = root.parent / "snapshot.json"
        code, out, err = run("rag", "eval", "--json", "--save-snapshot", str(snapshot), "--project-root", str(root))
        yield {"root": root, "before": before, "code": code, "report": json.loads(out), "stderr": err,
               "snapshot": snapshot}


def test_feature_off_vs_on_passes_its_gate_with_the_default_model(eval_env):
    assert eval_env["code"] == 0, eval_env["stderr"]
    report = eval_env["report"]
    assert report["mode"] == "feature-off-vs-on"
    assert report["meta"]["model"] == "Xenova/all-MiniLM-L6-v2"
    assert report["meta"]["index"]["files"] == 67
    assert sorted(report["per_class"]) == sorted(CASE_CLASSES)
    off, on = report["overall"]["off"], report["overall"]["on"]
    assert (off["cases"], off["targeted"]) == (53, 45)
    # Off: nothing delivered, so only the 8 should-skip cases succeed and no token is added.
    assert off["success"] == pytest.approx(8 / 53) and off["hit_at_5"] == 0.0 and off["tokens_added"] == 0.0
    assert off["forms"] == {"off": 53}
    assert report["per_class"]["lexical"]["on"]["hit_at_5"] >= 8 / 9
    assert on["success"] > off["success"] * 1.15
    gate = report["gate"]
    assert gate["passed"] is True
    tokens = gate["checks"][3]
    assert tokens["name"] == "prompt tokens rise" and tokens["change"] == "+inf" and tokens["note"].startswith("waived")
    # The minimums, with their thresholds, in the JSON.
    assert gate["failed"] == []
    assert gate["thresholds"] == {"min_hit_gain": 0.2, "min_success_gain": 0.1, "min_correction_drop": 0.15,
                                  "max_token_rise": 0.1, "token_waiver_success_gain": 0.15, "min_hit_at_5": 0.4,
                                  "min_task_success": 0.4, "min_skip_success": 0.75}
    assert [(c["name"], c["kind"], c["candidate"], c["threshold"], c["passed"]) for c in gate["checks"][4:]] == [
        ("hit@5 minimum", "minimum", 24 / 45, 0.4, True),
        ("task success minimum", "minimum", 32 / 53, 0.4, True),
        ("should-skip success minimum", "minimum", 8 / 8, 0.75, True),  # the nothing form for every one
    ]
    # Every case has both arms; off delivers nothing.
    cases = report["cases"]
    assert len(cases) == 2 * 53
    assert all(c["delivered"] == [] and c["tokens"] == 0 for c in cases if c["arm"] == "off")


def test_eval_leaves_the_users_index_and_config_untouched(eval_env):
    assert _tree_bytes(eval_env["root"]) == eval_env["before"]
    assert ".paqad/vectors/index.sqlite" in eval_env["before"] and ".paqad/.config" in eval_env["before"]
    assert cache_path("builtin").is_file()  # the eval's own cache lives under PAQAD_HOME


@pytest.mark.parametrize(
    "flags, failed",
    [
        (["--min-success-gain", "100"], "task success gain"),
        (["--min-hit-at-5", "0.6"], "hit@5 minimum"),  # the product reaches 24/45 = 0.533
        (["--min-task-success", "0.7"], "task success minimum"),  # 32/53 = 0.604
        (["--min-correction-drop", "0.99"], "correction turns drop"),
    ],
)
def test_gate_failure_exits_1(eval_env, flags, failed):
    code, out, err = run("rag", "eval", *flags, "--project-root", str(eval_env["root"]))
    assert code == 1
    assert f"eval gate failed ({failed})" in err
    assert "FAIL" in out and "Gate" in out
    assert _tree_bytes(eval_env["root"]) == eval_env["before"]


def test_gate_table_shows_the_minimums_and_their_thresholds(eval_env):
    code, out, err = run("rag", "eval", "--min-skip-success", "0.875", "--project-root", str(eval_env["root"]))
    assert code == 0, err
    rows = {line.split("│")[1].strip(): [cell.strip() for cell in line.split("│")[2:-1]]
            for line in out.splitlines() if line.startswith("│") and "minimum" in line}
    assert rows == {
        "hit@5 minimum": ["0.000", "0.533", "-", ">= 0.4", "PASS", "24 of 45 targeted cases hit"],
        "task success minimum": ["0.151", "0.604", "-", ">= 0.4", "PASS", "32 of 53 cases succeed"],
        "should-skip success minimum": ["1.000", "1.000", "-", ">= 0.875", "PASS",
                                        "8 of 8 should-skip cases delivered nothing"],
    }


def test_rag_vs_candidate_against_the_same_run_changes_nothing(eval_env):
    saved = load_snapshot(eval_env["snapshot"])
    assert saved["arm"] == "on" and len(saved["cases"]) == 53
    code, out, err = run("rag", "eval", "--mode", "rag-vs-candidate", "--baseline", str(eval_env["snapshot"]), "--json",
                         "--project-root", str(eval_env["root"]))
    assert code == 0, err
    report = json.loads(out)
    assert report["arms"] == {"baseline": "snapshot", "candidate": "rag"}
    assert report["gate"] is None
    assert report["meta"]["baseline"]["compared_cases"] == 53
    change = report["overall"]["change"]
    assert change == {"hit_at_5": 0.0, "partial_at_5": 0.0, "mrr": 0.0, "success": 0.0, "correction_turns": 0.0,
                      "tokens_added": 0.0}


def test_lexical_vs_rag_runs_both_rankings_on_the_same_cases(eval_env):
    code, out, err = run("rag", "eval", "--mode", "lexical-vs-rag", "--json", "--project-root", str(eval_env["root"]))
    assert code == 0, err
    report = json.loads(out)
    assert report["gate"] is None
    lexical = [c for c in report["cases"] if c["arm"] == "lexical"]
    rag = [c for c in report["cases"] if c["arm"] == "rag"]
    assert [c["case_id"] for c in lexical] == [c["case_id"] for c in rag] == [c.id for c in load_cases()]
    # The rag arm is the same hybrid as feature-off-vs-on's "on".
    on = {c["case_id"]: c["delivered"] for c in eval_env["report"]["cases"] if c["arm"] == "on"}
    assert {c["case_id"]: c["delivered"] for c in rag} == on
    assert report["overall"]["lexical"]["cases"] == 53


@pytest.mark.parametrize(
    "args, message",
    [
        (["--mode", "rag-vs-candidate", "--baseline", "missing.json"], "--baseline missing.json: no such file"),
        (["--mode", "rag-vs-candidate"], "--mode rag-vs-candidate needs --baseline"),
        (["--baseline", "x.json"], "--baseline is only used with --mode rag-vs-candidate"),
        (["--from-git", "0"], "--from-git 0: give a number of commits of at least 1"),
    ],
)
def test_user_errors_exit_2(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.json").write_text("{}", encoding="utf-8")
    code, _, err = run("rag", "eval", *args, "--project-root", str(tmp_path))
    assert code == 2
    assert message in err
    assert not (tmp_path / ".paqad").exists()


def test_a_file_that_is_not_a_snapshot_exits_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 99}', encoding="utf-8")
    code, _, err = run("rag", "eval", "--mode", "rag-vs-candidate", "--baseline", str(bad), "--project-root", str(tmp_path))
    assert code == 2 and "not a snapshot of version 1" in err
    with pytest.raises(PaqadError, match="no such file"):
        load_snapshot(tmp_path / "nope.json")


def test_from_git_outside_a_repository_exits_2(tmp_path):
    code, _, err = run("rag", "eval", "--from-git", "5", "--project-root", str(tmp_path))
    assert code == 2 and "is not in a git repository" in err


# ------------------------------------------------------------------ --from-git on a real history


BILLING_V1 = '''"""Invoices and payments."""


def invoice_total(lines, tax_rate):
    """Total of an invoice: the sum of its lines plus tax."""
    subtotal = sum(line.amount for line in lines)
    return subtotal + subtotal * tax_rate


def charge_card(card, amount):
    """Charge a customer's card through the payment gateway."""
    return card.gateway.charge(card.token, amount)
'''

MAILER_V1 = '''"""Outgoing e-mail."""
import smtplib


def send_email(to, subject, body, host="localhost"):
    """Send one e-mail message through the SMTP server."""
    with smtplib.SMTP(host) as server:
        server.sendmail("shop@example.com", [to], f"Subject: {subject}\\n\\n{body}")
'''


def _commit(repo: Path, files: dict[str, str], message: str) -> str:
    write_files(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


@pytest.fixture
def history(git_repo) -> tuple[Path, dict[str, str]]:
    repo = git_repo({
        "pyproject.toml": "[project]\nname = 'shop'\nversion = '0.1'\n",
        "src/shop/billing.py": BILLING_V1,
        "src/shop/mailer.py": MAILER_V1,
        "tests/test_billing.py": "from shop.billing import invoice_total\n\n\ndef test_total():\n    assert invoice_total([], 0.2) == 0\n",
        "README.md": "# Shop\n\nInvoices, card payments and e-mail for a small shop.\n",
        "build/generated.py": "def generated_lookup_table():\n    return {'built': 'by a script, ignored by the indexer'}\n",
    })
    shas = {"initial": git(repo, "rev-parse", "HEAD").strip()}
    shas["round"] = _commit(repo, {"src/shop/billing.py": BILLING_V1.replace(
        "return subtotal + subtotal * tax_rate", "return round(subtotal + subtotal * tax_rate, 2)")},
        "Round invoice totals with tax to whole cents\n\nCustomers saw totals like 10.0000001 on their invoices.")
    shas["tests-only"] = _commit(repo, {"tests/test_billing.py": "def test_nothing():\n    assert True\n",
                                        "README.md": "# Shop\n\nNow with rounding.\n"}, "Update tests and readme")
    shas["mailer"] = _commit(repo, {"src/shop/mailer.py": MAILER_V1.replace('host="localhost"', 'host="localhost", port=25')
                                    .replace("smtplib.SMTP(host)", "smtplib.SMTP(host, port)")},
                             "mailer: let callers choose the SMTP port")
    shas["added"] = _commit(repo, {"src/shop/coupons.py": "def apply_coupon(total, percent):\n    return total * (1 - percent / 100)\n"},
                            "Add coupons")
    shas["generated"] = _commit(repo, {"build/generated.py": "def generated_lookup_table():\n    return {'built': 'again, by the script'}\n"},
                                "Regenerate the lookup table")
    return repo, shas


def test_git_cases_pick_commits_that_change_existing_source_files(history):
    repo, shas = history
    scan = git_cases(repo, 10)
    cases = scan.cases
    assert [c.commit for c in cases] == [shas["round"], shas["mailer"], shas["generated"]]  # oldest first
    assert (scan.ignored, scan.scanned) == ((), 6)  # every commit, the root included
    round_case, mailer_case, generated_case = cases
    assert round_case.parent == shas["initial"]
    assert round_case.case.id == f"git-{shas['round'][:10]}"
    assert round_case.case.query == ("Round invoice totals with tax to whole cents\n\n"
                                     "Customers saw totals like 10.0000001 on their invoices.")
    assert [p.path for p in round_case.case.expected] == ["src/shop/billing.py"]
    assert (round_case.named, round_case.case.case_class) == (False, GIT_UNNAMED)
    assert (mailer_case.named, mailer_case.case.case_class) == (True, GIT_NAMED)
    assert [p.path for p in generated_case.case.expected] == ["build/generated.py"]
    # The last two qualifying commits only.
    assert [c.commit for c in git_cases(repo, 2).cases] == [shas["mailer"], shas["generated"]]


def test_from_git_end_to_end_leaves_the_repository_alone(history):
    repo, shas = history
    head = git(repo, "rev-parse", "HEAD")
    code, out, err = run("rag", "eval", "--from-git", "10", "--json", "--no-cache", "--project-root", str(repo))
    assert code in (0, 1), err
    report = json.loads(out)
    meta = report["meta"]
    assert meta["source"] == "git" and meta["repository"] == str(repo)
    # build/ is skipped by the indexer, so the regenerated file cannot be expected.
    assert [s["id"] for s in meta["skipped"]] == [f"git-{shas['generated'][:10]}"]
    on = {c["case_id"]: c for c in report["cases"] if c["arm"] == "on"}
    assert sorted(on) == sorted([f"git-{shas['round'][:10]}", f"git-{shas['mailer'][:10]}"])
    round_case = on[f"git-{shas['round'][:10]}"]
    mailer_case = on[f"git-{shas['mailer'][:10]}"]
    assert (round_case["case_class"], mailer_case["case_class"]) == (GIT_UNNAMED, GIT_NAMED)
    assert round_case["delivered_files"][0] == "src/shop/billing.py" and round_case["hit"] is True
    assert mailer_case["delivered_files"][0] == "src/shop/mailer.py" and mailer_case["hit"] is True
    assert sorted(report["per_class"]) == [GIT_NAMED, GIT_UNNAMED]
    assert report["overall"]["on"]["hit_at_5"] == 1.0 and report["gate"]["passed"] is True
    assert report["gate"]["checks"][-1]["note"] == "no should-skip cases in this set"
    assert meta["ignored"]["count"] == 0 and meta["commits_scanned"] == 6
    assert code == 0
    # Nothing in the repository moved: same HEAD, clean tree, no extra worktree, no .paqad.
    assert git(repo, "rev-parse", "HEAD") == head
    assert git(repo, "status", "--porcelain") == ""
    assert len(git(repo, "worktree", "list").splitlines()) == 1
    assert not (repo / ".paqad").exists()


# ------------------------------------------------------------------ --from-git: gold sets no top 5 can hold


def _module(name: str, version: int = 1) -> str:
    return (f'"""The {name} module."""\n\n\ndef {name}_handler(request):\n'
            f'    """Handle a {name} request (version {version})."""\n    return {{"{name}": request, "v": {version}}}\n')


MODULES = ("orders", "refunds", "shipping", "stock", "pricing", "reports")


def test_from_git_ignores_commits_changing_more_than_five_source_files(git_repo):
    repo = git_repo({"pyproject.toml": "[project]\nname = 'shop'\nversion = '0.1'\n",
                     **{f"src/shop/{m}.py": _module(m) for m in MODULES}})
    six = _commit(repo, {f"src/shop/{m}.py": _module(m, 2) for m in MODULES}, "Version 2 of every request handler")
    five = _commit(repo, {f"src/shop/{m}.py": _module(m, 3) for m in MODULES[:5]}, "Version 3 of five handlers")
    one = _commit(repo, {"src/shop/refunds.py": _module("refunds", 4) + "\n\ndef refund_limit():\n    return 500\n"},
                  "Cap refunds at 500")
    scan = git_cases(repo, 10)
    assert [c.commit for c in scan.cases] == [five, one]
    assert [(c.commit, c.files, c.subject) for c in scan.ignored] == [(six, 6, "Version 2 of every request handler")]
    assert scan.scanned == 4
    assert [c.commit for c in git_cases(repo, 1).cases] == [one]  # an ignored commit does not count towards N

    code, out, err = run("rag", "eval", "--from-git", "10", "--json", "--project-root", str(repo))
    assert code in (0, 1), err
    report = json.loads(out)
    ignored = report["meta"]["ignored"]
    assert ignored == {"count": 1, "max_files": 5,
                       "reason": "changes more than 5 non-test source files: no top 5 can hold its gold set",
                       "commits": [{"id": f"git-{six[:10]}", "commit": six, "files": 6,
                                    "subject": "Version 2 of every request handler"}]}
    assert report["meta"]["source_detail"].endswith("2 commit cases (1 name a changed file in their message); "
                                                    "1 ignored: more than 5 changed source files")
    assert sorted({c["case_id"] for c in report["cases"]}) == sorted([f"git-{five[:10]}", f"git-{one[:10]}"])
    assert {len(c["expected"]) for c in report["cases"]} == {5, 1}

    code, out, err = run("rag", "eval", "--from-git", "10", "--project-root", str(repo))
    assert code in (0, 1), err
    assert (f"ignored 1 commit(s) that change more than 5 source files (no top 5 can hold their gold set): "
            f"git-{six[:10]} (6 files)") in out


def test_from_git_with_only_oversized_commits_exits_2(git_repo):
    repo = git_repo({f"src/shop/{m}.py": _module(m) for m in MODULES})
    _commit(repo, {f"src/shop/{m}.py": _module(m, 2) for m in MODULES}, "Version 2 of every request handler")
    code, _, err = run("rag", "eval", "--from-git", "3", "--project-root", str(repo))
    assert code == 2
    assert (f"--from-git 3: no usable commit among the last 2 of the first-parent history of {repo}: "
            "the 1 that change non-test source files change more than 5 each") in err
    assert not (repo / ".paqad").exists()
