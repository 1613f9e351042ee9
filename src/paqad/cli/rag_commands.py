"""``paqad-ai rag init|status|rebuild|clear|probe|refresh-context``: parse, call the library, print."""

from __future__ import annotations

import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import click

from paqad.config import PROVIDERS, load_settings
from paqad.errors import IndexMissingError, PaqadError
from paqad.cli.options import project_root_option, resolve_paths
from paqad.project import ProjectPaths



def _stdout():
    """rich's console for stdout, imported on first use (probe --json never needs rich)."""
    from rich.console import Console

    return Console()

class BuildProgress:
    """Renders indexer progress (stage, done, total) as rich progress bars on stderr."""

    LABELS = {"discover": "Finding files", "chunk": "Chunking", "embed": "Embedding"}

    def __init__(self, enabled: bool = True):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        stderr = Console(stderr=True)
        self.progress = Progress(
            TextColumn("{task.description:<14}"), BarColumn(), MofNCompleteColumn(),
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
            self.progress.console.print(f"{done} files eligible, {total - done} skipped (see `rag status --json`)")
            return
        if stage == "cached":
            self.progress.console.print(f"{total} chunks to index: {done} from the embedding cache, {total - done} to embed")
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


def build_progress(enabled: bool = True, *, chatty: bool = True):
    """Progress on stderr: rich's bars on a terminal, else a plain line every few seconds
    (:class:`paqad.cli.progress.PlainProgress`), so no long build is silent in a log or pipe."""
    if enabled and not sys.stderr.isatty():
        from paqad.cli.progress import PlainProgress

        return PlainProgress(chatty=chatty)
    return BuildProgress(enabled=enabled)


def _interrupted(paths: ProjectPaths) -> None:
    """After Ctrl-C in a build: say what is usable and how embedding continues (then exit 130)."""
    from paqad.status import index_state

    state = index_state(paths, load_settings(paths))
    if state.present and state.chunks:
        click.echo(f"interrupted: the index is searchable by keywords; {state.embedded:,} of {state.chunks:,} chunks "
                   f"have vectors ({int(state.coverage * 100)}%); the next `paqad-ai rag refresh-context` (each prompt "
                   "starts one) or `paqad-ai rag init` continues embedding", err=True)


def _load_embedder(paths: ProjectPaths, settings):
    from paqad.embed.factory import get_embedder

    return get_embedder(settings, paths)


def _build(paths: ProjectPaths, settings, *, full: bool, quiet: bool = False, embedder=None):
    from paqad.build import sync

    embedder = embedder or _load_embedder(paths, settings)
    with build_progress(enabled=not quiet) as progress:
        try:
            report = sync(paths, settings, embedder, full=full, progress=progress)
        except KeyboardInterrupt:
            _interrupted(paths)
            raise
    return report


def _confirm_upload(settings, chunks: int, chars: int) -> bool:
    """Before a remote build on a terminal: say what will be sent where, and ask."""
    click.confirm(
        f"This will send {chunks} chunks ({chars:,} characters) of this project to {settings.rag_embedding_provider} "
        f"({settings.rag_embedding_model}). Continue?", abort=True, err=True,
    )
    return True


@click.command()
@click.option("--provider", type=click.Choice(PROVIDERS), default=None, help="Embedding provider (default: local, or the configured one).")
@click.option("--model", default=None, help="Embedding model id (default: the provider's default).")
@click.option("--yes", "-y", is_flag=True, help="Rebuild even if a valid index exists; skip confirmations.")
@project_root_option
def init(provider: str | None, model: str | None, yes: bool, project_root: Path | None) -> None:
    """Switch retrieval on for this project and build its index.

    Checks the provider and model first (fetching the local model into ~/.paqad/models once;
    asking for a remote provider's API key on a terminal), writes the provider and model to
    .paqad/.config and .paqad/.gitignore, builds the index under .paqad/vectors/ with progress
    on stderr, then sets rag_enabled=true. A valid index is kept (and synced) unless --yes is
    given. Before a full remote build on a terminal it says how many chunks and characters will
    be sent, and asks.

    \b
    Example:
      paqad-ai rag init --provider local
    """
    from paqad.build import init_project

    paths = resolve_paths(project_root)
    load_settings(paths)  # a bad setting is reported before anything else
    click.echo(f"Project root: {paths.root}", err=True)
    interactive = sys.stdin.isatty()
    with build_progress() as progress:
        try:
            result = init_project(
                paths, provider=provider, model=model, rebuild=yes, interactive=interactive,
                confirm_upload=_confirm_upload if interactive and not yes else None,
                notify=lambda line: click.echo(line, err=True), progress=progress,
            )
        except KeyboardInterrupt:
            _interrupted(paths)
            raise
    settings = result.settings
    click.echo(f"Retrieval on ({settings.rag_embedding_provider}, {settings.rag_embedding_model}): {result.report.summary()}")


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
    paths = resolve_paths(project_root)
    settings = load_settings(paths)
    from paqad.store import index_exists

    if not settings.rag_enabled and not index_exists(paths):
        raise PaqadError("retrieval is not configured here; run `paqad-ai rag init` first")
    report = _build(paths, settings, full=True)
    click.echo(f"Rebuilt: {report.summary()}")


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
            raise PaqadError("refusing to delete .paqad/vectors/ without --yes (no terminal to ask on)")
        click.confirm(f"Delete {paths.vectors_dir} and switch retrieval off?", abort=True, err=True)
    from paqad.build import clear_index

    existed = clear_index(paths)
    click.echo(("Index deleted" if existed else "No index to delete") + "; retrieval is off (rag_enabled=false).")


def _fmt_time(iso_or_epoch) -> str:
    if not iso_or_epoch:
        return "never"
    if isinstance(iso_or_epoch, (int, float)):
        return datetime.fromtimestamp(iso_or_epoch, timezone.utc).replace(microsecond=0).isoformat()
    return str(iso_or_epoch)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON on stdout.")
@click.option("--explain", "explain_path", default=None, metavar="PATH", help="Say whether PATH is indexed, and if not, which filter rejected it.")
@project_root_option
def status(as_json: bool, explain_path: str | None, project_root: Path | None) -> None:
    """Show settings (with where each came from) and the state of the index.

    \b
    Examples:
      paqad-ai rag status
      paqad-ai rag status --json
      paqad-ai rag status --explain src/app/secrets.py
    """
    paths = resolve_paths(project_root)
    if explain_path:
        from paqad.index.discover import explain

        settings = load_settings(paths)
        target = Path(explain_path)
        if target.is_absolute():
            try:
                target = target.resolve().relative_to(paths.root)
            except ValueError:
                raise PaqadError(f"--explain {explain_path}: not inside the project {paths.root}") from None
        decision = explain(paths.root, target.as_posix(), max_file_size=settings.rag_max_file_size)
        if as_json:
            click.echo(json.dumps({"path": decision.path, "eligible": decision.eligible, "reason": decision.reason}))
        else:
            click.echo(f"{decision.path}: " + ("indexed" if decision.eligible else f"not indexed ({decision.reason})"))
        return
    from paqad.status import status as project_status

    data = project_status(paths).to_dict()
    if as_json:
        click.echo(json.dumps(data, indent=2, default=str))
        return
    from rich.table import Table

    stdout = _stdout()
    table = Table(title="Settings", show_header=True, header_style="bold")
    table.add_column("key")
    table.add_column("value")
    table.add_column("from")
    for name, item in data["settings"].items():
        table.add_row(name, str(item["value"]), item["source"])
    stdout.print(table)
    idx = data["index"]
    if not idx["present"]:
        stdout.print("Index: none (run `paqad-ai rag init`)")
    else:
        state = "valid" if idx["valid"] else "stale: " + "; ".join(idx["stale_reasons"])
        langs = ", ".join(f"{k} {v}" for k, v in list(idx["languages"].items())[:8])
        stdout.print(f"Index: {state}")
        stdout.print(f"  provider/model: {idx['provider']} / {idx['model']} ({idx['dimension']}-d)")
        stdout.print(f"  files: {idx['files']}   chunks: {idx['chunks']}   size: {idx['size_bytes'] / 1e6:.1f} MB")
        if idx["semantic_coverage"] < 1:
            stdout.print(f"  semantic coverage: {int(idx['semantic_coverage'] * 100)}% ({idx['embedded_chunks']:,} of "
                         f"{idx['chunks']:,} chunks have vectors; the rest match by keywords only until embedding "
                         "finishes: `paqad-ai rag refresh-context` continues it)")
        stdout.print(f"  languages: {langs}")
        if idx["rejected"]:
            skipped = ", ".join(f"{k} {v}" for k, v in sorted(idx["rejected"].items(), key=lambda kv: -kv[1]))
            stdout.print(f"  skipped: {sum(idx['rejected'].values())} ({skipped})")
        stdout.print(f"  built: {_fmt_time(idx['built_at'])}   refreshed: {_fmt_time(idx['refreshed_at'])}")
    last = data["last_refresh"]
    if last:
        stdout.print(f"Last refresh: {_fmt_time(last.get('at'))}, {last.get('seconds')}s — {last.get('summary')}")
    if "api_key" in data:
        key = data["api_key"]
        stdout.print(f"API key {key['variable']}: " + (f"found in {key['found_in']}" if key["found_in"] else "not found"))


def _checked_prefix(paths: ProjectPaths, prefix: str) -> str:
    """A ``--path`` value as a project-relative folder; error if outside the project or absent."""
    target = (paths.root / prefix).resolve()
    try:
        rel = target.relative_to(paths.root).as_posix()
    except ValueError:
        raise PaqadError(f"--path {prefix}: outside the project {paths.root}") from None
    if not target.exists():
        raise PaqadError(f"--path {prefix}: no such file or folder in the project")
    return "" if rel == "." else rel


def _read_query(query: str | None, query_file: Path | None) -> str:
    if query_file is not None:
        try:
            text = query_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise PaqadError(f"--query-file {query_file}: cannot read ({exc})") from None
    elif query == "-":
        text = sys.stdin.read()
    elif query is not None:
        text = query
    else:
        raise PaqadError("probe needs a QUERY argument, `-` for stdin, or --query-file FILE")
    if not text.strip():
        raise PaqadError("the query is empty")
    return text.strip()


@click.command()
@click.argument("query", required=False)
@click.option("--query-file", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Read the query from a file.")
@click.option("--top-n", type=click.IntRange(1, 200), default=None, help="Results to show (default: rag_top_n).")
@click.option("--path", "path_prefix", default=None, help="Only search under this project-relative folder.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON on stdout.")
@click.option("--no-sync", is_flag=True, help="Search the index as it is, without syncing changed files first.")
@project_root_option
def probe(query, query_file, top_n, path_prefix, as_json, no_sync, project_root) -> None:
    """Search the index and show the top results before the confidence floor.

    Syncs changed files first. Each row: rank, path, line range, symbol, score (cosine),
    fused rank, whether it is above the floor / relief floor, and the gap to the floor.

    \b
    Examples:
      paqad-ai rag probe "where are HTTP retries configured"
      git diff | paqad-ai rag probe - --json
    """
    from paqad.build import sync
    from paqad.search import search
    from paqad.store import index_exists

    paths = resolve_paths(project_root)
    text = _read_query(query, query_file)
    settings = load_settings(paths)
    if not index_exists(paths):
        raise IndexMissingError()
    embedder = _load_embedder(paths, settings)
    if not no_sync:
        # Edited files only: a stale index is refused (IndexStaleError names `rag rebuild`), an
        # unfinished embedding is left to refresh/init, and a slow sync prints plain progress.
        from paqad.cli.progress import PlainProgress

        sync(paths, settings, embedder, blocking=False, allow_rebuild=False, backlog=False, progress=PlainProgress(chatty=False))
    if path_prefix:
        path_prefix = _checked_prefix(paths, path_prefix)
    response = search(paths, settings, text, top_n=top_n, path_prefix=path_prefix, embedder=embedder)
    results = response.results
    if response.coverage < 1.0:
        click.echo(f"note: semantic coverage partial: {int(response.coverage * 100)}% of the chunks have vectors so far; "
                   "the rest match by keywords only (score 0)", err=True)
    floor, relief = settings.rag_similarity_threshold, settings.rag_relief_floor
    rows = [
        {
            "rank": r.fused_rank, "path": r.path, "start_line": r.start_line, "end_line": r.end_line,
            "symbol": r.symbol, "score": round(r.score, 4), "fused_rank": r.fused_rank,
            "dense_rank": r.dense_rank, "lexical_rank": r.lexical_rank,
            "above_floor": r.score >= floor, "above_relief": r.score >= relief,
            "gap_to_floor": round(r.score - floor, 4), "semantic": r.semantic,
        }
        for r in results
    ]
    if as_json:
        click.echo(json.dumps({"query": text, "threshold": floor, "relief_floor": relief,
                               "semantic_coverage": round(response.coverage, 4), "results": rows}, indent=2))
        return
    if not sys.stdout.isatty():
        if rows:
            click.echo("rank  score  band    location  symbol")
        for row in rows:
            click.echo(
                f"{row['rank']:>2}  {row['score']:.3f}  {'floor' if row['above_floor'] else 'relief' if row['above_relief'] else 'below'}"
                f"  {row['path']}:L{row['start_line']}-{row['end_line']}  {row['symbol'] or ''}"
            )
    else:
        from rich.table import Table

        stdout = _stdout()
        table = Table(show_header=True, header_style="bold")
        for col in ("#", "path:lines", "symbol", "score", "dense", "bm25", "floor", "relief", "gap"):
            table.add_column(col, overflow="fold")
        for row in rows:
            table.add_row(
                str(row["rank"]), f"{row['path']}:L{row['start_line']}-{row['end_line']}", row["symbol"] or "",
                f"{row['score']:.3f}", str(row["dense_rank"] or "-"), str(row["lexical_rank"] or "-"),
                "yes" if row["above_floor"] else "no", "yes" if row["above_relief"] else "no", f"{row['gap_to_floor']:+.3f}",
            )
        stdout.print(table)
    if not rows:
        click.echo("No results.")


@click.command("refresh-context")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing (the hook runs it this way).")
@project_root_option
def refresh_context_cmd(quiet: bool, project_root: Path | None) -> None:
    """Sync changed files, search with the last prompt (or changed files), write the section.

    Writes the "## Retrieved context" section of .paqad/context/session-context.md. Always
    exits 0; when it cannot do anything useful it says why. Errors go to .paqad/logs/.

    \b
    Example:
      paqad-ai rag refresh-context
    """
    from paqad.deliver.refresh import refresh_context

    paths = resolve_paths(project_root)
    outcome = refresh_context(paths)
    if not quiet:
        click.echo(outcome.summary)


def register(group: click.Group) -> None:
    """Add the index commands to the ``rag`` group."""
    for command in (init, status, rebuild, clear, probe, refresh_context_cmd):
        group.add_command(command)
