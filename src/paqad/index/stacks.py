"""Stack packs: which source files a project's languages add to the index (DESIGN §5, layer 1).

A stack pack names a language family, the file extensions it contributes to layer 1, the
folders it writes build output or dependencies into (layer 3, reason ``ignore:stack-dir``),
and the manifest files that reveal it. :func:`detect_stacks` picks the active packs from the
manifests at the project root and one folder down; a project with no manifest at all falls
back to the extensions present in its tree, so a plain folder of ``.py`` files still gets its
Python indexed. The shell pack is always active (shell scripts carry no manifest).
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from pathlib import Path

from paqad.index.grammar_files import grammar_files


@dataclass(frozen=True)
class StackPack:
    """One language family.

    ``extensions`` are lower-case suffixes with the dot (``".py"``); ``excluded_dirs`` are
    folder names (``fnmatch`` globs allowed, e.g. ``"*.egg-info"``) that hold this stack's
    output or dependencies; ``manifests`` are file names or globs whose presence detects it;
    ``filenames`` are extra exact file names it makes indexable (``Gemfile``, ``CMakeLists.txt``).
    """

    name: str
    extensions: frozenset[str]
    excluded_dirs: frozenset[str]
    manifests: tuple[str, ...]
    filenames: frozenset[str] = field(default_factory=frozenset)


def _pack(
    name: str,
    extensions: str,
    excluded_dirs: str = "",
    manifests: str = "",
    filenames: str = "",
) -> StackPack:
    return StackPack(
        name=name,
        extensions=frozenset(extensions.split()),
        excluded_dirs=frozenset(excluded_dirs.split()),
        manifests=tuple(manifests.split()),
        filenames=frozenset(filenames.split()),
    )


# Folder names below are each ecosystem's documented default output/dependency locations.
# Generic names (`bin`, `out`, `pkg`, `env`, `site`) appear only in the packs whose tools
# write there (C#/.NET `bin`+`obj`, IntelliJ/Gradle `out`), never as global defaults.
PYTHON = _pack(
    "python",
    ".py .pyi .rst",  # Python projects write their docs in reStructuredText (Sphinx)
    ".venv venv .tox .nox .mypy_cache .pytest_cache .ruff_cache .pytype __pycache__ .eggs "
    "*.egg-info .hypothesis htmlcov .ipynb_checkpoints __pypackages__",
    "pyproject.toml setup.py setup.cfg requirements*.txt Pipfile",
)
JAVASCRIPT = _pack(
    "javascript",
    ".js .jsx .mjs .cjs .vue .svelte",  # and the single-file components a JavaScript project holds
    "node_modules bower_components .next .nuxt .svelte-kit .turbo .parcel-cache .yarn "
    ".nyc_output .vercel .output storybook-static",
    "package.json",
)
TYPESCRIPT = _pack(
    "typescript",
    ".ts .tsx .mts .cts",
    "node_modules .next .nuxt .svelte-kit .turbo",
    "package.json tsconfig.json deno.json deno.jsonc",
)
GO = _pack("go", ".go", "vendor", "go.mod go.work")
RUST = _pack("rust", ".rs", "target", "Cargo.toml")
_JVM_MANIFESTS = "pom.xml build.gradle build.gradle.kts settings.gradle settings.gradle.kts"
JAVA = _pack("java", ".java", "target build .gradle out", _JVM_MANIFESTS)
KOTLIN = _pack("kotlin", ".kt .kts", "target build .gradle out .kotlin", _JVM_MANIFESTS)
RUBY = _pack("ruby", ".rb .rake .gemspec .ru", ".bundle", "Gemfile *.gemspec", "Gemfile Rakefile Vagrantfile")
PHP = _pack("php", ".php", "vendor", "composer.json")
CSHARP = _pack("csharp", ".cs .csx", "bin obj packages", "*.csproj *.sln")
CPP = _pack(
    "cpp",
    # .y/.yy (yacc, bison) and .l/.ll (lex, flex): grammar sources whose actions are C/C++, compiled
    # into the project's parser.c/lexer.c (jqlang/jq: its filter language is defined in src/parser.y)
    ".c .h .cc .cpp .cxx .c++ .hh .hpp .hxx .h++ .inl .ipp .cmake .y .yy .l .ll",
    "cmake-build-debug cmake-build-release CMakeFiles",
    # configure.ac / configure.in: an autotools build, whose Makefile is generated and so absent
    # from the tree (jqlang/jq: without these its src/*.c were never indexed)
    "CMakeLists.txt meson.build configure.ac configure.in",
    "CMakeLists.txt",
)
SWIFT = _pack("swift", ".swift", ".build .swiftpm DerivedData Pods Carthage", "Package.swift Podfile")
SCALA = _pack("scala", ".scala .sc", "target .bloop .metals .bsp", "build.sbt")
LUA = _pack("lua", ".lua", "lua_modules .luarocks", "*.rockspec")
SHELL = _pack("shell", ".sh .bash .zsh")


def _data_file_packs() -> tuple[StackPack, ...]:
    """One pack per language data file (chunking/queries/*.scm) that names manifests: the long
    tail (Elixir's ``mix.exs``, Dart's ``pubspec.yaml``, Haskell's ``*.cabal``, ...)."""
    return tuple(
        StackPack(
            name=data.language,
            extensions=frozenset(data.extensions),
            excluded_dirs=frozenset(data.excluded_dirs),
            manifests=data.manifests,
            filenames=frozenset(data.filenames),
        )
        for data in grammar_files().values()
        if data.manifests
    )


STACK_PACKS: tuple[StackPack, ...] = (
    PYTHON, JAVASCRIPT, TYPESCRIPT, GO, RUST, JAVA, KOTLIN, RUBY, PHP, CSHARP, CPP, SWIFT,
    SCALA, LUA, *_data_file_packs(),
)  # fmt: skip
"""Packs detected from manifests (or, with no manifest, extensions). SHELL is always added."""

ALWAYS_ACTIVE: tuple[StackPack, ...] = (SHELL,)

# A Makefile alone says little; with C/C++ sources beside it, it is a C/C++ build.
_MAKEFILES = ("Makefile", "makefile", "GNUmakefile")
_C_EXTENSIONS = frozenset({".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh"})

# Folders never worth scanning for manifests or for the no-manifest extension fallback.
_SCAN_SKIP = frozenset(
    {"node_modules", ".venv", "venv", "__pycache__", "dist", "build", "target", ".git", ".hg",
     ".svn", ".paqad", ".tox", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".gradle", ".idea"}
)  # fmt: skip


def suffix(name: str) -> str:
    """Lower-case extension of a file name with its dot (``"a.PY"`` -> ``".py"``); ``""`` if none.

    A leading dot alone is not an extension (``".bashrc"`` -> ``""``), as in :func:`os.path.splitext`.
    """
    return os.path.splitext(name)[1].lower()


MANIFEST_DEPTH = 3  # levels below the root searched for manifests
MANIFEST_SCAN_FOLDERS = 2000  # keeps detection fast on huge trees


def _scan_dir(path: Path) -> tuple[list[str], list[Path]]:
    """Names of regular files and paths of non-hidden sub-folders of ``path`` (no symlinks)."""
    files: list[str] = []
    dirs: list[Path] = []
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                if entry.is_symlink():
                    continue
                if entry.is_dir():
                    if not entry.name.startswith(".") and entry.name not in _SCAN_SKIP:
                        dirs.append(Path(entry.path))
                elif entry.is_file():
                    files.append(entry.name)
    except OSError:
        pass
    return files, dirs


def _manifest_packs(names: list[str]) -> set[str]:
    found: set[str] = set()
    for pack in STACK_PACKS:
        if any(fnmatch.filter(names, pattern) for pattern in pack.manifests):
            found.add(pack.name)
    if any(m in names for m in _MAKEFILES) and any(suffix(n) in _C_EXTENSIONS for n in names):
        found.add(CPP.name)
    return found


# The no-manifest fallback stops looking after this many folders: enough to see a project's
# languages, and a bound on the cost for a huge unignored data tree.
_FALLBACK_MAX_DIRS = 5000


def _extensions_in_tree(root: Path) -> set[str]:
    """File extensions under ``root`` (breadth first, at most ``_FALLBACK_MAX_DIRS`` folders),
    skipping hidden and dependency/build folders."""
    seen: set[str] = set()
    queue = [root]
    for folder in queue:
        if len(queue) > _FALLBACK_MAX_DIRS:
            break
        files, dirs = _scan_dir(folder)
        seen.update(suffix(n) for n in files)
        queue.extend(dirs)
    return seen


def detect_stacks(root: Path) -> list[StackPack]:
    """Active stack packs of the project at ``root``, in :data:`STACK_PACKS` order, shell last.

    Manifests are looked for in ``root`` and its non-hidden sub-folders down to
    :data:`MANIFEST_DEPTH` levels (monorepos with ``services/billing/pyproject.toml``), at most
    :data:`MANIFEST_SCAN_FOLDERS` folders. When no manifest is found anywhere, packs are
    chosen by the extensions present in the tree instead. Never raises for unreadable folders.
    """
    root = Path(root)
    names: list[str] = []
    level, scanned = [root], 0
    for _ in range(MANIFEST_DEPTH + 1):
        next_level: list[Path] = []
        for folder in level:
            if scanned >= MANIFEST_SCAN_FOLDERS:
                break
            files, dirs = _scan_dir(folder)
            names.extend(files)
            next_level.extend(dirs)
            scanned += 1
        level = next_level
    found = _manifest_packs(names)
    if not found:
        present = _extensions_in_tree(root)
        found = {p.name for p in STACK_PACKS if p.extensions & present}
    active = [p for p in STACK_PACKS if p.name in found]
    return active + list(ALWAYS_ACTIVE)


def pack_by_name(name: str) -> StackPack:
    """The pack called ``name``; raises ``KeyError`` for an unknown name."""
    for pack in (*STACK_PACKS, *ALWAYS_ACTIVE):
        if pack.name == name:
            return pack
    raise KeyError(name)
