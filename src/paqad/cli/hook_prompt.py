"""``paqad-ai hook prompt``: parse, run the hook, print; without importing click.

A host runs this on every prompt, so its start-up is part of the prompt's wait: the console
script (:mod:`paqad.cli.entry`) sends ``hook prompt --host H [--project-root P]`` here without
loading click or the other commands; anything else (``--help``, an unknown host, other options)
goes through the click command in :mod:`paqad.cli.hooks_commands`, which calls :func:`run` too.
Arguments it cannot use (an unknown or missing ``--host``, an unknown option) are not a usage
error here: the hook always exits 0 (README), and the problem goes to ``.paqad/logs/hook.log``
(:func:`refuse`).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path


def parse(args: list[str]) -> tuple[str, Path | None] | None:
    """``(host, project_root)`` from ``--host H [--project-root P]`` (also ``--opt=value``), or
    None for anything else (click then parses it and reports errors)."""
    from paqad.hosts import HOSTS

    values: dict[str, str] = {}
    items = list(args)
    while items:
        item = items.pop(0)
        name, eq, value = item.partition("=")
        if name not in ("--host", "--project-root") or name in values:
            return None
        if not eq:
            if not items:
                return None
            value = items.pop(0)
        values[name] = value
    host = values.get("--host")
    if host not in HOSTS:
        return None
    root = values.get("--project-root")
    return host, Path(root) if root is not None else None


def wants_help(args: list[str]) -> bool:
    """True when ``args`` ask for the help text (click prints it and exits 0)."""
    return any(arg in ("--help", "-h") for arg in args)


def refuse(args: list[str]) -> int:
    """The hook was called with arguments it cannot use: print nothing, log one line to the
    project's ``.paqad/logs/hook.log`` (project from ``--project-root``, else the current
    folder's; nothing when it has no ``.paqad/``) and return 0 (a hook must never fail the prompt)."""
    from paqad.hosts import HOSTS
    from paqad.hosts.prompt_hook import log_problem
    from paqad.project import ProjectPaths, find_project_root

    values = {}
    for index, item in enumerate(args):
        name, eq, value = item.partition("=")
        if name in ("--host", "--project-root"):
            values[name] = value if eq else (args[index + 1] if index + 1 < len(args) else "")
    host = values.get("--host")
    if host is None:
        why = "--host is missing"
    elif host not in HOSTS:
        why = f"--host {host!r} is not supported (use one of: {', '.join(HOSTS)})"
    else:
        why = "unknown arguments"
    try:
        given = values.get("--project-root")
        root = Path(given) if given and Path(given).is_dir() else find_project_root()
        log_problem(ProjectPaths(root.resolve()), host or "?",
                    f"hook prompt {' '.join(args)!r}: {why}; nothing answered (fix the host's hook command, "
                    "e.g. `paqad-ai hooks install --host H`)")
    except Exception:  # noqa: BLE001 - a hook must never fail the prompt
        pass
    return 0


def run(host_name: str, project_root: Path | None) -> int:
    """Read the host's JSON on stdin, answer on stdout within the budget, then exit the process
    with status 0 (it never returns: see the end)."""
    from paqad.hosts import get_host
    from paqad.hosts.prompt_hook import STDIN_SECONDS, process_age_seconds, read_stdin, run_prompt_hook

    started = time.monotonic() - process_age_seconds()
    host = get_host(host_name)
    root = project_root.resolve() if project_root is not None and project_root.is_dir() else None
    # stdin gets at most half the default budget; hosts write it at once and close the pipe.
    raw = read_stdin(started + STDIN_SECONDS)
    outcome = run_prompt_hook(host, raw, project_root=root, started=started)
    if outcome.stdout:
        # Hosts read UTF-8 JSON whatever the locale: write bytes, not text in the console's encoding.
        data = (outcome.stdout + "\n").encode("utf-8", "surrogateescape")
        buffer = getattr(sys.stdout, "buffer", None)
        if buffer is not None:
            sys.stdout.flush()
            buffer.write(data)
        else:
            sys.stdout.write(data.decode("utf-8", "replace"))
    sys.stdout.flush()
    sys.stderr.flush()
    # The answer is out: skip the interpreter's teardown (a search thread may sit inside native
    # code; onnxruntime sessions and thread pools are slow to finalise on a busy CPU). Logs are
    # flushed per record; the refresh was started detached.
    os._exit(0)
