"""``paqad-ai rag model list|pull|import``: the local model store (DESIGN §7).

Parsing and printing only; the work is in :mod:`paqad.embed.model_store`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from paqad.config import DEFAULT_MODELS, LOCAL_MODEL_FILES
from paqad.embed import model_store


def register(group: click.Group) -> None:
    """Add the ``model`` subgroup to ``group`` (the ``rag`` group)."""
    group.add_command(model)


@click.group()
def model() -> None:
    """Manage local embedding models in the model store (PAQAD_HOME/models).

    \b
    Example:
      paqad-ai rag model pull                       # the configured or default model
      paqad-ai rag model import ./all-MiniLM-L6-v2 --repo-id Xenova/all-MiniLM-L6-v2
      paqad-ai rag model list --json
    """


def _human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{size} B"  # pragma: no cover


@model.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON on stdout.")
def list_command(as_json: bool) -> None:
    """List the models in the store: files, size, verified, dimension.

    \b
    Example:
      paqad-ai rag model list --json
    """
    entries = model_store.list_models()
    store = str(model_store.models_root())
    if as_json:
        click.echo(json.dumps({"store": store, "models": entries}, indent=2))
        return
    if not entries:
        click.echo(f"no models in {store}; fetch one with `paqad-ai rag model pull` "
                   f"(known: {', '.join(model_store.KNOWN_MODELS)})")
        return
    if sys.stdout.isatty():
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"Model store: {store}")
        for column in ("model", "precisions", "dimension", "size", "verified"):
            table.add_column(column)
        for e in entries:
            table.add_row(e["repo_id"], ", ".join(e["precisions"]) or "-", str(e["dimension"] or "?"),
                          _human_size(e["size"]), "yes" if e["verified"] else "NO")
        Console().print(table)
        return
    click.echo("\t".join(["model", "precisions", "dimension", "size", "verified", "path"]))
    for e in entries:
        click.echo("\t".join([e["repo_id"], ",".join(e["precisions"]) or "-", str(e["dimension"]),
                              str(e["size"]), "verified" if e["verified"] else "unverified", e["path"]]))


def _configured_local_model(project_root: str | None) -> tuple[str, str]:
    """(repo id, precision) from the project's settings when it uses the local provider."""
    from paqad.config import load_settings
    from paqad.project import find_project_root

    settings = load_settings(Path(project_root) if project_root else find_project_root())
    if settings.rag_embedding_provider == "local":
        return settings.rag_embedding_model, settings.rag_embedding_precision
    return DEFAULT_MODELS["local"], settings.rag_embedding_precision


class _StderrProgress:
    """Per-file progress on stderr: a bar on a terminal, one line per file otherwise."""

    def __init__(self) -> None:
        self._bar = None
        self._tasks: dict[str, int] = {}
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

            self._bar = Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                                 console=Console(stderr=True), transient=False)

    def __enter__(self) -> "_StderrProgress":
        if self._bar:
            self._bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar:
            self._bar.stop()

    def __call__(self, name: str, done: int, total: int | None) -> None:
        if self._bar:
            if name not in self._tasks:
                self._tasks[name] = self._bar.add_task(name, total=total)
            self._bar.update(self._tasks[name], completed=done, total=total)
        elif total is not None and done == total:
            click.echo(f"fetched {name} ({_human_size(total)})", err=True)


@model.command("pull")
@click.argument("repo_id", required=False)
@click.option("--precision", type=click.Choice(list(LOCAL_MODEL_FILES)), default=None,
              help="ONNX file to fetch: int8 (default) or fp32. Default: the project's rag_embedding_precision.")
@click.option("--project-root", type=click.Path(file_okay=False), default=None,
              help="Project whose configured model to fetch when REPO_ID is omitted.")
def pull_command(repo_id: str | None, precision: str | None, project_root: str | None) -> None:
    """Fetch a model into the store once (from PAQAD_MODEL_MIRROR or the model hub) and verify it.

    REPO_ID defaults to the project's local model (Xenova/all-MiniLM-L6-v2). Progress goes to
    stderr; the store folder is printed on stdout.

    \b
    Example:
      paqad-ai rag model pull Xenova/all-MiniLM-L6-v2 --precision fp32
    """
    if repo_id is None or precision is None:
        configured_id, configured_precision = _configured_local_model(project_root)
        repo_id = repo_id or configured_id
        precision = precision or configured_precision
    with _StderrProgress() as progress:
        folder = model_store.ensure_model(repo_id, precision, progress=progress)
    click.echo(str(folder))


@model.command("import")
@click.argument("path", type=click.Path(exists=True, file_okay=False))
@click.option("--repo-id", default=None, help="Model id to store it under, e.g. Xenova/all-MiniLM-L6-v2.")
def import_command(path: str, repo_id: str | None) -> None:
    """Copy a model from a local folder into the store (for machines without internet).

    PATH is a folder laid out like the hub repo (config.json, tokenizer.json,
    tokenizer_config.json, special_tokens_map.json, onnx/model_quantized.onnx and/or
    onnx/model.onnx), or a mirror root holding <repo id>/... . Files are checked against a
    MANIFEST.json next to them when there is one. Prints the store folder.

    \b
    Example:
      paqad-ai rag model import /media/usb/models/Xenova/all-MiniLM-L6-v2
    """
    folder = model_store.import_model(Path(path), repo_id)
    click.echo(str(folder))
