"""``paqad-ai hooks install|uninstall|status``, ``paqad-ai hook prompt`` and ``paqad-ai mcp``.

Parsing and printing only; the work is in :mod:`paqad.hosts`.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from paqad.hosts import HOSTS, get_host
from paqad.cli.options import project_root_option, resolve_paths

_HOST_CHOICE = click.Choice(sorted(HOSTS))


@click.group()
def hooks() -> None:
    """Install the prompt hook into AI coding agents (Claude Code, Gemini CLI, Codex, Cursor)."""


@hooks.command("install")
@click.option("--host", "host_names", type=_HOST_CHOICE, multiple=True, required=True, help="Host to install into (repeatable).")
@project_root_option
def install_cmd(host_names: tuple[str, ...], project_root: Path | None) -> None:
    """Add our prompt hook to the host's project settings file, keeping everything else.

    Running it again changes nothing; the command written is quoted for paths with spaces.

    \b
    Example:
      paqad-ai hooks install --host claude --host gemini
    """
    from paqad.config import load_settings
    from paqad.hosts.installers import install

    paths = resolve_paths(project_root)
    settings = load_settings(paths)
    budget_ms = settings.rag_hook_budget_ms
    for name in dict.fromkeys(host_names):
        host = get_host(name)
        path, changed = install(host, paths.root, budget_ms)
        rel = path.relative_to(paths.root).as_posix()
        state = "installed in" if changed else "already installed in"
        extra = "" if host.adds_context else " (records the prompt and refreshes; this host's hook cannot add context)"
        click.echo(f"{host.title}: {state} {rel}{extra}")
    if not settings.rag_enabled:
        click.echo("note: retrieval is off here (rag_enabled=false); the hook does nothing until `paqad-ai rag init`", err=True)


@hooks.command("uninstall")
@click.option("--host", "host_names", type=_HOST_CHOICE, multiple=True, help="Host to remove from (repeatable). Default: all.")
@project_root_option
def uninstall_cmd(host_names: tuple[str, ...], project_root: Path | None) -> None:
    """Remove our prompt hook (only ours) from the hosts' settings files.

    \b
    Example:
      paqad-ai hooks uninstall --host cursor
    """
    from paqad.hosts.installers import uninstall

    paths = resolve_paths(project_root)
    for name in dict.fromkeys(host_names or tuple(HOSTS)):
        host = get_host(name)
        path, changed = uninstall(host, paths.root)
        rel = path.relative_to(paths.root).as_posix()
        click.echo(f"{host.title}: {'removed from' if changed else 'not installed in'} {rel}")


@hooks.command("status")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
@project_root_option
def status_cmd(as_json: bool, project_root: Path | None) -> None:
    """Say per host whether our hook is installed, where, and whether its command resolves.

    \b
    Example:
      paqad-ai hooks status --json
    """
    from paqad.hosts.installers import all_statuses

    paths = resolve_paths(project_root)
    statuses = all_statuses(paths.root)
    if as_json:
        click.echo(json.dumps([
            {
                "host": s.host.name,
                "title": s.host.title,
                "settings_file": s.settings_file.relative_to(paths.root).as_posix(),
                "event": s.host.event,
                "installed": s.installed,
                "commands": list(s.commands),
                "command_resolves": s.resolves,
                "adds_context": s.host.adds_context,
                "problem": s.problem,
            }
            for s in statuses
        ], indent=2, ensure_ascii=False))
        return
    for s in statuses:
        rel = s.settings_file.relative_to(paths.root).as_posix()
        if s.installed:
            line = f"{s.host.title}: installed ({s.host.event} in {rel}); command {'resolves' if s.resolves else 'does NOT resolve'}"
            if not s.host.adds_context:
                line += "; this host's hook cannot add context: it records the prompt and starts the refresh"
        else:
            line = f"{s.host.title}: not installed ({rel})"
        click.echo(line)
        if s.problem:
            click.echo(f"  problem: {s.problem}")


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
@project_root_option
def mcp_cmd(project_root: Path | None) -> None:
    """Serve search_code and index_status over MCP (stdio) for hosts without prompt hooks.

    \b
    Example (a host's MCP config):
      {"command": "paqad-ai", "args": ["mcp", "--project-root", "/path/to/project"]}
    """
    from paqad.hosts.mcp_server import serve

    serve(resolve_paths(project_root))


def register(group: click.Group) -> None:
    """Add ``hooks``, ``hook`` and ``mcp`` to the top-level ``paqad-ai`` group."""
    group.add_command(hooks)
    group.add_command(hook)
    group.add_command(mcp_cmd)
