"""Entry point of the ``paqad-ai`` console script.

User errors (:class:`paqad.errors.PaqadError`) print one line on stderr and exit 2.
"""

from __future__ import annotations

import sys

import click

from paqad import __version__
from paqad.errors import PaqadError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="paqad-ai")
def cli() -> None:
    """paqad-ai: a local search index of your project for AI coding agents.

    \b
    Start with:
      paqad-ai rag init --provider local     # switch retrieval on, build the index
      paqad-ai rag probe "where are retries configured"
    """


@cli.group()
def rag() -> None:
    """Build, inspect and query the retrieval index (.paqad/vectors/)."""


def _register() -> None:
    # Each area owns one CLI module; they add their commands to the groups above.
    from paqad.cli import hooks_commands, model_commands, rag_commands

    rag_commands.register(rag)
    model_commands.register(rag)
    hooks_commands.register(cli)
    try:
        from paqad.cli import eval_command
    except ImportError:  # pragma: no cover - only while eval is being built
        pass
    else:
        eval_command.register(rag)


_register()


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the process exit code (0 ok, 1 failed check, 2 user error)."""
    try:
        cli.main(args=argv, prog_name="paqad-ai", standalone_mode=False)
    except PaqadError as exc:
        click.echo(f"paqad-ai: error: {exc}", err=True)
        return 2
    except click.exceptions.Abort:
        click.echo("paqad-ai: aborted", err=True)
        return 2
    except click.ClickException as exc:
        exc.show()
        return 2 if exc.exit_code not in (0, 1) else exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except KeyboardInterrupt:
        click.echo("paqad-ai: interrupted", err=True)
        return 130
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
