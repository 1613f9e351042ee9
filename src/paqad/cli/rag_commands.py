"""Placeholder: filled in by the area that owns these commands."""

import click


def register(group: click.Group) -> None:
    """Add this module's commands to ``group``."""
