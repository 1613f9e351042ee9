"""``paqad-ai mcp``: the project's search index as an MCP server over stdio.

For every host (and the only channel for hosts without a prompt hook), built with the official
MCP Python SDK (``MCPServer``, SDK 2.x). Tools, all read-only (annotated ``readOnlyHint``;
the one write is the derived index under ``.paqad/vectors/``, a cache of the files):

* ``search_code(query, top_k=5, path_prefix, include, exclude)``: hybrid search (embeddings +
  BM25 + ranking signals), each hit with ``path:Lstart-end``, symbol, calibrated confidence when
  available (else the cosine, labelled as such) and the passage.
* ``find_symbol(name, ...)``: where an identifier (``Cart``, ``Cart.add``, ``parse_args``) is
  defined, from the index's symbol table.
* ``grep_code(pattern, regex=False, ...)``: exact text or regular-expression search, line by
  line, over the live files the index covers.
* ``index_status()``: the ``rag status --json`` object.

Before each search, changed files are synced into the index within :data:`SYNC_BUDGET_S`
(``build.sync`` with a non-blocking writer lock, in a thread): an edit shows up in the next
search without any other command; a sync that takes longer carries on in the background and
the answer says the index may lag. A stale index (other model or chunker) is not rebuilt here.
Without the embedding model every search is keyword-only, and every answer says so.

Arguments are checked strictly: an unknown argument, a wrong type, a ``path_prefix`` outside
the project or matching no indexed file, or a glob list that leaves nothing is an error with
a one-line message, never an empty result. Nothing but MCP messages goes to stdout.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
from typing import Annotated, Any, Callable

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError
from pydantic_core import PydanticSerializationError

from paqad import __version__
from paqad.config import Settings, load_settings
from paqad.errors import IndexMissingError, PaqadError
from paqad.hosts import mcp_tools as fmt
from paqad.hosts.mcp_tools import GrepOutput, Hit, SearchOutput, SymbolOutput, confine_path_prefix  # noqa: F401 (re-export)
from paqad.index.fs_names import shown_name
from paqad.project import ProjectPaths, index_exists
from paqad.jobs.sync_policy import MCP, MCP_BUDGET_S, BackgroundSync, SyncOutcome, SyncPolicy, SyncState
from paqad.search.degraded import Degraded
from paqad.search.symbols import definition_pattern, defines_in_text

SERVER_NAME = "paqad-ai"
MAX_TOP_K = 50
MAX_GREP_RESULTS = 500
SYNC_BUDGET_S = MCP_BUDGET_S  # seconds a search waits for the sync of changed files
WIDE_TOP_N = 200  # fused results fetched when globs filter them afterwards
SERVER_INSTRUCTIONS = (
    "This project's search index. search_code finds code and docs by meaning and keywords; find_symbol finds where an "
    "identifier is defined; grep_code finds exact text or a regex in the indexed files. Results are hints with "
    "path:Lstart-end pointers: read the live file at those lines before relying on them."
)
READ_ONLY = dict(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

Globs = Annotated[list[str] | None, Field(description='glob patterns with .gitignore rules, e.g. ["*.py"], ["src/**"]')]
Prefix = Annotated[str | None, Field(description='only under this project-relative folder or file, e.g. "src/api"')]


class CodeSearch:
    """Search state kept between tool calls: settings, the embedder (model loaded once), a
    read-only index connection and the sync thread. One search at a time."""

    def __init__(self, paths: ProjectPaths, settings: Settings | None = None, sync_budget_s: float = SYNC_BUDGET_S) -> None:
        self.paths = paths
        self.settings = settings or load_settings(paths)
        self.sync_budget_s = sync_budget_s
        self._lock = threading.Lock()
        self._embedder: Any = None
        self._degraded: Degraded | None = None
        self._store: Any = None
        self._store_inode: int | None = None
        self._sync = BackgroundSync()  # one sync thread across calls (a slow one is joined again, not restarted)

    # --- resources ------------------------------------------------------------------------------
    def _get_store(self) -> Any:
        from paqad import store as store_mod

        try:
            inode = self.paths.index_db.stat().st_ino
        except FileNotFoundError:
            self._close_store()
            raise IndexMissingError() from None
        if self._store is None or inode != self._store_inode:
            self._close_store()
            self._store = store_mod.open_store(self.paths, readonly=True)
            self._store_inode = inode
        return self._store

    def _close_store(self) -> None:
        if self._store is not None:
            try:
                self._store.close()
            except Exception:  # noqa: BLE001
                pass
        self._store, self._store_inode = None, None

    def _get_embedder(self) -> Any:
        if self._embedder is None and self._degraded is None:
            from paqad.search import load_embedder

            self._embedder, self._degraded = load_embedder(self.paths, self.settings)
            if self._degraded:
                print(f"paqad-ai mcp: {self._degraded.words}", file=sys.stderr)
        return self._embedder

    # --- freshness ------------------------------------------------------------------------------
    @property
    def policy(self) -> SyncPolicy:
        """The MCP server's sync: the project (edited files, then unfinished embedding) within ``sync_budget_s``."""
        return dataclasses.replace(MCP, budget_s=self.sync_budget_s)

    def refresh(self) -> str:
        """Sync changed files within the budget; returns one line on what the index now reflects."""
        from paqad.jobs.sync_policy import sync_within

        if not index_exists(self.paths):
            raise IndexMissingError()
        return self._index_note(sync_within(self.paths, self.settings, self._get_embedder(), self.policy,
                                            background=self._sync))

    def _index_note(self, synced: SyncOutcome) -> str:
        """The answer's ``index`` line for the sync before it."""
        state, error = synced.state, synced.error
        if state is SyncState.NO_MODEL:
            return "not synced (no embedding model to embed changed files); searched the index as last built"
        if state is SyncState.STALE:
            return f"not synced: the index is stale ({'; '.join(error.reasons)}); run `paqad-ai rag rebuild`"
        if state is SyncState.RUNNING:
            return (f"sync of changed files still running after {self.sync_budget_s:g}s (it goes on in the background); "
                    "searched the index as last committed")
        if state is SyncState.FAILED:
            return f"sync failed ({type(error).__name__}: {error}); searched the index as last committed"
        if state is SyncState.BUSY:
            return "another process is updating the index; searched the index as last committed"
        return synced.report.summary()

    def _scope(self, path_prefix: str | None, include: list[str] | None, exclude: list[str] | None) -> tuple[str | None, fmt.Globs, list[str]]:
        prefix = confine_path_prefix(self.paths.root, path_prefix)
        globs = fmt.Globs(include, exclude)
        indexed = sorted(self._get_store().files())
        fmt.check_prefix(self.paths.root, prefix, indexed)
        globs.check([p for p in indexed if fmt.under_prefix(p, prefix)])
        return prefix, globs, indexed

    # --- tools ----------------------------------------------------------------------------------
    def search(self, query: str, top_k: int = 5, path_prefix: str | None = None,
               include: list[str] | None = None, exclude: list[str] | None = None) -> SearchOutput:
        """Top ``top_k`` (1..50) fused results for ``query`` (over 20,000 characters, what the
        prompt hook would search of it: :func:`paqad.deliver.query.bounded_prompt`). Raises
        ``PaqadError`` (no index, index of another model) and ``ValueError`` (bad arguments)."""
        from paqad.deliver.query import bounded_prompt
        from paqad.jobs.sync_search import SearchAsk, search_within_budget

        if not query or not query.strip():
            raise ValueError("query is empty")
        query = bounded_prompt(query)  # a search's cost grows with the query's distinct words
        _check_range("top_k", top_k, MAX_TOP_K)
        scoped: list[fmt.Globs] = []

        def ask(synced: SyncOutcome) -> SearchAsk:  # the scope is checked against the index as synced
            prefix, globs, _ = self._scope(path_prefix, include, exclude)
            scoped.append(globs)
            top_n = WIDE_TOP_N if globs.active else max(top_k, self.settings.rag_top_n)
            return SearchAsk(query, top_n, prefix, store=self._get_store())

        with self._lock:
            if not index_exists(self.paths):
                raise IndexMissingError()
            done = search_within_budget(self.paths, self.settings, ask, policy=self.policy,
                                        embedder=self._get_embedder(), degraded=self._degraded, background=self._sync)
            note, response, globs = self._index_note(done.sync), done.response, scoped[0]
            if done.model_failed:  # the model failed mid-search: stop trying it
                self._embedder, self._degraded = None, response.degraded
                print(f"paqad-ai mcp: {response.degraded.words}", file=sys.stderr)
        degraded = response.degraded.words if response.degraded is not None else None
        hits = [_hit(r, keyword_only=degraded is not None) for r in response.results if globs.allows(r.path)][:top_k]
        return SearchOutput(query=query, degraded=degraded, index=note, results=hits)

    def find_symbol(self, name: str, top_k: int = 20, path_prefix: str | None = None,
                    include: list[str] | None = None, exclude: list[str] | None = None) -> SymbolOutput:
        from paqad.store import symbol_key

        wanted = name.strip()
        if not wanted or not symbol_key(wanted):
            raise ValueError(f"name {name!r} holds no identifier")
        _check_range("top_k", top_k, MAX_TOP_K)
        with self._lock:
            note = self.refresh()
            prefix, globs, _ = self._scope(path_prefix, include, exclude)
            store = self._get_store()
            found = store.definitions([symbol_key(wanted)], limit=1000)
            rows = store.chunks_by_id([cid for cid, _ in found])
        qualified = wanted.replace("::", ".")
        qualifier, _, last = qualified.rpartition(".")

        def exact(symbol: str) -> bool:
            s = symbol.replace("::", ".")
            return s.rsplit(".", 1)[-1] == last and (not qualifier or s == qualified or s.endswith("." + qualified))

        candidates = [(cid, sym) for cid, sym in found if cid in rows and fmt.under_prefix(rows[cid].path, prefix)
                      and globs.allows(rows[cid].path)]
        chosen = [(cid, sym) for cid, sym in candidates if exact(sym)]
        is_exact = bool(chosen)
        if not chosen:
            # Not in the symbol table (e.g. a method inside a class kept as one chunk): the live
            # definition lines of the name, mapped to the chunks that hold them.
            chosen = self._definition_lines(wanted, qualifier, last, prefix, globs)
            is_exact = bool(chosen)
        if not chosen:
            chosen, is_exact = candidates, False
        with self._lock:
            rows = {**rows, **self._get_store().chunks_by_id([cid for cid, _ in chosen if cid not in rows])}
        hits = []
        for cid, sym in dict.fromkeys(chosen):
            row = rows[cid]
            hits.append(Hit(path=row.path, start_line=row.start_line, end_line=row.end_line,
                            location=f"{row.path}:L{row.start_line}-{row.end_line}", symbol=sym, language=row.language,
                            confidence=None, cosine=None, text=row.text))
        hits.sort(key=lambda h: (h.path, h.start_line))
        return SymbolOutput(name=wanted, exact=is_exact or not candidates, index=note, results=hits[:top_k])

    def _definition_lines(self, wanted: str, qualifier: str, last: str, prefix: str | None, globs: fmt.Globs) -> list[tuple[int, str]]:
        """``(chunk id, name)`` of the chunks holding a line that defines ``last`` (inside
        ``qualifier``'s chunk or file when the name is qualified)."""
        with self._lock:
            store = self._get_store()
            files = [p for p in sorted(store.files()) if fmt.under_prefix(p, prefix) and globs.allows(p)]
        matches, _, _ = fmt.grep_files(self.paths.root, files, definition_pattern(last), 200)
        if not matches:
            return []
        with self._lock:
            store = self._get_store()
            by_file: dict[str, list[Any]] = {}
            for row in store.chunks_by_id(store.chunk_ids_of_files(sorted({m.path for m in matches}), limit=5000)).values():
                by_file.setdefault(row.path, []).append(row)
        found = []
        outer = qualifier.rsplit(".", 1)[-1] if qualifier else ""
        for m in matches:
            row = next((r for r in by_file.get(m.path, []) if r.start_line <= m.line <= r.end_line), None)
            if row is None:
                continue
            if outer and outer not in (row.symbol or "").replace("::", ".").split(".") and not defines_in_text(row.text, outer):
                continue
            found.append((row.id, wanted))
        return found

    def grep(self, pattern: str, regex: bool = False, case_sensitive: bool = True, path_prefix: str | None = None,
             include: list[str] | None = None, exclude: list[str] | None = None, max_results: int = 50) -> GrepOutput:
        compiled = fmt.compile_pattern(pattern, regex, case_sensitive)
        _check_range("max_results", max_results, MAX_GREP_RESULTS)
        with self._lock:
            note = self.refresh()
            prefix, globs, indexed = self._scope(path_prefix, include, exclude)
        files = [p for p in indexed if fmt.under_prefix(p, prefix) and globs.allows(p)]
        matches, searched, truncated = fmt.grep_files(self.paths.root, files, compiled, max_results)
        return GrepOutput(pattern=pattern, regex=regex, files_searched=searched, truncated=truncated, index=note, matches=matches)

    def status(self) -> dict[str, Any]:
        """The index state as JSON-able values (the ``rag status --json`` object) plus
        ``semantic_search``: ``"available"`` or why not (keyword search only)."""
        from paqad.jobs.status import project_status

        data = project_status(self.paths, self.settings).to_dict()
        with self._lock:
            self._get_embedder()
        data["semantic_search"] = "available" if self._degraded is None else f"unavailable: {self._degraded.words}"
        return data

    def close(self) -> None:
        self._close_store()


def _check_range(name: str, value: int, most: int) -> None:
    if not 1 <= value <= most:
        raise ValueError(f"{name}={value} must be from 1 to {most}")


def _hit(r: Any, keyword_only: bool) -> Hit:
    return Hit(path=r.path, start_line=r.start_line, end_line=r.end_line, location=r.location, symbol=r.symbol,
               language=r.language, confidence=None if r.confidence is None else round(float(r.confidence), 4),
               cosine=None if keyword_only else round(float(r.score), 4), text=r.text)


class _StrictServer(MCPServer):
    """An MCPServer whose tools reject unknown arguments and say in one line what was wrong.

    The SDK ignores argument names a tool does not take and reports type errors as pydantic's
    multi-line text; here both are one clear line, and each input schema says
    ``additionalProperties: false``.
    """

    async def list_tools(self):  # type: ignore[override]
        tools = await super().list_tools()
        for tool in tools:
            tool.input_schema["additionalProperties"] = False
        return tools

    async def call_tool(self, name, arguments, context=None):  # type: ignore[override]
        """The tool's answer or error, its text always encodable as UTF-8 JSON: a project folder whose
        name is not UTF-8 (``proj_caf\\xe9``) put a lone surrogate in a path, the SDK's writer could
        not serialise the answer and the client waited for ever (round 11). Such characters are
        shown as ``\\xe9``, as ``rag status --explain`` shows a file name."""
        try:
            return _encodable(await self._checked_call(name, arguments, context))
        except ToolError as exc:
            text = str(exc)
            if shown_name(text) == text:
                raise
            raise ToolError(shown_name(text)) from None

    async def _checked_call(self, name, arguments, context=None):
        schemas = {tool.name: tool.input_schema for tool in await super().list_tools()}
        schema = schemas.get(name)
        if schema is not None:
            allowed = set(schema.get("properties") or {})
            unknown = sorted(set(arguments or {}) - allowed)
            if unknown:
                raise ToolError(f"{name}: unknown argument{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; "
                                f"it takes {', '.join(sorted(allowed)) or 'no arguments'}")
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                problems = "; ".join(f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}" for err in cause.errors())
                raise ToolError(f"{name}: bad arguments: {problems}") from None
            message = str(exc).removeprefix(f"Error executing tool {name}: ")
            if message != str(exc):
                raise ToolError(f"{name}: {message}") from None
            raise


def _shown(value: Any) -> Any:
    """``value`` (JSON-shaped) with every string's lone surrogates shown as ``\\xNN`` (:func:`shown_name`)."""
    if isinstance(value, str):
        return shown_name(value)
    if isinstance(value, dict):
        return {_shown(k): _shown(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shown(v) for v in value]
    return value


def _encodable(result: Any) -> Any:
    """``result`` (an SDK model) as is when it serialises to JSON, else rebuilt from its strings shown
    by :func:`_shown` (only then: the usual answer is not copied)."""
    try:
        result.model_dump_json(by_alias=True, exclude_unset=True)
        return result
    except (PydanticSerializationError, UnicodeEncodeError):
        return type(result).model_validate(_shown(result.model_dump(by_alias=True, exclude_unset=True)))


def _answerer(structured: bool) -> Callable[[Any, Any], CallToolResult]:
    """``answer(call, markdown)``: runs ``call()``, turning a PaqadError or ValueError into a ToolError,
    and wraps its result as Markdown text (plus ``structured_content`` when ``structured``)."""

    def answer(call: Any, markdown: Any) -> CallToolResult:
        try:
            data = call()
        except (PaqadError, ValueError) as exc:
            raise ToolError(str(exc)) from None
        return CallToolResult(content=[TextContent(type="text", text=markdown(data))],
                              structured_content=data.model_dump(mode="json") if structured else None)

    return answer


def _search_tools(engine: CodeSearch, answer: Callable[[Any, Any], CallToolResult]) -> tuple[Callable, Callable]:
    """The ``search_code`` and ``find_symbol`` tools over ``engine`` (their names, parameters and
    docstrings are what the MCP client sees)."""

    def search_code(
        query: Annotated[str, Field(description='what you are looking for, in words or identifiers ("where are retries configured")')],
        top_k: Annotated[int, Field(description="how many passages to return, 1 to 50")] = 5,
        path_prefix: Prefix = None,
        include: Globs = None,
        exclude: Globs = None,
    ) -> CallToolResult:
        """Search this project's code and docs by meaning and keywords (embeddings + BM25 + ranking).

        Syncs changed files first. Each passage comes with path:Lstart-end, its symbol, and a calibrated
        confidence (or the cosine similarity, labelled as such). Passages are hints: read the live file.
        """
        return answer(lambda: engine.search(query, top_k, path_prefix, include, exclude), fmt.search_markdown)

    def find_symbol(
        name: Annotated[str, Field(description='an identifier, bare or qualified: "TileCache", "TileCache.get", "parse_args"')],
        top_k: Annotated[int, Field(description="most definitions to return, 1 to 50")] = 20,
        path_prefix: Prefix = None,
        include: Globs = None,
        exclude: Globs = None,
    ) -> CallToolResult:
        """Where an identifier is defined (class, function, method, ...), from the index's symbol table.

        Exact name first (a qualified name must match its tail); case-insensitive matches only when
        there is no exact one. Each definition comes with path:Lstart-end and its code.
        """
        return answer(lambda: engine.find_symbol(name, top_k, path_prefix, include, exclude), fmt.symbol_markdown)

    return search_code, find_symbol


def _inspect_tools(engine: CodeSearch, answer: Callable[[Any, Any], CallToolResult]) -> tuple[Callable, Callable]:
    """The ``grep_code`` and ``index_status`` tools over ``engine``."""

    def grep_code(
        pattern: Annotated[str, Field(description="the exact text to find, or a Python regular expression with regex=true")],
        regex: Annotated[bool, Field(description="treat pattern as a regular expression")] = False,
        case_sensitive: bool = True,
        path_prefix: Prefix = None,
        include: Globs = None,
        exclude: Globs = None,
        max_results: Annotated[int, Field(description="most matching lines to return, 1 to 500")] = 50,
    ) -> CallToolResult:
        """Exact text or regex search, line by line, over the live files this project's index covers.

        Returns path, line number and the line for each match (no ranking: files in path order).
        """
        return answer(lambda: engine.grep(pattern, regex, case_sensitive, path_prefix, include, exclude, max_results),
                      fmt.grep_markdown)

    def index_status() -> dict[str, Any]:
        """State of this project's search index: present, valid (and why not), provider and model, files,
        chunks, languages, size in bytes, when built and last refreshed, and whether semantic search is
        available (else searches are keyword-only)."""
        try:
            return _shown(engine.status())  # a project folder not named in UTF-8: its name shown, not a crash
        except PaqadError as exc:
            raise ToolError(str(exc)) from None

    return grep_code, index_status


def build_server(paths: ProjectPaths, settings: Settings | None = None, *, structured: bool = True) -> tuple[MCPServer, CodeSearch]:
    """The MCP server with its tools registered, and the :class:`CodeSearch` behind them.

    ``structured``: each answer carries ``structured_content`` (and each tool an output schema)
    next to the Markdown text. Without it the answer is the Markdown alone: the entries
    ``hooks install --mcp`` writes use that (``paqad-ai mcp --text-only``), because Claude Code
    2.1 and Codex 0.171 show the model the structured content (as JSON) instead of the text
    when both are present.
    """
    engine = CodeSearch(paths, settings)
    server = _StrictServer(SERVER_NAME, instructions=SERVER_INSTRUCTIONS, version=__version__)
    answer = _answerer(structured)
    search_code, find_symbol = _search_tools(engine, answer)
    grep_code, index_status = _inspect_tools(engine, answer)
    for fn, output, title in ((search_code, SearchOutput, "Search code"), (find_symbol, SymbolOutput, "Find a symbol's definition"),
                              (grep_code, GrepOutput, "Grep the indexed files"), (index_status, None, "Index status")):
        if output is not None:
            fn.__annotations__["return"] = Annotated[CallToolResult, output] if structured else CallToolResult
        server.add_tool(fn, annotations=ToolAnnotations(title=title, **READ_ONLY))
    return server, engine


def serve(paths: ProjectPaths, *, structured: bool = True) -> None:
    """Run the MCP server on stdio until the client closes the connection; a malformed
    message gets a JSON-RPC error reply (:mod:`paqad.hosts.mcp_stdio`)."""
    import logging

    from paqad.hosts import mcp_stdio

    logging.getLogger("mcp").setLevel(logging.WARNING)  # the SDK logs every rejected call at INFO on stderr
    server, engine = build_server(paths, structured=structured)
    try:
        mcp_stdio.run(server)
    finally:
        engine.close()
