"""Path priors: multiply a chunk's score by what its file's path says (tests, examples, vendored
copies, compatibility shims, barrels, stubs, changelogs, prose, data; DESIGN §8.4).

Each kind's factor is a :class:`~paqad.search.options.RankingOptions` field (``tests_prior``, ...);
a data file under a docs folder is prose too (``docs_data``: a docs site's pages kept as YAML), and
so is a code file in the root's docs folder (``docs_code``: signals.docs_code); C/C++ tests and
benchmarks named ``x_unittest.cc``/``x_benchmark.cc`` or holding googletest macros are tests/examples
(``c_test_files``: signals.c_tests);
CI and repository-automation files are the ``ci`` kind (``ci_prior``: signals.ci_files; issue 24, round 10);
a kind is waived (factor 1.0) when the query asks for it (tests, docs, configuration, CI; barrels when
it asks about a module or package: ``module_barrels``), when it
holds most of the project's code, and for every file the query names; but a test file "named" only
because its stem spells one of the query's identifiers (``retry`` -> ``test/retry.ts``) keeps its
tests prior in a prose query (``stem_named_tests``, round 10).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from paqad.search.analysis import SYMBOL
from paqad.search.priors import is_docs_data, path_kinds
from paqad.search.signals.build_files import is_build_file
from paqad.search.signals.c_tests import c_test_kinds
from paqad.search.signals.ci_files import asks_ci, is_bench_folder, is_ci_file
from paqad.search.signals.crate_roots import is_crate_root_barrel
from paqad.search.signals.docs_code import is_docs_code

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext


# "how is the buffer module organised": a question about a module asks for its barrel (mod.rs,
# __init__.py, index.ts: what it declares and re-exports), so the barrel prior is waived
MODULE_WORDS = re.compile(r"\b(modules?|packages?|crates?|submodules?|namespaces?)\b", re.IGNORECASE)


def kind_factors(context: RankingContext) -> dict[str, float]:
    """Prior kind -> factor for this query (1.0 where waived)."""
    options, info = context.options, context.info
    factors = {
        "tests": 1.0 if info.mentions_tests else options.tests_prior,
        "examples": options.examples_prior,
        "vendored": options.vendored_prior,
        "compat": options.compat_prior,
        "barrel": 1.0 if options.module_barrels and MODULE_WORDS.search(info.text) else options.barrel_prior,
        "stub": options.stub_prior,
        "changelog": options.changelog_prior,
        "prose": 1.0 if info.mentions_docs else options.prose_prior,
        "data": 1.0 if info.mentions_config else options.data_prior,
        "templates": options.templates_prior,
        # issue 24, round 10: CI and repository-automation files (signals.ci_files), waived only by CI words
        "ci": 1.0 if asks_ci(info.text) else options.ci_prior,
        # issue 24, round 11: build-system files (signals.build_files), waived by configuration/build words
        "build": 1.0 if info.mentions_config else options.build_prior,
    }
    for kind in context.exempt:
        factors[kind] = 1.0
    return factors


def prior_factors(context: RankingContext) -> dict[int, tuple[float, ...]]:
    """Chunk id -> the factors of the kinds its file falls under (chunks with none left out)."""
    factors = kind_factors(context)
    out: dict[int, tuple[float, ...]] = {}
    named_names = {path.rsplit("/", 1)[-1] for path in context.info.paths}
    for cid, row in context.rows.items():
        kinds = path_kinds(row.path, row.language, row.text)
        if row.path in context.named_paths:
            if context.options.bench_folders and is_bench_folder(row.path):
                kinds = kinds | {"examples"}
            kept = tuple(factors[kind] for kind in ("tests", "examples") if kind in kinds and factors[kind] != 1.0)
            if not (context.options.stem_named_tests and kept and context.info.kind != SYMBOL
                    and row.path.rsplit("/", 1)[-1] not in named_names):
                continue  # the query named this file: no prior overrides that
            # issue 24, round 10: a test or benchmark file the query names only by an identifier its stem
            # spells (`retry` -> test/retry.ts, `HTTPError` -> test/http-error.ts, `BytesMut` ->
            # benches/bytes_mut.rs) is the code's test, not the code: it keeps those priors (stem_named_tests)
            out[cid] = kept
            continue
        if context.options.docs_data and "prose" not in kinds and is_docs_data(row.path, row.language):
            kinds = kinds | {"prose"}  # a docs site's page kept as YAML/JSON: prose and data
        if context.options.docs_code and "prose" not in kinds and is_docs_code(row.path, row.language, context.main_languages):
            kinds = kinds | {"prose"}  # a docs build script or a docs site's code (issue 24, round 7)
        if context.options.crate_roots and "barrel" not in kinds and is_crate_root_barrel(row.path, row.language, row.text):
            kinds = kinds | {"barrel"}  # a Rust lib.rs that only declares and re-exports (round 7)
        if context.options.c_test_files:
            kinds = kinds | c_test_kinds(row.path, row.language, row.text)  # snappy_unittest.cc, TEST(...) (round 8)
        if context.options.bench_folders and is_bench_folder(row.path):
            kinds = kinds | {"examples"}  # Cargo's benches/ beside bench/, benchmarks/ (round 10)
        if context.options.ci_prior != 1.0 and is_ci_file(row.path):
            kinds = kinds | {"ci"}  # .github/workflows/build.yml, .appveyor.yml (round 10)
        if context.options.build_prior != 1.0 and is_build_file(row.path):
            kinds = kinds | {"build"}  # CMakeLists.txt, configure.ac, meson.build (round 11)
        if kinds:
            out[cid] = tuple(factors[kind] for kind in kinds)
    return out


def prior_of(factors: tuple[float, ...]) -> float:
    """The product of a chunk's prior factors (1.0 for none), multiplied in order."""
    total = 1.0
    for factor in factors:
        total *= factor
    return total


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores times each chunk's prior factors."""
    out = dict(scores)
    for cid, factors in context.prior_factors.items():
        for factor in factors:
            out[cid] *= factor
    return out
