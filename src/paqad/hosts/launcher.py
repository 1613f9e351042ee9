"""How a host finds ``paqad-ai`` at run time, with no machine-specific path in committed files.

Every hook command we write is the same on every machine::

    PATH="$PATH:${PAQAD_HOME:-$HOME/.paqad}/bin" paqad-ai hook prompt --host claude 2>/dev/null || true

The host runs it through ``sh -c``: ``paqad-ai`` is looked up on the host's ``PATH`` first,
then in ``~/.paqad/bin/``, where ``hooks install`` keeps a two-line launcher script that
``exec``s the installation it was run from (a venv not on the host's PATH still works). When
neither exists (a teammate without paqad-ai, a deleted venv), ``sh`` fails to find the program,
its message goes to ``/dev/null`` and ``|| true`` makes the hook exit 0 at once with no output,
which every host accepts as "nothing to add". The MCP entries use the same lookup with ``exec``.

Older installs wrote an absolute program path and ``--project-root``; :func:`is_our_command`
still recognises those, so reinstalling replaces them in place.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paqad.config import paqad_home
from paqad.hosts import Host
from paqad.hosts.jsonfile import write_if_changed

PROGRAM = "paqad-ai"
LAUNCHER_DIR_SH = "${PAQAD_HOME:-$HOME/.paqad}/bin"  # expanded by the host's sh at run time
FIND_PROGRAM = f'PATH="$PATH:{LAUNCHER_DIR_SH}"'
LAUNCHER_MARK = "# paqad-ai launcher written by `paqad-ai hooks install`"


def hook_command(host: Host) -> str:
    """The portable command the host runs for every prompt (see the module docstring)."""
    return f"{FIND_PROGRAM} {PROGRAM} hook prompt --host {host.hook_host} 2>/dev/null || true"


def mcp_launch() -> tuple[str, list[str]]:
    """``(command, args)`` of the MCP server entry: ``sh -c '... exec paqad-ai mcp --text-only'``.

    No ``--project-root``: hosts start MCP servers in the project folder, and ``paqad-ai mcp``
    takes the nearest ancestor holding ``.paqad/`` or ``.git``. ``--text-only``: the hosts hand
    the tool's answer to a model, and some (Claude Code, Codex) show it the structured content
    instead of the Markdown when both are there.
    """
    return "sh", ["-c", f"{FIND_PROGRAM} exec {PROGRAM} mcp --text-only"]


def installation_program() -> list[str]:
    """The argv prefix that runs this installation's CLI, resolved now, all paths absolute.

    The ``paqad-ai`` script next to the running interpreter (a venv or pipx install), else the
    one on PATH, else ``[sys.executable, "-m", "paqad.cli.main"]``.
    """
    beside = Path(sys.executable).parent / PROGRAM
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside.absolute())]
    found = shutil.which(PROGRAM)
    if found:
        return [str(Path(found).absolute())]
    return [str(Path(sys.executable).absolute()), "-m", "paqad.cli.main"]


def launcher_path(environ: dict[str, str] | None = None) -> Path:
    """``$PAQAD_HOME/bin/paqad-ai`` (default ``~/.paqad/bin/paqad-ai``)."""
    return paqad_home(environ) / "bin" / PROGRAM


def launcher_text(program: list[str]) -> str:
    return f"#!/bin/sh\n{LAUNCHER_MARK}; found by hooks when paqad-ai is not on PATH.\nexec {shlex.join(program)} \"$@\"\n"


def write_launcher(program: list[str] | None = None) -> tuple[Path, bool]:
    """Write the launcher for ``program`` (default: this installation); ``(path, changed)``.

    The same installation writes the same bytes, so reinstalling changes nothing.
    """
    path = launcher_path()
    changed = write_if_changed(path, launcher_text(program or installation_program()))
    if (path.stat().st_mode & 0o111) != 0o111:
        path.chmod(0o755)
        changed = True
    return path, changed


def launcher_target(path: Path | None = None) -> str | None:
    """The program our launcher ``exec``s (its first word), ``None`` when there is none of ours."""
    path = path or launcher_path()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if LAUNCHER_MARK not in text:
        return None
    for line in text.splitlines():
        if line.startswith("exec "):
            try:
                return shlex.split(line[5:])[0]
            except (ValueError, IndexError):
                return None
    return None


@dataclass(frozen=True)
class ProgramCheck:
    """Where the host would find ``paqad-ai`` (seen from this process's ``PATH``).

    ``found`` is the program path that would run, ``via`` says how (``"PATH"``, ``"launcher"``,
    ``"absolute"``), ``problem`` one line when it would not run.
    """

    found: str | None
    via: str
    problem: str | None


def _executable(path: str) -> bool:
    return Path(path).is_file() and os.access(path, os.X_OK)


def check_program(command: str) -> ProgramCheck:
    """Whether ``command`` (one of ours, any generation) would find a working ``paqad-ai``."""
    try:
        tokens = shlex.split(command)
    except ValueError:
        return ProgramCheck(None, "", "the hook command cannot be parsed")
    program = _program_token(tokens)
    if program is None:
        return ProgramCheck(None, "", "the hook command does not run paqad-ai")
    if os.sep in program:  # an older install: absolute program path
        if _executable(program):
            return ProgramCheck(program, "absolute", None)
        return ProgramCheck(None, "absolute", f"{program} does not exist any more")
    on_path = shutil.which(program)
    if on_path:
        return ProgramCheck(on_path, "PATH", None)
    launcher = launcher_path()
    target = launcher_target(launcher)
    if target and _executable(target):
        return ProgramCheck(str(launcher), "launcher", None)
    if target:
        return ProgramCheck(None, "launcher", f"paqad-ai is not on PATH and {launcher} runs {target}, which does not exist any more")
    return ProgramCheck(None, "", f"paqad-ai is not on PATH and there is no launcher at {launcher}")


def _program_token(tokens: list[str]) -> str | None:
    for i in range(1, len(tokens) - 1):
        if tokens[i] == "hook" and tokens[i + 1] == "prompt":
            program = tokens[i - 1]
            if Path(program).name == PROGRAM:
                return program
            if program == "paqad.cli.main" and i >= 3:
                return tokens[i - 3]  # <python> -m paqad.cli.main hook prompt
    return None


def is_our_command(command: Any) -> bool:
    """Whether a handler's command runs ``paqad-ai hook prompt`` (any path, any quoting)."""
    if not isinstance(command, str):
        return False
    try:
        tokens = shlex.split(command)
    except ValueError:
        return "paqad-ai hook prompt" in command
    return _program_token(tokens) is not None


def is_machine_specific(command: str) -> bool:
    """An older command with an absolute program path or ``--project-root``."""
    try:
        tokens = shlex.split(command)
    except ValueError:
        return False
    program = _program_token(tokens)
    return "--project-root" in tokens or (program is not None and os.sep in program)
