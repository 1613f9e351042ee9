"""``paqad-ai hooks install|uninstall|status``, ``paqad-ai hook prompt`` and ``paqad-ai mcp``.

Parsing and printing only; the work is in :mod:`paqad.hosts`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from paqad.hosts import HOSTS, get_host
from paqad.cli.options import project_root_option, resolve_paths

_HOST_CHOICE = click.Choice(sorted(HOSTS))


@click.group()
def hooks() -> None:
    """Connect AI coding agents: prompt hooks (Claude Code, Codex, Gemini CLI, Copilot CLI, Cursor), MCP entries."""


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path).replace(str(Path.home()), "~", 1) if str(path).startswith(str(Path.home()) + "/") else str(path)


def _echo_verdict(report, root: Path, indent: str = "  ") -> None:
    """The will-run lines of one host report (see paqad.hosts.checks)."""
    if not report.installed:
        return
    click.echo(f"{indent}will run: {'yes' if report.will_run else 'NO'}")
    for finding in report.blockers:
        click.echo(f"{indent}why: {finding.why}")
    for fix in dict.fromkeys(finding.fix for finding in report.blockers):  # one fix often cures several causes
        fix_lines = fix.splitlines()
        click.echo(f"{indent}fix: {fix_lines[0]}")
        for line in fix_lines[1:]:
            click.echo(f"{indent}     {line}")
    for note in report.notes:
        click.echo(f"{indent}note: {note}")


@hooks.command("install")
@click.option("--host", "host_names", type=_HOST_CHOICE, multiple=True, required=True, help="Host to install into (repeatable).")
@click.option("--mcp", is_flag=True, help="Also register the paqad MCP server in the host's project MCP file.")
@project_root_option
def install_cmd(host_names: tuple[str, ...], mcp: bool, project_root: Path | None) -> None:
    """Add our prompt hook to the host's project files, keeping everything else; say whether it will run.

    The command written holds no machine-specific path (it finds paqad-ai on PATH, else through
    the launcher in ~/.paqad/bin); running install again with nothing changed changes no byte.

    \b
    Example:
      paqad-ai hooks install --host claude --host codex --mcp
    """
    from paqad.config import load_settings
    from paqad.hosts.checks import report
    from paqad.hosts.installers import install_host

    paths = resolve_paths(project_root)
    settings = load_settings(paths)
    names = list(dict.fromkeys(host_names))
    for name in names:
        host = get_host(name)
        result = install_host(host, paths.root, settings.rag_hook_budget_ms, mcp=mcp)
        for change in result.changes:
            rel = _rel(change.path, paths.root)
            if change.what == "hook":
                state = "installed in" if change.changed else "already installed in"
                extra = "" if host.adds_context else " (records the prompt and refreshes; this host's hook cannot add context)"
                click.echo(f"{host.title}: {state} {rel}{extra}")
            elif change.what == "rule":
                click.echo(f"  rule: {rel} {'written' if change.changed else 'unchanged'} (the agent reads .paqad/context/session-context.md)")
            elif change.what == "mcp":
                click.echo(f"  mcp: paqad server {'added to' if change.changed else 'already in'} {rel}")
            elif change.what == "launcher" and change.changed:
                click.echo(f"  launcher: {rel} (runs this installation when paqad-ai is not on the host's PATH)")
        for note in result.notes:
            click.echo(f"  {note}")
        if not mcp and host.mcp_path is not None:
            click.echo(f"  mcp: not set up; add --mcp to register the paqad MCP server in {host.mcp_path}")
        _echo_verdict(report(host, paths.root), paths.root)
    if {"claude", "claude-local"} <= set(names):
        click.echo("warning: installed in both .claude/settings.json and .claude/settings.local.json; the commands are identical, "
                   "so Claude Code runs the hook once, but one of them is enough", err=True)
    if not settings.rag_enabled:
        click.echo("note: retrieval is off here (rag_enabled=false); the hook does nothing until `paqad-ai rag init`", err=True)


@hooks.command("uninstall")
@click.option("--host", "host_names", type=_HOST_CHOICE, multiple=True, help="Host to remove from (repeatable). Default: all.")
@project_root_option
def uninstall_cmd(host_names: tuple[str, ...], project_root: Path | None) -> None:
    """Remove our prompt hook, rule file and MCP entry (only ours) from the hosts' files.

    \b
    Example:
      paqad-ai hooks uninstall --host cursor
    """
    from paqad.hosts.installers import uninstall_host

    paths = resolve_paths(project_root)
    for name in dict.fromkeys(host_names or tuple(HOSTS)):
        host = get_host(name)
        result = uninstall_host(host, paths.root)
        for change in result.changes:
            rel = _rel(change.path, paths.root)
            if change.what == "hook":
                click.echo(f"{host.title}: {'removed from' if change.changed else 'not installed in'} {rel}")
            elif change.changed:
                click.echo(f"  {change.what}: removed from {rel}")


@hooks.command("status")
@click.option("--host", "host_names", type=_HOST_CHOICE, multiple=True, help="Host to inspect (repeatable). Default: all.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
@project_root_option
def status_cmd(host_names: tuple[str, ...], as_json: bool, project_root: Path | None) -> None:
    """Say per host whether our hook is installed, whether the host will run it, why not, and the fix.

    \b
    Example:
      paqad-ai hooks status --host codex
    """
    from paqad.hosts.checks import report

    paths = resolve_paths(project_root)
    reports = [report(get_host(name), paths.root) for name in dict.fromkeys(host_names or tuple(HOSTS))]
    if as_json:
        click.echo(json.dumps([r.to_dict(paths.root) for r in reports], indent=2, ensure_ascii=False))
        return
    for r in reports:
        rel = _rel(r.settings_file, paths.root)
        if r.installed:
            program = r.program
            where = "" if program is None or program.found is None else f"; paqad-ai found via {program.via} ({_rel(Path(program.found), paths.root)})"
            line = f"{r.host.title}: installed ({r.host.event} in {rel}){where}"
            if not r.host.adds_context:
                line += "; this host's hook cannot add context: it records the prompt and starts the refresh"
        else:
            line = f"{r.host.title}: not installed ({rel})"
            blockers = [f for f in r.blockers if f.code == "settings-invalid"]
            for finding in blockers:
                line += f"\n  problem: {finding.why}"
        click.echo(line)
        _echo_verdict(r, paths.root)
        if r.mcp_file is not None:
            click.echo(f"  mcp: {'paqad server in' if r.mcp_installed else 'not set up in'} {_rel(r.mcp_file, paths.root)}")


@hooks.command("trust")
@click.option("--host", "host_name", type=click.Choice(["codex", "gemini", "copilot"]), required=True,
              help="Host whose own (per-user) approval to write.")
@click.option("--yes", is_flag=True, help="Write without asking.")
@project_root_option
def trust_cmd(host_name: str, yes: bool, project_root: Path | None) -> None:
    """Record in your own host settings that you trust this project and its paqad-ai hook.

    Codex runs project hooks only in trusted projects and only once each hook is approved by
    hash; Gemini CLI and Copilot CLI only in trusted folders. This shows what it would write,
    asks, then writes it (--yes: without asking; without a terminal --yes is required).

    \b
    Example:
      paqad-ai hooks trust --host codex
    """
    from paqad.errors import ConfirmationNeededError
    from paqad.hosts.trust import plan

    paths = resolve_paths(project_root)
    trust_plan = plan(get_host(host_name), paths.root)
    if trust_plan.text is None:
        click.echo(trust_plan.summary)
        return
    click.echo(trust_plan.summary.rstrip("\n"))
    if not yes:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise ConfirmationNeededError("not a terminal: rerun with --yes to write it, or add the lines above yourself")
        if not click.confirm("Write this?", default=False):
            click.echo("nothing written")
            return
    trust_plan.apply()
    click.echo(f"written: {trust_plan.file}")


@click.group()
def hook() -> None:
    """What hosts run (you normally do not call these yourself)."""


@hook.command("prompt")
@click.option("--host", "host_name", type=_HOST_CHOICE, required=True, help="The host calling us: selects the input/output JSON format.")
@click.option(
    "--project-root",
    type=click.Path(path_type=Path),
    default=None,
    help="Project folder. Default: from the payload's cwd / workspace roots, else the current directory.",
)
def prompt_cmd(host_name: str, project_root: Path | None) -> None:
    """Read the host's hook JSON on stdin, record the prompt, start a refresh, answer in budget.

    Prints the host's documented output (with the retrieved context for this prompt when the
    search finishes within rag_hook_budget_ms). Always exits 0; problems go to
    .paqad/logs/hook.log.

    \b
    Example:
      echo '{"prompt": "where is auth?", "cwd": "."}' | paqad-ai hook prompt --host claude
    """
    from paqad.cli.hook_prompt import run

    run(host_name, project_root)  # the console script usually gets here without click (cli/entry.py)


@click.command("mcp")
@click.option("--text-only", is_flag=True, help="Answer with Markdown text only: no structured content, no output schemas.")
@project_root_option
def mcp_cmd(text_only: bool, project_root: Path | None) -> None:
    """Serve the project's index over MCP (stdio): search_code, find_symbol, grep_code, index_status.

    \b
    Example (a host's MCP config; `paqad-ai hooks install --host H --mcp` writes one):
      {"command": "paqad-ai", "args": ["mcp", "--project-root", "/path/to/project"]}
    """
    from paqad.hosts.mcp_server import serve

    serve(resolve_paths(project_root), structured=not text_only)


def register(group: click.Group) -> None:
    """Add ``hooks``, ``hook`` and ``mcp`` to the top-level ``paqad-ai`` group."""
    group.add_command(hooks)
    group.add_command(hook)
    group.add_command(mcp_cmd)
