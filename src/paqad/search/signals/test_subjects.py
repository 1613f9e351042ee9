"""A test file's subject (issue 24, round 8): when a test file outranks the module it tests, the
module is raised to ``test_subject_share`` x the test's score (1.05 by default: just above it).

A prompt about a change (a commit message, a pasted report) often names the test that shows it
(``tests/Handler/Network/StreamHandlerTest.php``) or says "tests" in its body, which waives the
tests prior: the test then leads and the code it exercises (``src/Handler/StreamHandler.php``)
comes third or later. The test's own name says which module it is about, so that module is
evidence too.

A candidate test file (:func:`~paqad.search.priors.is_test_path`, or a ``_unittest`` / ``Tests``
name) maps to its subject by its file name (:func:`subject_stem`: ``test_foo.py``, ``foo_test.go``,
``foo_spec.rb``, ``foo.test.ts``, ``FooTest.java``, ``FooTests.cs``, ``foo_unittest.cc`` -> ``foo``);
the subject is the candidate non-test file with that stem (a code file: same extension family,
headers for C/C++) whose folder shares the longest tail with the test's folder
(``tests/Handler/`` -> ``src/Handler/``). When the test's best chunk outscores the subject's best
chunk, the subject's best chunk is raised to ``test_subject_share`` x the test's best score
(0.0 = off). Only candidates move: a subject outside the fused pools stays out.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from paqad.search.priors import is_test_path

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

# the affixes a test file's name adds to its subject's (longest first within each shape)
_PREFIX = re.compile(r"^tests?_(?=.)")
_SUFFIX = re.compile(r"(?<=.)(_unittests?|_tests?|_specs?|Tests?|Specs?|IT)$")
_DOTTED = re.compile(r"(?<=.)\.(test|spec|tests|specs)$")
_UNITTEST = re.compile(r"(_unittest|Tests?)\.[A-Za-z]+$")
# extensions that hold the same language's code (a C++ test of a .cc may be about its .h)
_FAMILIES = (
    frozenset({"c", "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx", "ipp", "inl"}),
    frozenset({"js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts"}),
)


def _split_name(path: str) -> tuple[str, str, str]:
    """(folder, stem, extension) of ``path``: ``a/b/foo.test.ts`` -> (``a/b``, ``foo.test``, ``ts``)."""
    folder, _, name = path.rpartition("/")
    stem, dot, ext = name.rpartition(".")
    return (folder, stem, ext) if dot else (folder, name, "")


def subject_stem(path: str) -> str | None:
    """The stem of the module a test file is about, or None when its name carries no test affix
    (``tests/helpers.py``): ``tests/test_make.py`` -> ``make``, ``FooTest.java`` -> ``Foo``,
    ``src/logging_unittest.cc`` -> ``logging``, ``lib/foo.spec.ts`` -> ``foo``."""
    _, stem, _ = _split_name(path)
    for pattern in (_DOTTED, _PREFIX, _SUFFIX):
        bare = pattern.sub("", stem)
        if bare != stem:
            return bare
    return None


def is_test_file(path: str) -> bool:
    """A test file for this signal: the path priors' test rule, or a ``_unittest`` / ``Tests`` name."""
    return is_test_path(path) or bool(_UNITTEST.search(path))


def _same_family(a: str, b: str) -> bool:
    return a == b or any(a in family and b in family for family in _FAMILIES)


def _shared_tail(a: str, b: str) -> int:
    """How many trailing folder components ``a`` and ``b`` share (``tests/Handler``, ``src/Handler``: 1)."""
    pa, pb = [p for p in a.split("/") if p], [p for p in b.split("/") if p]
    n = 0
    while n < min(len(pa), len(pb)) and pa[-1 - n] == pb[-1 - n]:
        n += 1
    return n


def subject_of(test_path: str, paths: list[str]) -> str | None:
    """The subject of ``test_path`` among ``paths`` (non-test files of the same stem and extension
    family; the one whose folder shares the longest tail with the test's, then the same extension,
    then the shortest path), or None."""
    stem = subject_stem(test_path)
    if not stem:
        return None
    folder, _, ext = _split_name(test_path)
    found = []
    for path in paths:
        if path == test_path or is_test_file(path):
            continue
        p_folder, p_stem, p_ext = _split_name(path)
        if p_stem == stem and _same_family(ext, p_ext):
            found.append((-_shared_tail(folder, p_folder), p_ext != ext, len(path), path))
    return min(found)[-1] if found else None


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with each outranked subject's best chunk raised under its test (see the module docstring)."""
    share = context.options.test_subject_share
    by_file = context.files_best_first(scores)
    paths = list(by_file)
    out = dict(scores)
    for path, ids in by_file.items():
        if not is_test_file(path):
            continue
        subject = subject_of(path, paths)
        if subject is None:
            continue
        lead, best = scores[ids[0]], by_file[subject][0]
        if out[best] < share * lead:
            out[best] = share * lead
    return out
