"""Entry point of the ``paqad-ai`` console script.

User errors (:class:`paqad.errors.PaqadError`) print one line on stderr and exit 2. Anything
else is a bug in paqad-ai: one line saying so on stderr (the traceback with ``PAQAD_DEBUG=1``)
and exit 1, so a user's mistake and our mistake are never confused.
"""

from __future__ import annotations

import errno
import importlib
import os
import sys
import traceback
import warnings

import click

from paqad import __version__
from paqad.errors import PaqadError, is_environment_error


class LazyGroup(click.Group):
    """A group whose commands live in other modules, imported only when a command is used.

    A prompt hook runs ``paqad-ai hook prompt`` on every prompt: importing every command module
    (numpy, SQLite layers, the evaluator) would cost it about 0.15 s of its budget for nothing.
    ``lazy`` maps a command name to the module whose ``register(group)`` adds it.
    """

    def __init__(self, *args, lazy: dict[str, str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy = lazy or {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(self.lazy))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in self.lazy:
            module = importlib.import_module(self.lazy[name])
            module.register(self)
        return self.commands.get(name)


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    lazy={"hooks": "paqad.cli.hooks_commands", "hook": "paqad.cli.hooks_commands", "mcp": "paqad.cli.hooks_commands",
          "config": "paqad.cli.config_commands"},
)
@click.version_option(__version__, prog_name="paqad-ai")
def cli() -> None:
    """paqad-ai: a local search index of your project for AI coding agents.

    \b
    Start with:
      paqad-ai rag init --provider local     # switch retrieval on, build the index
      paqad-ai rag probe "where are retries configured"
    """


_RAG = "paqad.cli.rag_commands"


@cli.group(
    cls=LazyGroup,
    lazy={
        **{name: _RAG for name in ("init", "status", "rebuild", "clear", "probe", "refresh-context")},
        "model": "paqad.cli.model_commands",
        "eval": "paqad.cli.eval_command",
        **{name: "paqad.cli.team_commands" for name in ("publish", "team")},
        "config": "paqad.cli.config_commands",  # also `paqad-ai config`: every other command is under `rag`
    },
)
def rag() -> None:
    """Build, inspect and query the retrieval index (.paqad/vectors/)."""


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings (unknown config keys, a loose secrets.env mode) as one plain line on stderr."""
    click.echo(f"paqad-ai: warning: {message}", err=True)


def _tolerant_console() -> None:
    """Never crash on the console's encoding: what stdout/stderr cannot encode (``☕`` on a
    cp1252 or ASCII console) is written as a Python escape (``\\u2615``) instead of raising."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):  # not a TextIOWrapper (tests capture with StringIO)
            pass


def _interrupted_line(exc: KeyboardInterrupt) -> str:
    """The one line a Ctrl-C gets: the job's own (:class:`~paqad.errors.Interrupted`: what is usable
    and how to go on) or plain ``interrupted``."""
    from paqad.errors import Interrupted

    return exc.note if isinstance(exc, Interrupted) else "interrupted"


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the process exit code (0 ok, 1 failed check, 2 user error, 130 Ctrl-C)."""
    _tolerant_console()
    warnings.showwarning = _show_warning
    try:
        cli.main(args=argv, prog_name="paqad-ai", standalone_mode=False)
    except PaqadError as exc:
        click.echo(f"paqad-ai: error: {exc}", err=True)
        return 2
    except click.exceptions.Abort as exc:
        if isinstance(exc.__context__, KeyboardInterrupt):  # click turns Ctrl-C into Abort
            click.echo(f"paqad-ai: {_interrupted_line(exc.__context__)}", err=True)
            return 130
        click.echo("paqad-ai: aborted", err=True)  # a question answered no
        return 2
    except click.UsageError as exc:  # one line, like every other error; the command's --help says more
        command = exc.ctx.command_path if exc.ctx is not None else "paqad-ai"
        click.echo(f"paqad-ai: error: {exc.format_message().rstrip('.')} (see `{command} --help`)", err=True)
        return 2
    except click.ClickException as exc:
        exc.show()
        return 2 if exc.exit_code not in (0, 1) else exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except KeyboardInterrupt as exc:
        click.echo(f"paqad-ai: {_interrupted_line(exc)}", err=True)
        return 130
    except OSError as exc:  # the file system said no (permissions, read-only, full disk): not a bug
        if not is_environment_error(exc):
            return _internal_error(exc)
        where = f" {exc.filename}" if exc.filename else ""
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):  # writable, but full: say where to free space
            folder = os.path.dirname(exc.filename) if exc.filename else "."
            fix = f"free space on the disk holding {folder} (see `df -h {folder}`), then run the command again"
        elif exc.errno in (errno.EEXIST, errno.ENOTDIR):  # mkdir of .paqad/vectors where a file is
            fix = "a file stands where paqad-ai keeps a folder: move or delete it, then run the command again"
        else:
            fix = "check that .paqad/ is writable"
        click.echo(f"paqad-ai: error: cannot use{where}: {exc.strerror}; {fix} (the committed index is unchanged)",
                   err=True)
        return 2
    except Exception as exc:  # noqa: BLE001 - a bug of ours: say so, never as the user's error
        return _internal_error(exc)
    return 0



def _internal_error(exc: BaseException) -> int:
    if os.environ.get("PAQAD_DEBUG"):
        traceback.print_exception(exc)
    detail = str(exc).splitlines()[0] if str(exc) else ""
    click.echo(f"paqad-ai: internal error (a bug in paqad-ai, not in your input): {type(exc).__name__}: {detail}; "
               "set PAQAD_DEBUG=1 for the traceback", err=True)
    return 1


if __name__ == "__main__":  # pragma: no cover
    # `python -m paqad.cli.main hook prompt ...` is what an installed hook runs without paqad-ai
    # on PATH: the same routing as the console script (the hook exits 0 on any arguments).
    from paqad.cli.entry import main as entry_main

    sys.exit(entry_main())
