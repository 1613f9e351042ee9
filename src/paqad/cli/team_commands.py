"""``paqad-ai rag publish`` and ``paqad-ai rag team init|status``: the team store (DESIGN §14).

Parse, call the library (:mod:`paqad.store.team_cache`), print. A fault of the store is a
one-line error with exit 2 here (a CI job must fail); builds never stop for it.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from paqad.cli.options import project_root_option, resolve_paths
from paqad.config import load_settings


def register(group: click.Group) -> None:
    """Add ``publish`` and the ``team`` subgroup to ``group`` (the ``rag`` group)."""
    group.add_command(publish)
    group.add_command(team)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON on stdout.")
@project_root_option
def publish(as_json: bool, project_root: Path | None) -> None:
    """Upload the index's vectors that the team store does not have yet.

    Only content hashes and vectors are sent: no source text, path or file name. Meant for a
    CI job on main after `paqad-ai rag init --yes`.

    \b
    Example:
      PAQAD_TEAM_STORE_PASSWORD=... paqad-ai rag publish
    """
    from paqad.store.team_cache import publish_index

    paths = resolve_paths(project_root)
    report = publish_index(paths, load_settings(paths))
    click.echo(json.dumps(report.to_dict()) if as_json else report.summary())


@click.group()
def team() -> None:
    """The team's shared embedding store (rag_team_store, a postgresql:// URL).

    \b
    Example:
      paqad-ai rag team init      # create or migrate the schema (once per server)
      paqad-ai rag team status
    """


@team.command("init")
@project_root_option
def team_init(project_root: Path | None) -> None:
    """Create or migrate the team store's schema (idempotent; needs CREATE on the database).

    \b
    Example:
      paqad-ai rag team init
    """
    from paqad.store.team_cache import init_team_schema

    paths = resolve_paths(project_root)
    url, before, after = init_team_schema(paths, load_settings(paths))
    if before == after:
        click.echo(f"team store {url}: schema v{after} already in place")
    else:
        click.echo(f"team store {url}: schema v{before} -> v{after}" if before else f"team store {url}: schema v{after} created")


@team.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON on stdout.")
@project_root_option
def team_status(as_json: bool, project_root: Path | None) -> None:
    """Show the team store (URL without password), whether it is reachable, and how many of
    this index's vectors came from it. Also part of `paqad-ai rag status --json`.

    \b
    Example:
      paqad-ai rag team status
    """
    from paqad.status import status

    report = status(resolve_paths(project_root))
    if report.team_store is None:
        click.echo(json.dumps(None) if as_json else "no team store configured (rag_team_store is empty)")
        return
    click.echo(json.dumps(report.team_store.to_dict()) if as_json else report.team_store.describe())
