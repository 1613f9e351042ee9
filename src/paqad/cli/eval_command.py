"""``paqad-ai rag eval``: parse options, run :func:`paqad.evaluate.run_eval`, print the report."""

from __future__ import annotations

import json
import math
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from paqad.cli.options import project_root_option, resolve_paths
from paqad.cli.progress import PlainProgress
from paqad.cli.rag_commands import BuildProgress
from paqad.evaluate import MODES, RULES, EvalReport, GateThresholds, Summary, changes, report_data

_DEFAULTS = GateThresholds()
_FORM_SHORT = {"confident": "conf", "low-confidence": "low", "nothing": "none"}


class GateFailed(click.ClickException):
    """The feature-off-vs-on gate failed: exit status 1 (a failed check, not a user error)."""

    exit_code = 1

    def show(self, file=None) -> None:  # one plain line, without click's "Error:" prefix
        click.echo(f"paqad-ai: {self.format_message()}", err=True)


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _change(value: float | None) -> str:
    if value is None:
        return "-"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value * 100:+.0f}%"


def _console() -> Console:
    out = Console()
    return out if out.is_terminal else Console(width=160, no_color=True)


def _metric_table(report: EvalReport) -> Table:
    base, cand = report.baseline_arm, report.candidate_arm
    table = Table(title=f"Per class: {base}→{cand} and relative change", show_header=True, header_style="bold")
    table.add_column("class", no_wrap=True)
    for col in ("cases", "hit@5", "partial@5", "MRR", "task success", "correction turns", "tokens/case", f"forms ({cand})"):
        table.add_column(col, overflow="fold")

    def cell(b: Summary, c: Summary, name: str) -> str:
        before, after = getattr(b, name), getattr(c, name)
        if before is None and after is None:
            return "-"
        change = _change(changes(b, c)[name])
        if name == "tokens_added":
            return f"{before:.0f}→{after:.0f} {change}"
        return f"{_ratio(before)}→{_ratio(after)} {change}"

    rows = sorted(report.per_class.items()) + [("all", report.overall)]
    for name, (b, c) in rows:
        forms = ", ".join(f"{_FORM_SHORT.get(k, k)} {v}" for k, v in c.forms.items())
        table.add_row(
            f"[bold]{name}[/bold]" if name == "all" else name, str(c.cases),
            *(cell(b, c, m) for m in ("hit_at_5", "partial_at_5", "mrr", "success", "correction_turns", "tokens_added")),
            forms,
        )
    return table


def _gate_table(report: EvalReport) -> Table:
    assert report.gate is not None
    table = Table(title="Gate", show_header=True, header_style="bold")
    for col in ("check", report.baseline_arm, report.candidate_arm, "change", "threshold", "result", "note"):
        table.add_column(col, overflow="fold")
    for check in report.gate.checks:
        bound = "<=" if check.name == "prompt tokens rise" else ">="
        threshold = f"{check.threshold:g}" if check.kind == "minimum" else _change(check.threshold)
        table.add_row(
            check.name, _value(check.baseline), _value(check.candidate), _change(check.change),
            f"{bound} {threshold}", "PASS" if check.passed else "FAIL", check.note,
        )
    return table


def _value(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _cases_table(report: EvalReport) -> Table:
    table = Table(title=f"Cases ({report.candidate_arm})", show_header=True, header_style="bold")
    for col in ("id", "class", "form", "best", "hit@5", "success", "tokens", "expected", "delivered files"):
        table.add_column(col, overflow="fold")
    for r in report.arm_results(report.candidate_arm):
        table.add_row(
            r.case_id, r.case_class, r.form, "-" if r.best_score is None else f"{r.best_score:.2f}",
            "-" if r.hit is None else ("yes" if r.hit else f"no ({r.partial:.2f})"), "yes" if r.success else "no",
            str(r.tokens), ", ".join(r.expected) or "-", ", ".join(r.delivered_files) or "-",
        )
    return table


def print_report(report: EvalReport, show_cases: bool = False) -> None:
    """The terminal report: what ran, per-class metrics, the gate, the rules used."""
    out = _console()
    meta = report.meta
    out.print(
        f"[bold]rag eval --mode {report.mode}[/bold]: {meta.get('source_detail', '')}\n"
        f"model {meta.get('provider')} {meta.get('model')} · floor {meta.get('similarity_threshold')} · "
        f"relief {meta.get('relief_floor')} · top_n {meta.get('top_n')} · {meta.get('seconds')} s"
    )
    if "baseline" in meta:
        b = meta["baseline"]
        out.print(f"baseline snapshot {b['file']} ({b.get('created_at')}, {b.get('model')}): {b['compared_cases']} cases "
                  f"compared, {b['only_in_baseline']} only in the snapshot, {b['only_in_this_run']} only in this run")
    ignored = meta.get("ignored") or {}
    if ignored.get("count"):
        listed = ", ".join(f"{c['id']} ({c['files']} files)" for c in ignored["commits"])
        out.print(f"ignored {ignored['count']} commit(s) that change more than {ignored['max_files']} source files "
                  f"(no top {ignored['max_files']} can hold their gold set): {listed}", highlight=False)
    for item in meta.get("skipped", []):
        out.print(f"skipped {item['id']}: {item['reason']} ({', '.join(item['expected'])})")
    if show_cases:
        out.print(_cases_table(report))
    out.print(_metric_table(report))
    if report.gate is not None:
        out.print(_gate_table(report))
        if report.overall[0].tokens_added == 0 and report.overall[1].tokens_added > 0:
            out.print("Note: retrieval off adds 0 tokens, so any delivery is an infinite relative token rise; "
                      "the token check can pass only through the task-success waiver. The minimum checks hold "
                      "retrieval on to absolute levels whatever off scored.")
        verdict = "[green]PASSED[/green]" if report.gate.passed else "[red]FAILED[/red]"
        out.print(f"Gate {verdict}")
    out.print("Rules:", style="dim")
    for name, rule in RULES.items():
        out.print(f"  {name}: {rule}", style="dim", highlight=False)


def eval_progress(from_git: bool, as_json: bool, terminal: bool) -> BuildProgress | PlainProgress:
    """The progress of an eval's index builds on stderr: rich's bars for the built-in project on a
    terminal; otherwise (a pipe, a CI log, ``--json``, or ``--from-git``, which syncs once per parent
    commit and would stack a bar each) a plain line every 5 s of a chunking or embedding stage that
    runs that long, and none for one that does not. It was silent off a terminal: a first
    ``--from-git`` build of a large project embeds for minutes."""
    if terminal and not from_git and not as_json:
        return BuildProgress()
    return PlainProgress(chatty=False)


@click.command("eval")
@click.option("--mode", type=click.Choice(MODES), default="feature-off-vs-on", show_default=True,
              help="What to compare.")
@click.option("--baseline", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Snapshot to compare with (--mode rag-vs-candidate).")
@click.option("--save-snapshot", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write this run's per-case results (the candidate side) to a snapshot file.")
@click.option("--from-git", "from_git", type=int, default=None, metavar="N",
              help="Cases from the last N commits of this repository that change 1-5 non-test source files.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON on stdout.")
@click.option("--show-cases", is_flag=True, help="Also print one row per case.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the eval embedding cache under PAQAD_HOME/eval-cache/.")
@click.option("--min-hit-gain", type=float, default=_DEFAULTS.min_hit_gain, show_default=True,
              help="Gate: least relative rise of hit@5.")
@click.option("--min-success-gain", type=float, default=_DEFAULTS.min_success_gain, show_default=True,
              help="Gate: least relative rise of task success.")
@click.option("--min-correction-drop", type=float, default=_DEFAULTS.min_correction_drop, show_default=True,
              help="Gate: least relative fall of correction turns.")
@click.option("--max-token-rise", type=float, default=_DEFAULTS.max_token_rise, show_default=True,
              help="Gate: most relative rise of prompt tokens ...")
@click.option("--token-waiver-success-gain", type=float, default=_DEFAULTS.token_waiver_success_gain, show_default=True,
              help="... unless task success rose at least this much.")
@click.option("--min-hit-at-5", type=float, default=_DEFAULTS.min_hit_at_5, show_default=True,
              help="Gate: least hit@5 with retrieval on (targeted cases).")
@click.option("--min-task-success", type=float, default=_DEFAULTS.min_task_success, show_default=True,
              help="Gate: least task success with retrieval on (all cases).")
@click.option("--min-skip-success", type=float, default=_DEFAULTS.min_skip_success, show_default=True,
              help="Gate: least share of should-skip prompts that get nothing with retrieval on.")
@project_root_option
def eval_cmd(mode, baseline, save_snapshot, from_git, as_json, show_cases, no_cache, min_hit_gain, min_success_gain,
             min_correction_drop, max_token_rise, token_waiver_success_gain, min_hit_at_5, min_task_success,
             min_skip_success, project_root) -> None:
    """Measure whether retrieval helps, by script (no AI judge).

    feature-off-vs-on (default) runs the built-in test set (a 67-file web service, 53 cases in six
    classes) with retrieval off and on, reports hit@5, MRR, task success, correction turns and
    prompt tokens added per class, and exits 1 when the gate fails: relative gains over off
    (--min-hit-gain ...) and absolute minimums with retrieval on (--min-hit-at-5,
    --min-task-success, --min-skip-success). lexical-vs-rag compares BM25
    alone with the hybrid; rag-vs-candidate compares this run with a --save-snapshot file.
    --from-git N uses your own commits instead: each commit's message is the query, the source
    files it changed are expected, indexed at its parent (commits changing more than 5 are
    ignored and counted: no top 5 can hold them). The eval index lives in a temporary
    folder; your index and config are never written.

    \b
    Examples:
      paqad-ai rag eval
      paqad-ai rag eval --mode lexical-vs-rag --json
      paqad-ai rag eval --save-snapshot before.json   # ... change settings or code ...
      paqad-ai rag eval --mode rag-vs-candidate --baseline before.json
      paqad-ai rag eval --from-git 50
    """
    from paqad.evaluate import run_eval, save_snapshot as write_snapshot

    paths = resolve_paths(project_root)
    thresholds = GateThresholds(min_hit_gain, min_success_gain, min_correction_drop, max_token_rise,
                                token_waiver_success_gain, min_hit_at_5, min_task_success, min_skip_success)
    with eval_progress(from_git is not None, as_json, Console(stderr=True).is_terminal) as progress:
        report = run_eval(
            paths, mode, from_git=from_git, baseline=baseline, thresholds=thresholds, use_cache=not no_cache,
            progress=progress, log=lambda line: click.echo(line, err=True),
        )
    if save_snapshot is not None:
        write_snapshot(report, save_snapshot)
    if as_json:
        click.echo(json.dumps(report_data(report), indent=2))
    else:
        print_report(report, show_cases=show_cases)
    if report.failed:
        failed = ", ".join(c.name for c in report.gate.checks if not c.passed)
        raise GateFailed(f"eval gate failed ({failed}); see the Gate table or --json")


def register(rag_group: click.Group) -> None:
    """Add ``eval`` to the ``rag`` group."""
    rag_group.add_command(eval_cmd)
