"""``paqad-ai rag init|status|rebuild|clear|probe|refresh-context``: parse, call the library, print."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import click

from paqad.config import PROVIDERS, load_settings
from paqad.errors import (
    ConfirmationNeededError,
    UsageError,
    UserFileError,
)
from paqad.cli.options import project_root_option, resolve_paths


def count_column():
    """rich's done/total column with thousands separators (``1,139/1,139``), as every other line
    prints a count (rich's own MofNCompleteColumn writes ``1139/1139``: round 8)."""
    from rich.progress import ProgressColumn
    from rich.text import Text

    class CountColumn(ProgressColumn):
        def render(self, task) -> Text:
            total = f"{int(task.total):,}" if task.total is not None else "?"
            return Text(f"{int(task.completed):,}/{total}", style="progress.download")

    return CountColumn()


class BuildProgress:
    """Renders indexer progress (stage, done, total) as rich progress bars on stderr."""

    LABELS = {"discover": "Finding files", "chunk": "Chunking", "embed": "Embedding"}

    def __init__(self, enabled: bool = True):
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        stderr = Console(stderr=True)
        self.progress = Progress(
            TextColumn("{task.description:<14}"), BarColumn(), count_column(),
            TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn(),
            console=stderr, transient=False, disable=not enabled,
        )
        self.tasks: dict[str, int] = {}
        self.started: dict[str, float] = {}

    def __enter__(self) -> "BuildProgress":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.started_display:
            self.progress.stop()

    @property
    def started_display(self) -> bool:
        return bool(self.progress.live.is_started)

    def __call__(self, stage: str, done: int, total: int) -> None:
        # Started on the first tick, so a question asked before the build (init's remote-upload
        # confirmation) is not drawn over by the bars.
        if not self.started_display:
            self.progress.start()
        if stage == "eligible":
            self.progress.console.print(f"{done:,} files eligible, {total - done:,} skipped (`paqad-ai rag status --explain .` says which and why)")
            return
        if stage == "cached":
            self.progress.console.print(f"{total:,} chunks to index: {done:,} from the embedding cache, {total - done:,} to embed")
            return
        if stage == "searchable":
            more = "; embedding continues" if done < total else ""
            self.progress.console.print(f"keyword search ready: {total:,} chunks ({done:,} with vectors){more}")
            return
        if stage not in self.tasks:
            if stage == "embed" and total == 0:
                return
            self.tasks[stage] = self.progress.add_task(self.LABELS.get(stage, stage), total=total or 1, rate="")
            self.started[stage] = time.perf_counter()
        elapsed = time.perf_counter() - self.started[stage]
        rate = f"{done / elapsed:.0f}/s" if stage == "embed" and elapsed > 0 and done else ""
        self.progress.update(self.tasks[stage], completed=done, total=total or 1, rate=rate)


def _warn(message: str) -> None:
    click.echo(f"paqad-ai: warning: {message}", err=True)


def build_progress(enabled: bool = True, *, chatty: bool = True):
    """Progress on stderr: rich's bars on a terminal, else a plain line every few seconds
    (:class:`paqad.cli.progress.PlainProgress`), so no long build is silent in a log or pipe."""
    if enabled and not sys.stderr.isatty():
        from paqad.cli.progress import PlainProgress

        return PlainProgress(chatty=chatty)
    return BuildProgress(enabled=enabled)


def _note(message: str) -> None:
    click.echo(message, err=True)


def _confirm_upload(settings, chunks: int, chars: int) -> bool:
    """Before a remote build on a terminal: say what will be sent where, and ask."""
    click.confirm(
        f"This will send {chunks:,} chunks ({chars:,} characters) of this project to {settings.rag_embedding_provider} "
        f"({settings.rag_embedding_model}). Continue?", abort=True, err=True,
    )
    return True


@click.command()
@click.option("--provider", type=click.Choice(PROVIDERS), default=None, help="Embedding provider (default: local, or the configured one).")
@click.option("--model", default=None, help="Embedding model id (default: the provider's default).")
@click.option("--yes", "-y", is_flag=True, help="Answer yes to every question (sending chunks to a remote provider).")
@click.option("--rebuild", is_flag=True, help="Rebuild from scratch even if a valid index exists (default: keep and sync it).")
@project_root_option
def init(provider: str | None, model: str | None, yes: bool, rebuild: bool, project_root: Path | None) -> None:
    """Switch retrieval on for this project and build its index.

    Checks the provider and model first (fetching the local model once into the model store,
    PAQAD_HOME/models, default ~/.paqad/models;
    asking for a remote provider's API key on a terminal), writes the provider and model to
    .paqad/.config and .paqad/.gitignore, builds the index under .paqad/vectors/ with progress
    on stderr, then sets rag_enabled=true. A valid index is kept (and synced) unless --rebuild is
    given. Before a full remote build on a terminal it says how many chunks and characters will
    be sent, and asks.

    \b
    Example:
      paqad-ai rag init --provider local
    """
    from paqad.jobs import build as job

    paths = resolve_paths(project_root)
    load_settings(paths)  # a bad setting is reported before anything else
    click.echo(f"Project root: {paths.root}", err=True)
    interactive = sys.stdin.isatty()
    with build_progress() as progress:
        done = job.init(paths, provider=provider, model=model, rebuild=rebuild, interactive=interactive,
                        confirm_upload=_confirm_upload if interactive and not yes else None, notify=_note,
                        progress=progress)
    for warning in done.warnings:
        _warn(warning)
    settings = done.settings
    click.echo(f"Retrieval on ({settings.rag_embedding_provider}, {settings.rag_embedding_model}): {done.summary}")


@click.command()
@project_root_option
def rebuild(project_root: Path | None) -> None:
    """Rebuild the whole index with the configured provider and model.

    Embeddings already in the cache are reused, so a rebuild after a chunker or config
    change only pays for new text.

    \b
    Example:
      paqad-ai rag rebuild
    """
    from paqad.jobs import build as job

    paths = resolve_paths(project_root)
    settings = load_settings(paths)
    with build_progress() as progress:
        done = job.rebuild(paths, settings, notify=_note, progress=progress)
    for warning in done.warnings:
        _warn(warning)
    click.echo(f"Rebuilt: {done.summary}")


@click.command()
@click.option("--yes", "-y", is_flag=True, help="Do not ask.")
@project_root_option
def clear(yes: bool, project_root: Path | None) -> None:
    """Delete the index (.paqad/vectors/) and switch retrieval off.

    Secrets, settings other than rag_enabled, and the rest of .paqad/ are left alone.

    \b
    Example:
      paqad-ai rag clear --yes
    """
    paths = resolve_paths(project_root)
    if not yes:
        if not sys.stdin.isatty():
            raise ConfirmationNeededError("refusing to delete .paqad/vectors/ without --yes (no terminal to ask on)")
        click.confirm(f"Delete {paths.vectors_dir} and switch retrieval off?", abort=True, err=True)
    from paqad.build import clear_index
    from paqad.deliver.refresh import drop_retrieved_section

    existed = clear_index(paths, notify=_note)
    drop_retrieved_section(paths)
    click.echo(("Index deleted" if existed else "No index to delete") + "; retrieval is off (rag_enabled=false).")


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON on stdout.")
@click.option("--explain", "explain_path", default=None, metavar="PATH", help="Say whether PATH (a file or folder) is indexed, which filter rejects it, and whether the index holds it yet.")
@project_root_option
def status(as_json: bool, explain_path: str | None, project_root: Path | None) -> None:
    """Show settings (with where each came from) and the state of the index.

    \b
    Examples:
      paqad-ai rag status
      paqad-ai rag status --json
      paqad-ai rag status --explain src/app/secrets.py
    """
    from paqad.cli.table import aligned
    from paqad.jobs import status as job

    paths = resolve_paths(project_root)
    if explain_path:
        explanation = job.explain(paths, explain_path, cwd=Path.cwd())
        click.echo(json.dumps(explanation.to_dict()) if as_json else explanation.describe())
        return
    report = job.project_status(paths)
    click.echo(json.dumps(report.to_dict(), indent=2, default=str) if as_json else "\n".join(report.lines(aligned)))


def _decode_stdin(stream) -> str:
    """stdin as UTF-8 (what pipes such as ``git diff`` carry) whatever the locale; else the locale's encoding."""
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        return stream.read()
    data = buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode(stream.encoding or "utf-8", "replace")


def _argv_text(value: str) -> str:
    """A command-line argument as text: under an ASCII locale Python keeps non-ASCII bytes as lone
    surrogates, which no tokenizer or database accepts; decode those bytes as UTF-8."""
    if not any("\udc80" <= ch <= "\udcff" for ch in value):
        return value
    return os.fsencode(value).decode("utf-8", "replace")


def _read_query(query: str | None, query_file: Path | None) -> str:
    if query_file is not None and query is not None:  # it searched the file and dropped QUERY without a word
        raise UsageError(f"probe got a QUERY ({query!r}) and --query-file {query_file}: give one of them")
    if query_file is not None:
        try:
            text = query_file.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:  # round 8: "cannot read ('utf-8' codec can't decode ...)"
            raise UserFileError(f"--query-file {query_file}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at "
                                f"offset {exc.start}); save it as UTF-8 (`iconv -f latin1 -t utf-8`) or pipe it to "
                                "`paqad-ai rag probe -`") from None
        except OSError as exc:
            raise UserFileError(f"--query-file {query_file}: cannot read ({exc.strerror})") from None
    elif query == "-":
        text = _decode_stdin(sys.stdin)
    elif query is not None:
        text = _argv_text(query)
    else:
        raise UsageError("probe needs a QUERY argument, `-` for stdin, or --query-file FILE")
    if not text.strip():
        raise UsageError("the query is empty")
    return text.strip()


@click.command()
@click.argument("query", required=False)
@click.option("--query-file", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Read the query from a file.")
@click.option("--top-n", "-n", type=click.IntRange(1, 200), default=None, help="Results to show (default: rag_top_n).")
@click.option("--path", "-p", "path_prefix", default=None, help="Only search under this folder or file (from the current folder when it is there, else from the project root).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON on stdout.")
@click.option("--no-sync", is_flag=True, help="Search the index as it is, without syncing changed files first.")
@project_root_option
def probe(query, query_file, top_n, path_prefix, as_json, no_sync, project_root) -> None:
    """Search the index and show the top results before the confidence floor.

    Syncs changed files first (unless --no-sync). Columns: rank, match, band, cosine,
    location, lines, symbol. rank is the fused rank; match the calibrated confidence that the
    passage is relevant (what the floor compares); band is confident (match at or above
    rag_similarity_threshold), relief (at or above rag_relief_floor) or below; cosine the cosine
    of query and passage; location is path:START, which editors and terminals open; lines is
    START-END; symbol is the Class.method the passage belongs to (cut to the terminal's width).
    --json has every field, plus the dense and BM25 ranks and the gap to the floor. A query over
    20,000 characters (a pasted log, a git diff) is cut as the prompt hook cuts it: its head, its
    tail and its lines naming an error.

    With rag_warm_process on (the default), the project's warm process (model and index kept
    loaded; the prompt hook starts it too) answers when it runs, and one is started for the next
    calls when none does; it exits after 10 minutes unused. Same results either way.

    \b
    Examples:
      paqad-ai rag probe "where are HTTP retries configured"
      git diff | paqad-ai rag probe - --json
    """
    from paqad.cli.progress import PlainProgress
    from paqad.hosts.warm_probe import probe as run_probe

    paths = resolve_paths(project_root)
    text = _read_query(query, query_file)
    settings = load_settings(paths)
    result = run_probe(paths, settings, text, top_n=top_n, path_prefix=path_prefix, cwd=Path.cwd(), no_sync=no_sync,
                       progress=PlainProgress(chatty=False), warn=_warn, note=_note)
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2))
        return
    from paqad.search.floor import percent
    from paqad.cli.table import aligned, terminal_width

    table = [
        [str(row.rank), f"{percent(row.confidence)}%", row.band, f"{row.cosine:.3f}" if row.cosine is not None else "-",
         f"{row.path}:{row.start_line}", f"{row.start_line}-{row.end_line}", row.symbol or ""]
        for row in result.rows
    ]
    if table:
        header = ("rank", "match", "band", "cosine", "location", "lines", "symbol")
        click.echo("\n".join(aligned(header, table, right=frozenset({0, 1, 3}), width=terminal_width())))
    if not result.rows:
        click.echo("No results.")


@click.command("refresh-context")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing (the hook runs it this way).")
@project_root_option
def refresh_context_cmd(quiet: bool, project_root: Path | None) -> None:
    """Sync changed files, search with the last prompt (or changed files), write the section.

    Writes the "## Retrieved context" section of .paqad/context/session-context.md. Exits 0
    whatever the index's state (when it cannot do anything useful it says why; errors go to
    .paqad/logs/), 2 only when .paqad/ cannot be written.

    \b
    Example:
      paqad-ai rag refresh-context
    """
    from paqad.deliver.refresh import refresh_context

    paths = resolve_paths(project_root)

    def announce(outcome) -> None:
        if quiet:
            return
        click.echo(outcome.summary)
        if outcome.backlog:
            _note("embedding the chunks still without vectors (the index stays searchable; Ctrl-C stops, "
                  "the next refresh continues) ...")

    from paqad.cli.progress import PlainProgress

    # like probe's sync: silent when quick, a line every few seconds once a stage runs long
    outcome = refresh_context(paths, announce=announce, progress=None if quiet else PlainProgress(chatty=False))
    if outcome.backlog_failed and not quiet:
        _note(outcome.backlog_failed)
    elif outcome.backlog_embedded and not quiet:
        _note(f"embedded {outcome.backlog_embedded:,} chunks left without vectors in {outcome.backlog_seconds:.1f}s")


def register(group: click.Group) -> None:
    """Add the index commands to the ``rag`` group."""
    for command in (init, status, rebuild, clear, probe, refresh_context_cmd):
        group.add_command(command)
