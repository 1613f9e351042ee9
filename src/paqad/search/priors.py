"""Path priors and path words: what a file's path says about its relevance (DESIGN §8.4).

Multiplicative priors (:func:`path_kinds` names them) discount files that mention a topic more
often than they implement it: tests, examples and benchmarks, vendored copies (and translated
docs), compatibility shims, re-export barrels, type stubs, changelogs, prose for questions about
behaviour, and data files (YAML/JSON/TOML: CI workflows, configs) unless the query is about
configuration or the build. Each is
waived when the query asks for that kind of file ("which test covers ...", "the README").
Path words (:func:`path_word_share`) reward prose queries whose words name the file or its
folder ("thread" -> ``thread.c``, "dependency injection" -> ``dependencies/``).

The factors are starting points from semble's ranking stack (see ``shared/ANCHORS.md``), tuned on
the benchmark's dev half (``bench/ranking/run.py``); the values in force are the fields of
:class:`paqad.search.ranking.RankingOptions`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from paqad.index.tokens import case_shape

_EXAMPLE = re.compile(r"(^|/)(examples?|samples?|demos?|docs_src|benchmarks?|bench|perf[\w-]*|performance[\w-]*|"
                      r"__performance_tests__|playground|sandbox)(/|$)", re.IGNORECASE)
_TRANSLATION = re.compile(r"(^|/)(i18n|l10n|locales?|translations?)(/|$)", re.IGNORECASE)
_VENDORED = re.compile(
    r"(^|/)(vendor|vendored|third[_-]?party|thirdparty|external|extern|deps|contrib|_vendor|googletest|gtest|"
    r"node_modules)(/|$)", re.IGNORECASE)
_COMPAT = re.compile(r"(^|/)(compat|legacy|deprecated|polyfills?|shims?)(/|[._-]|$)", re.IGNORECASE)
_TEST_EXTRA = re.compile(r"(^|/)(testdata|test[_-]?data|fixtures?|testing|spec)(/|$)|Tests?\.(java|kt|cs|php|swift)$"
                         r"|_spec\.rb$|\.test-d\.ts$")
_STUB = re.compile(r"\.d\.[cm]?ts$|\.pyi$")
_CHANGELOG = re.compile(r"(^|/)(changelog|changes|history|news|release[-_ ]?notes|upgrad\w*|migration\w*)(\.[a-z]+)?$",
                        re.IGNORECASE)
_BARREL_NAMES = re.compile(r"(^|/)(__init__\.py|package-info\.java|index\.[cm]?[jt]sx?|mod\.rs)$")
_REEXPORT_LINE = re.compile(r"^\s*(export\s+(\*|\{|type\s+\{)|import\s|from\s+\S+\s+import\s|pub\s+(use|mod)\s|"
                            r"module\.exports|exports\.|require\(|#|//|$)")
# Files a pasted bug report shares boilerplate with, not code: issue/PR/discussion templates and
# a docs build's conf.py (issue 24: they took 33 of 110 top-5 slots on two projects' issues).
_TEMPLATE = re.compile(r"(^|/)\.github/(ISSUE_TEMPLATE|PULL_REQUEST_TEMPLATE|DISCUSSION_TEMPLATE)(/|\.|$)"
                       r"|(^|/)(ISSUE|PULL_REQUEST)_TEMPLATE(\.\w+)?$|(^|/)docs?/(source/)?conf\.py$", re.IGNORECASE)
PROSE_LANGUAGES = frozenset({"markdown", "text"})
DATA_LANGUAGES = frozenset({"yaml", "json", "toml"})
# a documentation site's folder: its YAML/JSON pages are prose stored as data (issue 24, round 6)
_DOCS_FOLDER = re.compile(r"(^|/)(docs?|documentation|website|site|book|manual)/", re.IGNORECASE)

_TEST_PATH = re.compile(r"(^|/)(tests?|__tests__|spec|specs)/|(^|/)test_[^/]*$|_test\.[a-z]+$|\.(test|spec)\.[a-z]+$|(^|/)conftest\.py$")

PRIOR_KINDS = ("tests", "examples", "vendored", "compat", "barrel", "stub", "changelog", "prose", "data", "templates")


def is_test_path(path: str) -> bool:
    """True for files that hold tests: ``tests/``, ``test_x.py``, ``x_test.go``, ``x.spec.ts``, ``conftest.py``."""
    return bool(_TEST_PATH.search(path))


@lru_cache(maxsize=16384)
def _path_only_kinds(path: str, language: str) -> frozenset[str]:
    kinds = set()
    if is_test_path(path) or _TEST_EXTRA.search(path):
        kinds.add("tests")
    if _EXAMPLE.search(path):
        kinds.add("examples")
    if _VENDORED.search(path) or _TRANSLATION.search(path):
        kinds.add("vendored")  # copies: of someone else's code, or of the docs in another language
    if _COMPAT.search(path):
        kinds.add("compat")
    if _STUB.search(path):
        kinds.add("stub")
    if _CHANGELOG.search(path):
        kinds.add("changelog")
    if language in PROSE_LANGUAGES:
        kinds.add("prose")
    if language in DATA_LANGUAGES:
        kinds.add("data")
    if _TEMPLATE.search(path):
        kinds.add("templates")
    return frozenset(kinds)


def path_kinds(path: str, language: str, text: str) -> frozenset[str]:
    """Which :data:`PRIOR_KINDS` a chunk's file (and, for barrels, its text) falls under."""
    kinds = _path_only_kinds(path, language)
    if _BARREL_NAMES.search(path) and is_reexport_text(text):
        kinds = kinds | {"barrel"}
    return kinds


def is_reexport_text(text: str, also: re.Pattern[str] | None = None) -> bool:
    """True when 80 % or more of a chunk's non-blank lines only import, re-export, declare a
    module or comment (a barrel's text: ``pub use crate::buf::Buf;``, ``export * from './x'``);
    ``also``: more lines that count (a caller's language-specific forms)."""
    lines = [line for line in text.split("\n") if line.strip()]
    counted = sum(1 for line in lines if _REEXPORT_LINE.match(line) or (also is not None and also.match(line)))
    return bool(lines) and counted >= 0.8 * len(lines)


def is_docs_data(path: str, language: str) -> bool:
    """True for a data file (YAML/JSON/TOML) under a documentation folder: the pages of a docs
    site kept as data (jq's ``docs/content/manual/v1.7/manual.yml``), prose for the priors."""
    return language in DATA_LANGUAGES and bool(_DOCS_FOLDER.search(path))


# Share of a project's source files under a kind that makes the kind its main code. Tests often
# outnumber the code they test, so they need (nearly) all of it.
MAIN_CODE_SHARE = {"tests": 0.9, "examples": 0.5, "vendored": 0.5, "compat": 0.5}


def exempt_kinds(paths: tuple[str, ...]) -> frozenset[str]:
    """Path-prior kinds that hold most of the project's source files, and so say nothing about a
    file: a package called ``demo/``, a test framework whose code lives under ``testing/``."""
    from paqad.index.languages import SOURCE_LANGUAGES, language_for_path

    source = [p for p in paths if language_for_path(p) in SOURCE_LANGUAGES]
    if not source:
        return frozenset()
    exempt = set()
    kinds = [path_kinds(p, "", "") for p in source]
    for kind, share in MAIN_CODE_SHARE.items():
        if sum(1 for k in kinds if kind in k) >= share * len(source):
            exempt.add(kind)
    return frozenset(exempt)


_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def _name_parts(name: str) -> list[str]:
    """:data:`_PARTS` of ``name`` in any script (matched on its case_shape), lowercased."""
    return [name[m.start():m.end()].lower() for m in _PARTS.finditer(case_shape(name))]


@lru_cache(maxsize=8192)
def path_parts(path: str) -> tuple[str, ...]:
    """Lower-case identifier parts of a file's name (without extension) and its parent folder:
    ``src/http_client/RetryPolicy.java`` -> ``('retry', 'policy', 'http', 'client')``."""
    pieces = path.split("/")
    stem = pieces[-1].split(".", 1)[0]
    parent = pieces[-2] if len(pieces) > 1 else ""
    return tuple(_name_parts(stem) + _name_parts(parent))


@lru_cache(maxsize=16384)
def stem_parts(path: str) -> tuple[str, ...]:
    """Lower-case identifier parts of a file's name without extension (and without the folder):
    ``src/http_client/RetryPolicy.java`` -> ``('retry', 'policy')``."""
    stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
    return tuple(_name_parts(stem))


def similar(word: str, part: str) -> bool:
    """Same word, or a shared prefix of at least 3 characters covering the shorter one but for
    its last 3 ("dependency" ~ "dependencies", "thread" ~ "threads", not "tree" ~ "trend")."""
    if word == part:
        return True
    shorter = min(len(word), len(part))
    if shorter < 3:
        return False
    common = 0
    for a, b in zip(word, part):
        if a != b:
            break
        common += 1
    return common >= max(3, shorter - 3) and common >= shorter * 0.6


@lru_cache(maxsize=16384)
def path_word_share(words: tuple[str, ...], path: str) -> float:
    """Share of the query's words (lower case, stopwords removed) that name the file or its folder."""
    if not words:
        return 0.0
    parts = path_parts(path)
    if not parts:
        return 0.0
    exact = set(parts)
    matched = sum(1 for w in words if w in exact or any(similar(w, p) for p in parts))
    return matched / len(words)


@lru_cache(maxsize=16384)
def symbol_word_share(words: tuple[str, ...], symbol: str) -> float:
    """Share of the query's words that name parts of a chunk's symbol (``calculateRetryDelay``
    for "how is the retry delay calculated"), with the same similarity as :func:`path_word_share`."""
    if not words or not symbol:
        return 0.0
    last = symbol.replace("::", ".").rsplit(".", 1)[-1]
    parts = tuple(p for piece in last.split("_") for p in _name_parts(piece))
    if not parts:
        return 0.0
    exact = set(parts)
    return sum(1 for w in words if w in exact or any(similar(w, p) for p in parts)) / len(words)
