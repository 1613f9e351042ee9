"""``paqad-ai mcp``: the project's search index as an MCP server over stdio.

For hosts without a prompt hook (or as a complement to it), built with the official MCP
Python SDK (``mcp``; ``MCPServer`` in SDK 2.x, ``FastMCP`` in 1.x). Two tools:

* ``search_code(query, top_k=5, path_prefix=None)``: hybrid search of the current index;
  results carry ``path``, ``start_line``, ``end_line``, ``symbol``, ``score`` (cosine) and
  ``text``. ``path_prefix`` is confined to the project root.
* ``index_status()``: whether the index exists and matches the settings, its size and age.

The embedding model and the index connection are opened on first use and kept for the life of
the server; the connection is reopened when the index file is replaced (``rag rebuild``).
Nothing but MCP messages goes to stdout.
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paqad.config import Settings, load_settings
from paqad.errors import IndexMissingError, PaqadError
from paqad import __version__
from paqad.project import ProjectPaths, project_relative

try:  # MCP Python SDK 2.x
    from mcp.server.mcpserver import MCPServer as _Server
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError:  # pragma: no cover - SDK 1.x
    from mcp.server.fastmcp import FastMCP as _Server  # type: ignore[no-redef]
    from mcp.server.fastmcp.exceptions import ToolError  # type: ignore[no-redef]

SERVER_NAME = "paqad-ai"
MAX_TOP_K = 50
SERVER_INSTRUCTIONS = (
    "Search this project's code and docs by meaning and keywords with search_code before reading "
    "files. Results are hints from an index that may lag behind the files on disk: read the live "
    "file at the returned lines before relying on it."
)


@dataclass(frozen=True)
class CodeHit:
    """One ``search_code`` result: ``path`` project-relative with ``/``, 1-based inclusive
    ``start_line``/``end_line``, ``symbol`` (``Class.method``) or ``None``, ``score`` = cosine
    of query and chunk (rounded to 4 places; 0.0 when the model is unavailable), ``text``."""

    path: str
    start_line: int
    end_line: int
    symbol: str | None
    score: float
    text: str


def confine_path_prefix(root: Path, path_prefix: str | None) -> str | None:
    """Normalise ``path_prefix`` to a project-relative POSIX prefix, or ``None`` for "everything".

    Accepts ``src/api``, ``./src/api/``, ``src/x/../api`` or an absolute path inside ``root``.
    Raises ``ValueError`` (:class:`~paqad.errors.OutsideProjectError`) for a path leading outside ``root``.
    """
    if path_prefix is None or not path_prefix.strip():
        return None
    return project_relative(root, path_prefix, "path_prefix") or None


class CodeSearch:
    """Search state kept between tool calls: settings, the embedder (model loaded once) and a
    read-only index connection. Thread-safe: one search at a time."""

    def __init__(self, paths: ProjectPaths, settings: Settings | None = None) -> None:
        self.paths = paths
        self.settings = settings or load_settings(paths)
        self._lock = threading.Lock()
        self._embedder: Any = None
        self._degraded: str | None = None
        self._store: Any = None
        self._store_inode: int | None = None

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
                print(f"paqad-ai mcp: {self._degraded}", file=sys.stderr)
        return self._embedder

    def search(self, query: str, top_k: int = 5, path_prefix: str | None = None) -> list[CodeHit]:
        """Top ``top_k`` (1..50) fused results for ``query``. Raises ``PaqadError`` (no index,
        index built with another model) and ``ValueError`` (bad arguments)."""
        from paqad.search import search

        if not query or not query.strip():
            raise ValueError("query is empty")
        if not 1 <= top_k <= MAX_TOP_K:
            raise ValueError(f"top_k={top_k} must be from 1 to {MAX_TOP_K}")
        prefix = confine_path_prefix(self.paths.root, path_prefix)
        with self._lock:
            store = self._get_store()
            embedder = self._get_embedder()
            response = search(self.paths, self.settings, query, top_n=top_k, path_prefix=prefix, embedder=embedder,
                              degraded=self._degraded, store=store)
            if embedder is not None and response.degraded:  # the model failed mid-search: stop trying it
                self._embedder, self._degraded = None, response.degraded
                print(f"paqad-ai mcp: {response.degraded}", file=sys.stderr)
        return [CodeHit(r.path, r.start_line, r.end_line, r.symbol, round(float(r.score), 4), r.text)
                for r in response.results[:top_k]]

    def status(self) -> dict[str, Any]:
        """The index state as JSON-able values (see the ``index_status`` tool)."""
        from paqad.status import status

        return status(self.paths, self.settings).to_dict()

    def close(self) -> None:
        self._close_store()


def build_server(paths: ProjectPaths, settings: Settings | None = None) -> tuple[Any, CodeSearch]:
    """The MCP server with both tools registered, and the :class:`CodeSearch` behind them."""
    engine = CodeSearch(paths, settings)
    try:
        server = _Server(SERVER_NAME, instructions=SERVER_INSTRUCTIONS, version=__version__)
    except TypeError:  # an older SDK's FastMCP takes no version
        server = _Server(SERVER_NAME, instructions=SERVER_INSTRUCTIONS)

    @server.tool()
    def search_code(query: str, top_k: int = 5, path_prefix: str | None = None) -> list[CodeHit]:
        """Search this project's code and docs (hybrid: embeddings + BM25 keywords).

        Args:
            query: what you are looking for, in words or identifiers ("where are retries configured").
            top_k: how many results to return, 1 to 50.
            path_prefix: only search under this project-relative folder or file ("src/api").

        Returns passages with path, start_line, end_line, symbol, score (cosine similarity) and
        text. They are hints from an index that may lag behind the files: read the live file.
        """
        try:
            return engine.search(query, top_k, path_prefix)
        except (PaqadError, ValueError) as exc:
            raise ToolError(str(exc)) from None

    @server.tool()
    def index_status() -> dict[str, Any]:
        """State of this project's search index: present, valid (and why not), provider and
        model, files, chunks, languages, size in bytes, when built and last refreshed."""
        try:
            return engine.status()
        except PaqadError as exc:
            raise ToolError(str(exc)) from None

    return server, engine


def serve(paths: ProjectPaths) -> None:
    """Run the MCP server on stdio until the client closes the connection."""
    server, engine = build_server(paths)
    try:
        server.run("stdio")
    finally:
        engine.close()
