"""C/C++ test and benchmark sources the path priors miss (issue 24, round 8).

The ``tests`` path prior knows ``test/``, ``tests/``, ``test_x.c`` and ``x_test.cc``
(:func:`paqad.search.priors.is_test_path`), but C and C++ libraries also name their test
sources ``snappy_unittest.cc``, ``crc32c_extend_unittests.h``, ``snappy-test.cc`` (googletest
helpers) and put their micro-benchmarks and fuzz targets beside the code (``snappy_benchmark.cc``,
``snappy_compress_fuzzer.cc``, ``crc32c_benchmark.cc``). Such a file repeats the names of the code
it exercises, so a question about behaviour found ``snappy_unittest.cc`` first (snappy dev cases
07, 09, 14). With ``RankingOptions.c_test_files`` on, for a C or C++ chunk (``c``/``cpp``):

- ``tests`` when its file's stem ends in ``_unittest``, ``_unittests``, ``-test``, ``_tests``,
  ``-tests`` or ``-unittest``, or when the chunk itself is a googletest/benchmark body (a line
  starting ``TEST(``, ``TEST_F(``, ``TEST_P(``, ``TYPED_TEST(``, ``TYPED_TEST_P(``,
  ``INSTANTIATE_TEST_SUITE_P(``, ``INSTANTIATE_TYPED_TEST_SUITE_P(`` or ``REGISTER_TYPED_TEST_SUITE_P(``);
- ``examples`` (the benchmarks' prior, as for a ``bench/`` folder) when the stem ends in
  ``_benchmark``, ``-benchmark``, ``_bench``, ``_fuzzer`` or ``_fuzz``.

The kinds are then waived like any other: a query asking for tests gets the test files at full
weight. No tuned parameter.
"""

from __future__ import annotations

import re
from functools import lru_cache

C_LANGUAGES = frozenset({"c", "cpp"})
_TEST_STEM = re.compile(r"[_-](unit)?tests?$|-unittests?$", re.IGNORECASE)
_BENCH_STEM = re.compile(r"[_-](benchmarks?|bench|fuzzer|fuzz)$", re.IGNORECASE)
_GTEST_LINE = re.compile(
    r"^[ \t]*(TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P|INSTANTIATE_TEST_SUITE_P|INSTANTIATE_TYPED_TEST_SUITE_P|"
    r"REGISTER_TYPED_TEST_SUITE_P)[ \t]*\(", re.MULTILINE)


@lru_cache(maxsize=16384)
def _stem_kinds(path: str) -> frozenset[str]:
    stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
    kinds = set()
    if _TEST_STEM.search(stem):
        kinds.add("tests")
    if _BENCH_STEM.search(stem):
        kinds.add("examples")
    return frozenset(kinds)


def c_test_kinds(path: str, language: str, text: str) -> frozenset[str]:
    """The path-prior kinds (``tests``, ``examples``) a C/C++ chunk falls under by its file's
    stem or its own googletest macros (module docstring); empty for other languages."""
    if language not in C_LANGUAGES:
        return frozenset()
    kinds = _stem_kinds(path)
    if "tests" not in kinds and "TEST" in text and _GTEST_LINE.search(text):
        kinds = kinds | {"tests"}
    return kinds
