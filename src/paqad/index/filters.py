"""The four filters that decide which files are indexed (DESIGN §5), one decision per path.

Layers, in order; a path is rejected by the first layer that rejects it, with a reason code
``"<layer>:<rule>"``:

1. ``type``   — file type: Markdown, YAML, JSON and TOML always (TOML because ``pyproject.toml``
   and ``Cargo.toml`` say a lot about a project), named build/run files (``Dockerfile``,
   ``Makefile``, ``Justfile``, ``Procfile``), plus the active stack packs' extensions.
2. ``hard``   — no override: ``.paqad/``, AI tool folders and files, version-control folders,
   lockfiles, and entry files paqad-ai generated (``GENERATED_MARKER`` in their first 512 bytes).
3. ``ignore`` — git's ignore rules exactly (every ``.gitignore``, ``.git/info/exclude``; tracked
   files are never ignored, as in git), default dependency/build/cache folders, the stack
   packs' folders, ``.env``/``.env.*``, and ``.paqad/rag.ignore.yaml`` (``exclude:`` adds rules,
   ``include:`` cancels any layer-3 rejection).
4. ``check``  — symlinks (never followed), empty, too large (by ``stat``, before reading),
   binary (NUL byte in the first 8 KiB), not UTF-8, too few non-whitespace characters.

This module holds the rules; :mod:`paqad.index.discover` walks the tree and applies them.
"""

from __future__ import annotations

import codecs
import fnmatch
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import pathspec
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

from paqad.config import BINARY_SNIFF_BYTES, MIN_NON_WHITESPACE_CHARS
from paqad.errors import UserFileError
from paqad.index.stacks import suffix

GENERATED_MARKER = "<!-- paqad-ai:generated -->"
"""A line paqad-ai writes into the entry files it generates for AI tools (layer 2)."""
MARKER_SNIFF_BYTES = 512
"""How far into a file the generated marker is looked for, in bytes."""

MARKDOWN_EXTENSIONS = frozenset({".md", ".markdown", ".mdx", ".mdc"})
ALWAYS_EXTENSIONS = MARKDOWN_EXTENSIONS | frozenset({".yml", ".yaml", ".json", ".jsonc", ".toml"})
"""Indexed in every project, whatever its stacks (layer 1)."""
NAMED_FILES = frozenset(
    {"Dockerfile", "Containerfile", "Makefile", "makefile", "GNUmakefile", "Justfile", "justfile",
     ".justfile", "Procfile"}
)  # fmt: skip
"""Extension-less files indexed in every project; ``Dockerfile.*`` variants count too."""

PAQAD_DIR = ".paqad"
AI_TOOL_DIRS = frozenset(
    {".claude", ".cursor", ".codex", ".junie", ".roo", ".cline", ".windsurf", ".gemini",
     ".continue", ".kiro", ".amazonq"}
)  # fmt: skip
AI_TOOL_FILES = frozenset({".mcp.json", ".github/mcp.json", ".github/hooks/paqad-ai.json"})
"""AI tool files outside those folders, by project-relative path (layer 2, ``hard:ai-tool-file``):
the MCP server lists of Claude Code and Copilot CLI, and our own Copilot CLI hook, all written by
``hooks install`` (each host's ``settings_path``, ``mcp_path`` and ``rule_path`` in
:data:`paqad.hosts.HOSTS` is either here or under an :data:`AI_TOOL_DIRS` folder): a hook
command is no project content to hand an agent."""
VCS_DIRS = frozenset({".git", ".hg", ".svn", ".bzr", ".jj"})
"""Version-control metadata: never project content (layer 2, ``hard:vcs-dir``)."""
LOCKFILES = frozenset(
    {"package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock",
     "bun.lockb", "deno.lock", "poetry.lock", "uv.lock", "pdm.lock", "Pipfile.lock",
     "pixi.lock", "conda-lock.yml", "Cargo.lock", "go.sum", "go.work.sum", "Gemfile.lock",
     "composer.lock", "Podfile.lock", "Package.resolved", "packages.lock.json",
     "project.assets.json", "mix.lock", "pubspec.lock", "flake.lock", "gradle.lockfile",
     "Manifest.toml", "shard.lock", "cabal.project.freeze"}
)  # fmt: skip
"""Generated dependency pins (layer 2, ``hard:lockfile``)."""
DEFAULT_IGNORED_DIRS = frozenset(
    {"node_modules", "bower_components", "jspm_packages", ".venv", "venv", "__pycache__",
     "dist", "build", "target", ".next", ".nuxt", ".svelte-kit", ".turbo", ".parcel-cache",
     ".cache", "coverage", ".nyc_output", "htmlcov", ".tox", ".nox", ".mypy_cache",
     ".pytest_cache", ".ruff_cache", ".hypothesis", ".eggs", ".gradle", ".idea", ".terraform",
     ".serverless", ".sass-cache", ".direnv", ".devenv"}
)  # fmt: skip
"""Dependency, build and cache folders ignored in every project (layer 3,
``ignore:default-dir``). Deliberately absent: ``pkg``, ``bin``, ``env``, ``site``, ``out``,
``vendor`` — folders that hold source in some stacks; only the packs that use them as output
name them (``ignore:stack-dir``)."""


@dataclass(frozen=True)
class FilterDecision:
    """Whether one path is indexed.

    ``path`` is project-relative with ``/`` (a pruned folder ends with ``/``); ``reason`` is
    ``None`` when eligible, else ``"layer:rule"`` (e.g. ``"ignore:gitignore"``). ``size``
    (bytes), ``mtime_ns`` and ``ctime_ns`` (nanoseconds, ``os.stat``) and ``inode`` are set for
    eligible files, 0 otherwise.
    """

    path: str
    eligible: bool
    reason: str | None
    size: int = 0
    mtime_ns: int = 0
    ctime_ns: int = 0
    inode: int = 0


# --- Layer 1: file type ------------------------------------------------------------------------


def type_reason(name: str, extensions: frozenset[str], filenames: frozenset[str]) -> str | None:
    """``"type:extension"`` unless the file name is an indexed type.

    ``extensions`` are the active packs' extensions (lower case, with dot) and ``filenames``
    their exact extra names; :data:`ALWAYS_EXTENSIONS` and :data:`NAMED_FILES` always count.
    """
    ext = suffix(name)
    if ext in ALWAYS_EXTENSIONS or ext in extensions:
        return None
    if name in NAMED_FILES or name in filenames:
        return None
    if name.startswith(("Dockerfile.", "Containerfile.")) or ext == ".dockerfile":
        return None
    return "type:extension"


# --- Layer 2: hard exclusions ------------------------------------------------------------------


def hard_dir_reason(name: str) -> str | None:
    """The layer-2 reason for a folder called ``name`` (at any depth), or ``None``."""
    if name == PAQAD_DIR:
        return "hard:paqad-dir"
    if name in AI_TOOL_DIRS:
        return "hard:ai-tool-dir"
    if name in VCS_DIRS:
        return "hard:vcs-dir"
    return None


def read_regular(path: Path | str, limit: int = -1) -> bytes | None:
    """The first ``limit`` bytes (all when ``-1``) of ``path`` when it is a regular file, else
    ``None`` (also when it cannot be read). Opened without blocking and checked by ``fstat``
    before any read: a FIFO called ``notes.md`` or ``.gitignore`` blocked a plain ``open`` for
    ever (round 10), and with it ``init``, ``--explain`` and every background refresh."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with open(fd, "rb") as handle:
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            return handle.read(limit)
        except OSError:
            return None


def has_generated_marker(path: Path | str) -> bool:
    """True if :data:`GENERATED_MARKER` occurs in the first :data:`MARKER_SNIFF_BYTES` bytes of
    the regular file ``path``."""
    head = read_regular(path, MARKER_SNIFF_BYTES)
    return head is not None and GENERATED_MARKER.encode() in head


def hard_file_reason(path: Path | str, name: str, is_symlink: bool, rel: str = "") -> str | None:
    """The layer-2 reason for the file ``name`` at ``path``: lockfile, AI tool file (``rel``, its
    project-relative path, in :data:`AI_TOOL_FILES`) or generated entry file.

    Only Markdown files are read for the marker (it is an HTML comment), and never through a
    symlink (symlinks are not followed; layer 4 rejects them).
    """
    if name in LOCKFILES:
        return "hard:lockfile"
    if rel in AI_TOOL_FILES:
        return "hard:ai-tool-file"
    if not is_symlink and suffix(name) in MARKDOWN_EXTENSIONS and has_generated_marker(path):
        return "hard:generated-entry-file"
    return None


# --- Layer 3: ignore rules ---------------------------------------------------------------------


def is_env_file(name: str) -> bool:
    """``.env`` and ``.env.*`` (``.env.local``, ``.env.production.json``): may hold secrets."""
    return name == ".env" or name.startswith(".env.")


def dir_name_reason(name: str, stack_dirs: frozenset[str]) -> str | None:
    """Layer-3 reason for a folder called ``name``: default folder, stack folder or ``.env/``.

    ``stack_dirs`` are the active packs' ``excluded_dirs`` (names or ``fnmatch`` globs).
    """
    if name in DEFAULT_IGNORED_DIRS:
        return "ignore:default-dir"
    if name in stack_dirs or any(
        fnmatch.fnmatchcase(name, glob) for glob in stack_dirs if "*" in glob or "?" in glob
    ):
        return "ignore:stack-dir"
    if is_env_file(name):  # a virtualenv called .env, or a folder of env files
        return "ignore:env-file"
    return None


# pathspec compiles each gitignore line to a regex that matches the path *or anything under
# it* (its GitIgnoreSpec replays git on a flat file list). A walker that prunes ignored folders
# needs git's own per-entry test instead: does the pattern match exactly this file or folder?
# These are the tails pathspec ends its regexes with (pathspec 1.x, patterns/gitignore/spec.py).
_DIR_MARK_CG = "(?P<ps_d>/)"
_DIR_MARK_OPT = f"(?:{_DIR_MARK_CG}|$)"


def _exact_regex(pattern: GitIgnoreSpecPattern) -> re.Pattern[str]:
    """A regex to ``fullmatch`` against ``path`` (file) or ``path + "/"`` (folder).

    A regex shape this module does not know (a future pathspec) falls back to pathspec's own
    "path or anything under it" reading, which can only ignore more, never index more.
    """
    rx = pattern.regex.pattern
    source = pattern.pattern.rstrip() if isinstance(pattern.pattern, str) else ""
    if rx == ".":  # "*" or "**": everything
        exact = ".+"
    elif rx == "/":  # "**/*/**": everything below the top level
        exact = "[^/]+/.+"
    elif rx == _DIR_MARK_CG:  # "*/" or "**/": every folder
        exact = ".+/"
    elif rx.endswith(_DIR_MARK_OPT):  # "name", "a/b", "*.py": the file or folder itself
        exact = rx[: -len(_DIR_MARK_OPT)] + "/?"
    elif rx.endswith(_DIR_MARK_CG):  # "name/": folders only
        body = rx[: -len(_DIR_MARK_CG)]
        # pathspec folds "a/**/" into "a/" (same files underneath); git's "a/**/" matches the
        # folders under a/, not a/ itself.
        exact = body + ("/.+/" if source.endswith("/**/") else "/")
    elif rx.endswith("/"):  # "a/**": everything under a/, not a/ itself
        exact = rx + ".+"
    else:
        exact = f".*?(?:{rx}).*"
    return re.compile(exact, re.DOTALL)


def compile_ignore_lines(lines: Iterable[str]) -> tuple[tuple[re.Pattern[str], bool], ...]:
    """Compile gitignore lines to ``(exact regex, ignores)`` pairs in file order.

    ``ignores`` is False for a negated (``!``) pattern. Comments, blank lines and lines git
    would discard (bad ranges, a lone ``!``) are dropped.
    """
    rules: list[tuple[re.Pattern[str], bool]] = []
    for line in lines:
        try:
            pattern = GitIgnoreSpecPattern(line)
        except (ValueError, TypeError):  # GitIgnorePatternError is a ValueError
            continue
        if pattern.include is None or pattern.regex is None:
            continue
        rules.append((_exact_regex(pattern), bool(pattern.include)))
    return tuple(rules)


@dataclass(frozen=True)
class IgnoreLevel:
    """The patterns of one ignore file, matched relative to the folder that holds it.

    ``dir`` is the project-relative folder the file applies to (``""`` for the root, else
    ending with ``/``); ``prefix`` is prepended for a file above the project root (a project
    inside a larger git repository); ``source`` is ``"gitignore"`` or ``"git-info-exclude"``.
    """

    dir: str
    prefix: str
    source: str
    rules: tuple[tuple[re.Pattern[str], bool], ...]

    def match(self, rel: str, is_dir: bool) -> bool | None:
        """True (ignored), False (re-included by ``!``) or None (no pattern matched).

        ``rel`` is project-relative and lies under :attr:`dir`. As in git, the last matching
        pattern of the file wins.
        """
        local = self.prefix + rel[len(self.dir) :]
        subject = local + "/" if is_dir else local
        for regex, ignores in reversed(self.rules):
            if regex.fullmatch(subject):
                return ignores
        return None


def read_ignore_file(path: Path, dir: str, source: str, prefix: str = "") -> IgnoreLevel | None:
    """Load one ``.gitignore`` / ``info/exclude``; ``None`` if absent, unreadable, empty or not
    a regular file (a FIFO would block the walk)."""
    data = read_regular(path)
    if data is None:
        return None
    text = data.decode("utf-8", errors="replace")
    if text.startswith("\ufeff"):  # git skips a UTF-8 BOM (dir.c, add_patterns_from_buffer)
        text = text[1:]
    rules = compile_ignore_lines(text.splitlines())
    return IgnoreLevel(dir=dir, prefix=prefix, source=source, rules=rules) if rules else None


def git_ignore_reason(levels: Iterable[IgnoreLevel], rel: str, is_dir: bool) -> str | None:
    """Git's verdict for ``rel`` given the ignore files that apply, lowest precedence first.

    As in git, the most specific file with any matching pattern decides (deeper ``.gitignore``
    over shallower, any ``.gitignore`` over ``info/exclude``). Returns ``"ignore:gitignore"``,
    ``"ignore:git-info-exclude"`` or ``None``. Does not look at parent folders: the caller
    prunes ignored folders, since git never re-includes a file inside an ignored folder.
    """
    for level in reversed(list(levels)):
        verdict = level.match(rel, is_dir)
        if verdict is not None:
            return f"ignore:{level.source}" if verdict else None
    return None


@dataclass(frozen=True)
class RagIgnore:
    """``.paqad/rag.ignore.yaml``: gitignore-style globs relative to the project root.

    ``exclude`` globs add layer-3 rules (``ignore:rag-ignore-yaml``); ``include`` globs cancel
    a layer-1 (file type: how a language without a stack pack is added) or layer-3 rejection,
    never a layer-2 or layer-4 one. Globs follow gitignore syntax
    (``docs/``, ``*.gen.py``, ``/top-only.md``, ``a/**/b``); a folder glob covers its contents.
    """

    exclude: tuple[str, ...] = ()
    include: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "_exclude_spec", pathspec.GitIgnoreSpec.from_lines(self.exclude))
        object.__setattr__(self, "_include_spec", pathspec.GitIgnoreSpec.from_lines(self.include))

    def excludes(self, rel: str) -> bool:
        """True if an ``exclude`` glob matches the file ``rel`` (or a folder above it)."""
        return bool(self.exclude) and self._exclude_spec.match_file(rel)  # type: ignore[attr-defined]

    def excludes_dir(self, rel_dir: str) -> bool:
        """True if every file under folder ``rel_dir`` is excluded (so the walk can prune it).

        Only claimed when no ``!`` pattern could re-include something underneath.
        """
        if not self.exclude or any(p.lstrip().startswith("!") for p in self.exclude):
            return False
        return self._exclude_spec.match_file(rel_dir.rstrip("/") + "/")  # type: ignore[attr-defined]

    def includes(self, rel: str) -> bool:
        """True if an ``include`` glob matches the file ``rel`` (or a folder above it)."""
        return bool(self.include) and self._include_spec.match_file(rel)  # type: ignore[attr-defined]

    def could_include_under(self, rel_dir: str) -> bool:
        """Could an ``include`` glob match some path under folder ``rel_dir``? (Conservative.)

        Decides whether the walk must enter a folder that layer 3 ignores. A glob with no
        inner ``/`` (``*.gen.py``) matches at any depth, so it re-enters every ignored folder.
        """
        dir_parts = rel_dir.strip("/").split("/")
        for raw in self.include:
            glob = raw.strip()
            if not glob or glob.startswith(("#", "!")):
                continue
            anchored = glob.startswith("/")
            body = glob.strip("/")
            if not anchored and "/" not in body:
                return True
            parts = body.split("/")
            for i, dir_part in enumerate(dir_parts):
                if i >= len(parts) or parts[i] == "**":
                    return True  # the glob names a folder above rel_dir, or any depth
                if not fnmatch.fnmatchcase(dir_part, parts[i]):
                    break
            else:
                return True  # rel_dir is a prefix of the glob
        return False


def load_rag_ignore(path: Path) -> RagIgnore:
    """Read ``.paqad/rag.ignore.yaml`` (a mapping with optional ``exclude:``/``include:`` lists).

    A missing or empty file gives no rules. Raises :class:`~paqad.errors.PaqadError` naming the
    file when it is not valid YAML, not a mapping, has other keys, or a list holds non-strings.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return RagIgnore()
    except (OSError, UnicodeDecodeError) as exc:
        raise UserFileError(f"{path}: cannot read ({exc}); fix or delete the file") from exc
    import yaml  # only projects with this file pay for the import

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise UserFileError(
            f"{path}:{where} is not valid YAML; fix it (expected `exclude:`/`include:` glob lists)"
        ) from exc
    if data is None:
        return RagIgnore()
    if not isinstance(data, dict):
        raise UserFileError(f"{path}: expected a mapping with `exclude:` and/or `include:` lists of globs")
    unknown = sorted(str(k) for k in data if k not in ("exclude", "include"))
    if unknown:
        raise UserFileError(f"{path}: unknown key(s) {', '.join(unknown)}; allowed: exclude, include")
    lists: dict[str, tuple[str, ...]] = {}
    for key in ("exclude", "include"):
        value = data.get(key) or []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise UserFileError(f"{path}: `{key}:` must be a list of glob strings")
        for glob in value:
            try:  # compile now: a bad glob is the user's to fix, named, not a traceback later
                pathspec.GitIgnoreSpec.from_lines([glob]).match_file("probe/file")
            except (re.error, ValueError, TypeError) as exc:
                raise UserFileError(f"{path}: `{key}:` glob {glob!r} is not valid ({exc}); fix or remove it") from None
        lists[key] = tuple(value)
    return RagIgnore(exclude=lists["exclude"], include=lists["include"])


# --- Layer 4: file checks ----------------------------------------------------------------------


MINIFIED_LINE_CHARS = 5000
MINIFIED_MEAN_LINE_CHARS = 300


def size_reason(size: int, max_file_size: int) -> str | None:
    """The layer-4 checks decided from the size alone (no read): ``check:empty``, ``check:too-large``."""
    if size == 0:
        return "check:empty"
    if size > max_file_size:
        return "check:too-large"
    return None


def content_reason(path: Path, size: int, max_file_size: int) -> str | None:
    """Layer-4 reason for the regular file ``path`` of ``size`` bytes (from ``lstat``), or None.

    Order: empty, too large (decided from ``size`` before any read), binary (NUL byte in the
    first :data:`~paqad.config.BINARY_SNIFF_BYTES`), not UTF-8 (the whole file; a BOM is
    fine), fewer than :data:`~paqad.config.MIN_NON_WHITESPACE_CHARS` non-whitespace characters,
    minified (:func:`is_minified`).
    A file that cannot be read gives ``"check:unreadable"``.
    """
    reason = size_reason(size, max_file_size)
    if reason is not None:
        return reason
    try:
        data = path.read_bytes()
    except OSError:
        return "check:unreadable"
    if len(data) > max_file_size:  # grew since stat
        return "check:too-large"
    if not data:
        return "check:empty"
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        return "check:binary"
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return "check:not-utf8"
    if len("".join(text.split())) < MIN_NON_WHITESPACE_CHARS:
        return "check:too-few-chars"
    if is_minified(text):
        return "check:minified"
    return None


# Folders every project has, rejected by rule (``.git``, ``.paqad``): counting or listing them as
# "skipped" tells nobody anything (round 8: init said "8 skipped" where `--explain .` listed 6).
ALWAYS_SKIPPED = frozenset({"hard:vcs-dir", "hard:paqad-dir"})


def shown_as_skipped(decision: FilterDecision) -> bool:
    """Whether a rejected ``decision`` is one that init, status and ``--explain`` count as skipped:
    not :data:`ALWAYS_SKIPPED`, not a git worktree's or submodule's ``.git`` pointer file."""
    return bool(decision.reason) and decision.reason not in ALWAYS_SKIPPED and \
        decision.path.rsplit("/", 1)[-1] != ".git"


# What `rag status --explain FILE` adds to a file check's code: what it found and what to do
# (round 8, a new user: "latin1.go: not indexed (check:not-utf8)" said neither).
_CHECK_WORDS = {
    "check:empty": "the file is empty",
    "check:too-few-chars": f"fewer than {MIN_NON_WHITESPACE_CHARS} characters that are not white space: nothing to search",
    "check:minified": (f"a line over {MINIFIED_LINE_CHARS:,} characters, or lines of over {MINIFIED_MEAN_LINE_CHARS} "
                       "on average: minified or generated"),
    "check:symlink": "symbolic links are never followed; the file it points to is indexed where it lives in the project",
    "check:unreadable": "it cannot be read (permissions?): `ls -l` it",
    "check:not-utf8-name": "its name is not valid UTF-8: rename it to index it",
}


def check_detail(path: Path, reason: str, max_file_size: int) -> str:
    """What a layer-4 ``reason`` found in the file ``path`` and what to do, in one clause
    (``""`` for a reason of another layer). Reads at most the whole file (a too-large one: its
    size only). E.g. ``not valid UTF-8 (byte 0xf6 on line 4); paqad-ai indexes UTF-8 text only:
    convert it (`iconv -f latin1 -t utf-8`) to index it``."""
    if reason == "check:empty":
        try:
            if not stat.S_ISREG(path.stat().st_mode):  # a FIFO is size 0 and never read
                return "not a regular file (a FIFO, socket or device): never read"
        except OSError:
            return ""
    if reason == "check:symlink" and path.is_symlink() and not path.exists():  # not "indexed where it lives"
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        return f"a symbolic link to {target}, which does not exist: nothing to index"
    if reason in _CHECK_WORDS:
        return _CHECK_WORDS[reason]
    try:
        if reason == "check:too-large":
            size = path.stat().st_size
            return (f"{size / 1024:,.0f} KB, over rag_max_file_size={max_file_size}: run "
                    f"`paqad-ai config set rag_max_file_size {-(-size // 10240) * 10240}` to index it")  # sync.size_to_include
        if reason not in ("check:not-utf8", "check:binary"):
            return ""
        data = path.read_bytes()
    except OSError:
        return ""
    if reason == "check:binary":
        if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            return ("UTF-16 text (a byte-order mark, then NUL bytes); paqad-ai indexes UTF-8 text only: convert it "
                    "(`iconv -f utf-16 -t utf-8`) to index it")
        return f"a NUL byte in its first {BINARY_SNIFF_BYTES // 1024} KiB: not text"
    try:
        data.decode("utf-8-sig")
        return ""  # valid by now: it changed since
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return (f"not valid UTF-8 (byte 0x{data[exc.start]:02x} on line {line}); paqad-ai indexes UTF-8 text only: "
                "convert it (`iconv -f latin1 -t utf-8`, or the encoding it was written in) to index it")


_GENERATED_HEAD = re.compile(
    r"@generated|do not edit|generated by|autogenerated|auto-generated|code generated|this file is generated", re.IGNORECASE)
HAND_WRITTEN_SNIFF_BYTES = 65536


def looks_hand_written(path: Path) -> bool:
    """Whether a file too large to index looks like source a person wrote and maintains: a
    source language (by name), readable UTF-8, not minified, no "generated" / "do not edit"
    marker in its first lines. Reads at most :data:`HAND_WRITTEN_SNIFF_BYTES`."""
    from paqad.index.languages import SOURCE_LANGUAGES, language_for_path

    if language_for_path(path.name) not in SOURCE_LANGUAGES:
        return False
    try:
        with open(path, "rb") as handle:
            head = handle.read(HAND_WRITTEN_SNIFF_BYTES)
    except OSError:
        return False
    if b"\x00" in head[:BINARY_SNIFF_BYTES]:
        return False
    text = head.decode("utf-8", errors="ignore")
    first_lines = "\n".join(text.split("\n")[:15])
    return not _GENERATED_HEAD.search(first_lines) and not is_minified(text)


def is_minified(text: str) -> bool:
    """True for minified or generated one-line text (bundles, ``*.min.js``, packed data).

    A line over :data:`MINIFIED_LINE_CHARS` characters, or an average line over
    :data:`MINIFIED_MEAN_LINE_CHARS` in a file of some size, is not text a person reads or a
    chunker can cut at natural boundaries (it would become one chunk of 100 KB). The mean-line
    rule follows GitHub Linguist's minified-file heuristic (average line length > 110) with a
    more lenient bound, since hand-written data files can have long lines.
    """
    lines = text.count("\n") + 1
    if len(text) > 2000 and len(text) / lines > MINIFIED_MEAN_LINE_CHARS:
        return True
    return any(len(line) > MINIFIED_LINE_CHARS for line in text.split("\n"))
