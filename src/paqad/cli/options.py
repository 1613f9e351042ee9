"""Options and helpers every command module shares."""

from __future__ import annotations

from pathlib import Path

import click

from paqad.errors import UsageError
from paqad.project import ProjectPaths, find_project_root

project_root_option = click.option(
    "--project-root",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Project folder. Default: the nearest ancestor of the current directory holding .paqad/ or .git.",
)


def resolve_paths(project_root: Path | None) -> ProjectPaths:
    """The project's paths from ``--project-root`` or the current directory.

    Raises PaqadError when ``--project-root`` is not a directory.
    """
    if project_root is not None:
        if not project_root.is_dir():
            raise UsageError(f"--project-root {project_root}: not a directory")
        return ProjectPaths(project_root.resolve())
    return ProjectPaths(find_project_root())
