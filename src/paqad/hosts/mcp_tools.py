"""What the MCP tools return, in two forms: compact Markdown for the model, typed data for clients.

Each tool answers with a :class:`~mcp_types.CallToolResult` holding one Markdown text block
(``### path:Lstart-end · symbol · match 82%`` and the passage in a code fence; one line
per ``grep_code`` match) and ``structured_content`` that validates against the tool's output
model below. Every answer says how fresh the index is (the sync before the search) and, when
the embedding model is unavailable, that the search was keyword-only and why.

Also here: path-prefix confinement, include/exclude globs, and the line search of
``grep_code`` over the live files of the index.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Iterable, Sequence

import pathspec
from pydantic import BaseModel, Field

from paqad.index.fs_names import fs_name
from paqad.index.redact import redact_credentials
from paqad.project import project_relative

MAX_LINE_CHARS = 240  # a grep_code line longer than this is cut (minified code, data)
GREP_BUDGET_S = 3.0
GREP_MAX_FILE_BYTES = 1_000_000


class Hit(BaseModel):
    """One passage: ``path`` project-relative with ``/``, 1-based inclusive lines."""

    path: str
    start_line: int
    end_line: int
    location: str = Field(description="path:Lstart-end")
    symbol: str | None
    language: str
    confidence: float | None = Field(description="calibrated probability that the passage is relevant, when available")
    cosine: float | None = Field(description="cosine similarity of query and passage; null in keyword-only mode")
    text: str


class SearchOutput(BaseModel):
    query: str
    degraded: str | None = Field(description="why semantic search was not used (keyword search only), else null")
    index: str = Field(description="what the sync before the search did")
    results: list[Hit]


class SymbolOutput(BaseModel):
    name: str
    exact: bool = Field(description="false when only case-insensitive matches were found")
    index: str
    results: list[Hit]


class GrepMatch(BaseModel):
    path: str
    line: int
    text: str


class GrepOutput(BaseModel):
    pattern: str
    regex: bool
    files_searched: int
    truncated: bool = Field(description="more matches exist than were returned, or the time budget ran out")
    index: str
    matches: list[GrepMatch]


def confine_path_prefix(root: Path, path_prefix: str | None) -> str | None:
    """Normalise ``path_prefix`` to a project-relative POSIX prefix, or ``None`` for "everything".

    Accepts ``src/api``, ``./src/api/``, ``src/x/../api`` or an absolute path inside ``root``.
    Raises ``ValueError`` (:class:`~paqad.errors.OutsideProjectError`) for a path leading outside
    ``root``, with the wording every command uses.
    """
    if path_prefix is None or not path_prefix.strip():
        return None
    return project_relative(root, path_prefix, "path_prefix") or None


def under_prefix(path: str, prefix: str | None) -> bool:
    return prefix is None or path == prefix or path.startswith(prefix + "/")


def check_prefix(root: Path, prefix: str | None, indexed: Iterable[str]) -> None:
    """Raise ``ValueError`` when ``prefix`` matches no indexed file (it is not "no match")."""
    if prefix is None or any(under_prefix(p, prefix) for p in indexed):
        return
    if (root / fs_name(prefix)).exists():
        raise ValueError(f"path_prefix {prefix!r} exists but holds no indexed file "
                         f"(see `paqad-ai rag status --explain {prefix}`)")
    raise ValueError(f"path_prefix {prefix!r} does not exist in the project")


class Globs:
    """``include`` / ``exclude`` glob lists with gitignore semantics (``*.py`` matches at any
    depth, ``src/**`` a folder, ``!`` is not special): a path passes when it matches an include
    (or there are none) and no exclude."""

    def __init__(self, include: Sequence[str] | None, exclude: Sequence[str] | None) -> None:
        self.include_patterns = [p for p in (include or []) if p.strip()]
        self.exclude_patterns = [p for p in (exclude or []) if p.strip()]
        self._include = self._compile("include", self.include_patterns)
        self._exclude = self._compile("exclude", self.exclude_patterns)

    @staticmethod
    def _compile(what: str, patterns: list[str]) -> pathspec.PathSpec | None:
        if not patterns:
            return None
        for pattern in patterns:
            if pattern.startswith("!"):
                raise ValueError(f"{what} pattern {pattern!r}: '!' is not supported; use exclude instead")
        try:
            return pathspec.GitIgnoreSpec.from_lines(patterns)
        except Exception as exc:  # noqa: BLE001 - pathspec raises several kinds
            raise ValueError(f"{what} patterns {patterns!r}: {exc}") from None

    @property
    def active(self) -> bool:
        return self._include is not None or self._exclude is not None

    def allows(self, path: str) -> bool:
        if self._include is not None and not self._include.match_file(path):
            return False
        return not (self._exclude is not None and self._exclude.match_file(path))

    def check(self, indexed: Iterable[str]) -> None:
        """Raise ``ValueError`` when the globs leave no indexed file."""
        if self.active and not any(self.allows(p) for p in indexed):
            raise ValueError(f"include {self.include_patterns} / exclude {self.exclude_patterns} leave no indexed file")


def _fence(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def score_label(hit: Hit) -> str:
    """A hit's score as the prompt hook and `rag probe` print the same value: ``match 81%``
    (:func:`paqad.search.floor.percent`, rounded half up; round 8: MCP said ``confidence 0.81``
    for the passage the hook rated ``match 81%``), else its cosine, named as such."""
    from paqad.search.floor import percent

    if hit.confidence is not None:
        return f"match {percent(hit.confidence)}%"
    if hit.cosine is not None:
        return f"cosine {hit.cosine:.2f} (similarity, not a calibrated confidence)"
    return "keyword match (no similarity score)"


def hits_markdown(hits: Sequence[Hit], scored: bool = True) -> list[str]:
    lines: list[str] = []
    for hit in hits:
        heading = f"### {hit.location}"
        if hit.symbol:
            heading += f" · {hit.symbol}"
        if scored:
            heading += f" · {score_label(hit)}"
        fence = _fence(hit.text)
        lines += ["", heading, fence + (hit.language if hit.language.isalnum() else ""), hit.text.rstrip("\n"), fence]
    return lines


def header_lines(summary: str, index_note: str, degraded: str | None) -> list[str]:
    lines = [summary]
    if degraded:
        lines.append(f"Degraded: keyword search only, no semantic ranking ({degraded}).")
    lines.append(f"Index: {index_note}. Hints from an index: read the live file at these lines before relying on them.")
    return lines


def search_markdown(out: SearchOutput) -> str:
    noun = "result" if len(out.results) == 1 else "results"
    lines = header_lines(f"{len(out.results)} {noun} for {out.query!r}.", out.index, out.degraded)
    return "\n".join(lines + hits_markdown(out.results)) + "\n"


def symbol_markdown(out: SymbolOutput) -> str:
    kind = "definition" if len(out.results) == 1 else "definitions"
    summary = f"{len(out.results)} {kind} of {out.name!r}" + ("" if out.exact else " (case-insensitive: no exact match)") + "."
    return "\n".join(header_lines(summary, out.index, None) + hits_markdown(out.results, scored=False)) + "\n"


def grep_markdown(out: GrepOutput) -> str:
    what = "regex" if out.regex else "text"
    noun = "line" if len(out.matches) == 1 else "lines"
    summary = f"{len(out.matches)} matching {noun} for {what} {out.pattern!r} in {out.files_searched:,} indexed files" + \
        (" (truncated)" if out.truncated else "") + "."
    lines = header_lines(summary, out.index, None)
    current = None
    for m in out.matches:
        if m.path != current:
            lines += ["", f"{m.path}:"]
            current = m.path
        lines.append(f"  {m.line}: {m.text}")
    return "\n".join(lines) + "\n"


MAX_PATTERN_CHARS = 1000  # no line of code is matched by more; a longer one came back whole in the answer


def compile_pattern(pattern: str, regex: bool, case_sensitive: bool) -> re.Pattern[str]:
    """The ``grep`` tool's pattern: literal unless ``regex``. Raises ``ValueError`` (said to the client)
    for an empty pattern, one over :data:`MAX_PATTERN_CHARS` or an invalid regular expression."""
    if not pattern:
        raise ValueError("pattern is empty")
    if len(pattern) > MAX_PATTERN_CHARS:  # round 11: a 100,000-character pattern was echoed back in full
        raise ValueError(f"pattern is {len(pattern):,} characters; at most {MAX_PATTERN_CHARS:,}: grep for a "
                         "distinctive part of it")
    flags = 0 if case_sensitive else re.IGNORECASE
    if not regex:
        return re.compile(re.escape(pattern), flags)
    try:
        return re.compile(pattern, flags)
    except re.error as exc:
        raise ValueError(f"pattern {pattern!r} is not a valid regular expression: {exc}") from None


def grep_files(root: Path, paths: Sequence[str], pattern: re.Pattern[str], max_results: int) -> tuple[list[GrepMatch], int, bool]:
    """Matching lines of the live files ``paths`` (project-relative), at most ``max_results``.

    Returns ``(matches, files searched, truncated)``; stops at :data:`GREP_BUDGET_S`.
    """
    deadline = time.monotonic() + GREP_BUDGET_S
    matches: list[GrepMatch] = []
    searched = 0
    for rel in paths:
        if time.monotonic() > deadline:
            return matches, searched, True
        try:
            with open(root / fs_name(rel), "rb") as handle:  # stored UTF-8 text -> the OS's spelling
                data = handle.read(GREP_MAX_FILE_BYTES)
        except OSError:
            continue
        searched += 1
        text = redact_credentials(data.decode("utf-8", errors="replace"))  # the live file's keys stay in it
        if not pattern.search(text):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if pattern.search(line):
                if len(matches) >= max_results:
                    return matches, searched, True
                shown = line.rstrip()  # indentation kept: it shows where the line sits
                matches.append(GrepMatch(path=rel, line=number, text=shown if len(shown) <= MAX_LINE_CHARS else shown[:MAX_LINE_CHARS] + "…"))
    return matches, searched, False
