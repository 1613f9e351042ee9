"""Which language a project file is written in, from its name (DESIGN §6).

The language decides how :mod:`paqad.index.chunking` cuts a file: languages in
:data:`SOURCE_LANGUAGES` are parsed with their tree-sitter grammar, ``markdown`` is cut at
headings, ``yaml``/``json``/``toml`` at top-level keys or tables, everything else (``text``,
``dockerfile``, ``make``, ...) at blank-line paragraphs.

Paths are project-relative with ``/`` (a ``\\`` is accepted too); only the last component is
looked at. Extensions are matched case-insensitively, special file names exactly and then
case-insensitively.
"""

from __future__ import annotations

import re
from enum import Enum
from types import MappingProxyType
from typing import Mapping

from paqad.index.grammar_files import grammar_files

# Language name -> file extensions (lower case, with the dot). Each extension appears once.
LANGUAGES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "python": (".py", ".pyi", ".pyw"),
        "javascript": (".js", ".jsx", ".mjs", ".cjs"),
        "typescript": (".ts", ".mts", ".cts"),
        "tsx": (".tsx",),
        "go": (".go",),
        "rust": (".rs",),
        "java": (".java",),
        "kotlin": (".kt", ".kts"),
        "c": (".c", ".h"),
        "cpp": (".cpp", ".cc", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".tpp", ".inl"),
        "csharp": (".cs", ".csx"),
        "ruby": (".rb", ".rake", ".gemspec", ".ru"),
        "php": (".php", ".phtml"),
        "swift": (".swift",),
        "scala": (".scala", ".sc", ".sbt"),
        "bash": (".sh", ".bash", ".zsh", ".ksh"),
        "lua": (".lua",),
        "markdown": (".md", ".markdown", ".mdx", ".mkd"),
        "yaml": (".yml", ".yaml"),
        "json": (".json", ".jsonc", ".json5"),
        "toml": (".toml",),
        "text": (".txt", ".rst", ".adoc"),
        "dockerfile": (".dockerfile",),
        "make": (".mk", ".mak"),
        "just": (".just",),
        "html": (".html", ".htm"),
        "css": (".css", ".scss", ".sass", ".less"),
        "sql": (".sql",),
        # grammar sources of a C/C++ build (the cpp stack indexes them): C actions inside rules no
        # grammar parses, so cut at blank-line paragraphs; code, not prose, for the path priors
        "yacc": (".y", ".yy"),
        "lex": (".l", ".ll"),
        "xml": (".xml", ".xsd", ".xsl", ".svg"),
    }
)

# Exact file names (no extension or a misleading one) -> language.
FILENAMES: Mapping[str, str] = MappingProxyType(
    {
        "Dockerfile": "dockerfile",
        "Containerfile": "dockerfile",
        "Makefile": "make",
        "makefile": "make",
        "GNUmakefile": "make",
        "Justfile": "just",
        "justfile": "just",
        ".justfile": "just",
        "Procfile": "procfile",
        "Gemfile": "ruby",
        "Rakefile": "ruby",
        "Podfile": "ruby",
        "Vagrantfile": "ruby",
        "Brewfile": "ruby",
        "Pipfile": "toml",
        "Cargo.lock": "toml",
        "poetry.lock": "toml",
        "uv.lock": "toml",
        "Pipfile.lock": "json",
        ".bashrc": "bash",
        ".bash_profile": "bash",
        ".zshrc": "bash",
        ".profile": "bash",
    }
)

# Languages parsed with a tree-sitter grammar (the official per-language wheels; the data-file
# languages are added below).
SOURCE_LANGUAGES: frozenset[str] = frozenset(
    {
        "python",
        "javascript",
        "typescript",
        "tsx",
        "go",
        "rust",
        "java",
        "kotlin",
        "c",
        "cpp",
        "csharp",
        "ruby",
        "php",
        "swift",
        "scala",
        "bash",
        "lua",
    }
)

# Languages of the long tail: one data file each (chunking/queries/<language>.scm, parsed with
# a grammar of tree-sitter-language-pack). Their extensions and file names join the tables above
# and they are source languages; a data file never takes over a name the tables already hold.
_DATA_FILES = grammar_files()
LANGUAGES = MappingProxyType(
    {**LANGUAGES, **{
        lang: tuple(ext for ext in data.extensions if not any(ext in exts for exts in LANGUAGES.values()))
        for lang, data in _DATA_FILES.items() if lang not in LANGUAGES
    }}
)  # fmt: skip
FILENAMES = MappingProxyType(
    {**{name: lang for lang, data in _DATA_FILES.items() for name in data.filenames}, **FILENAMES}
)
DATA_FILE_LANGUAGES: frozenset[str] = frozenset(_DATA_FILES) - SOURCE_LANGUAGES
SOURCE_LANGUAGES = SOURCE_LANGUAGES | DATA_FILE_LANGUAGES

_BY_EXTENSION: dict[str, str] = {ext: lang for lang, exts in LANGUAGES.items() for ext in exts}
_BY_LOWER_NAME: dict[str, str] = {name.lower(): lang for name, lang in FILENAMES.items()}

# Interpreter named on a "#!" line -> language, for scripts without an extension.
_SHEBANG_INTERPRETERS: dict[str, str] = {
    "python": "python",
    "node": "javascript",
    "deno": "typescript",
    "bash": "bash",
    "sh": "bash",
    "zsh": "bash",
    "ksh": "bash",
    "dash": "bash",
    "ruby": "ruby",
    "php": "php",
    "lua": "lua",
}
_INTERPRETER_NAME = re.compile(r"[a-z]+")


def language_for_path(rel_path: str) -> str:
    """Language name of a file from its path, ``"text"`` when unknown.

    ``rel_path`` is project-relative (``src/app/main.py``); only the file name counts.
    Examples: ``.h`` -> ``"c"``, ``.hpp`` -> ``"cpp"``, ``.tsx`` -> ``"tsx"``,
    ``Dockerfile`` and ``Dockerfile.dev`` -> ``"dockerfile"``, ``Makefile`` -> ``"make"``.
    Never raises.
    """
    name = rel_path.replace("\\", "/").rsplit("/", 1)[-1]
    if name in FILENAMES:
        return FILENAMES[name]
    lower = name.lower()
    if lower in _BY_LOWER_NAME:
        return _BY_LOWER_NAME[lower]
    if lower.startswith(("dockerfile.", "containerfile.")):
        return "dockerfile"
    dot = lower.rfind(".")
    if dot > 0 or (dot == 0 and lower.count(".") > 1):
        return _BY_EXTENSION.get(lower[dot:], "text")
    return "text"


# A `.h` header written in C++ (yaml-cpp, leveldb, re2 keep their C++ headers as `.h`): a
# namespace, template, class, access label or using-directive at a line's start. C has none of
# them (`extern "C"` guards and `struct x {` are C); the C grammar cuts a C++ header into garbage
# (`namespace YAML {` read as a function named YAML: no class or method in the symbol table).
# Measured, left off (bench/README.md "Round 6: C, C++ and Java"): cut as C++, dev yaml-cpp's
# symbol queries gain (nDCG 0.933 -> 0.996, def@1 0.917 -> 1.0) but its where/architecture
# questions lose (0.764 -> 0.744, 0.484 -> 0.403), and test C++ loses 0.749 -> 0.728.
CPP_HEADERS_BY_CONTENT = False
_CPP_HEADER = re.compile(
    r"^[ \t]*(?:namespace(?:[ \t]+[\w:]+)?[ \t]*\{|template[ \t]*<|class[ \t]+\w+(?:[ \t]+\w+)*[ \t]*(?:final[ \t]*)?"
    r"(?:[:{]|$)|(?:public|private|protected)[ \t]*:|using[ \t]+namespace[ \t]+\w)",
    re.MULTILINE,
)


def language_for_file(rel_path: str, text: str, cpp_headers: bool = CPP_HEADERS_BY_CONTENT) -> str:
    """Language of a file from its path and its text: :func:`language_for_path`, except that, with
    ``cpp_headers`` (default :data:`CPP_HEADERS_BY_CONTENT`, off), a ``.h`` header whose text has
    C++ syntax (a ``namespace X {``, ``template <``, ``class X {``, ``public:`` or ``using
    namespace`` line) is ``"cpp"``, not ``"c"``. Never raises."""
    language = language_for_path(rel_path)
    if cpp_headers and language == "c" and rel_path.lower().endswith(".h") and is_cpp_header(text):
        return "cpp"
    return language


def is_cpp_header(text: str) -> bool:
    """Whether a header's text has C++ syntax (see :func:`language_for_file`)."""
    return bool(_CPP_HEADER.search(text))


def language_for_shebang(first_line: str) -> str | None:
    """Language named by a ``#!`` line (``#!/usr/bin/env python3`` -> ``"python"``), else None."""
    if not first_line.startswith("#!"):
        return None
    words = first_line[2:].split()
    if words and words[0].rsplit("/", 1)[-1] == "env":
        words = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
    if not words:
        return None
    match = _INTERPRETER_NAME.match(words[0].rsplit("/", 1)[-1])
    return _SHEBANG_INTERPRETERS.get(match.group(0)) if match else None


class Chunking(str, Enum):
    """How a language's files are cut (what ``rag status`` prints per language)."""

    GRAMMAR = "grammar"  # a tree-sitter grammar wheel of its own
    LANGUAGE_PACK = "grammar (language pack)"  # a data file + tree-sitter-language-pack
    HEADINGS = "headings"
    KEYS = "top-level keys"
    PARAGRAPHS = "paragraphs (no grammar)"


def chunking_for(language: str) -> Chunking:
    """How files of ``language`` (a name from :func:`language_for_path`) are cut; never raises."""
    if language in DATA_FILE_LANGUAGES:
        return Chunking.LANGUAGE_PACK
    if language in SOURCE_LANGUAGES:
        return Chunking.GRAMMAR
    if language == "markdown":
        return Chunking.HEADINGS
    if language in ("yaml", "json", "toml"):
        return Chunking.KEYS
    return Chunking.PARAGRAPHS
