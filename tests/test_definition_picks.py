"""Several definitions of one name (issues 22, 24): the implementation file over its declaration
file, an exact-case symbol over one spelled with another case, a type over its constructors."""

from __future__ import annotations

import pytest

from conftest import MODEL_MIRROR, write_files
from paqad.build import sync as sync_index
from paqad.config import load_settings
from paqad.embed.factory import get_embedder
from paqad.project import ProjectPaths
from paqad import store as store_mod
from paqad.search import ablations, search
from paqad.search.analysis import analyze
from paqad.search.signals.context import RankingContext
from paqad.search.signals.definitions import definition_shares
from paqad.search.symbols import DefinitionMatch

FILES = {
    "dune-project": "(lang dune 3.0)\n(name tally)\n",
    "lib/tally.mli": (
        "(** Counting words. *)\n\n"
        "val count_words : string -> int\n"
        "(** [count_words s] counts words: the number of blank-separated words of [s];\n"
        "    count_words \"a b\" = 2, count_words \"\" = 0. *)\n"
    ),
    "lib/tally.ml": (
        "let is_blank c = c = ' ' || c = '\\t' || c = '\\n' || c = '\\r'\n\n"
        "let count_words s =\n"
        "  let n = ref 0 and inside = ref false in\n"
        "  String.iter (fun c -> if is_blank c then inside := false\n"
        "    else if not !inside then (inside := true; incr n)) s;\n"
        "  !n\n\n"
        "let rec fold_lines f acc = function\n"
        "  | [] -> acc\n"
        "  | line :: rest -> fold_lines f (f acc line) rest\n"
    ),
    "pyproject.toml": "[project]\nname = 'cli'\nversion = '1.0'\n",
    "cli/helpers.py": (
        '"""Helpers."""\n\n\n'
        "def usageError(message: str) -> str:\n"
        '    """Format a usage error message for the terminal."""\n'
        "    return 'usage: ' + message\n"
    ),
    "cli/errors.py": (
        '"""Errors."""\n\n\n'
        "class UsageError(Exception):\n"
        '    """Raised when the command line is wrong."""\n'
    ),
}


@pytest.fixture(scope="module")
def project(tmp_path_factory, paqad_home):
    root = tmp_path_factory.mktemp("picks") / "tally"
    write_files(root, FILES)
    paths = ProjectPaths(root)
    settings = load_settings(paths, environ={})
    with pytest.MonkeyPatch.context() as mp:  # a module fixture needs its own environment
        mp.setenv("PAQAD_HOME", str(paqad_home))
        mp.setenv("PAQAD_MODEL_MIRROR", str(MODEL_MIRROR))
        embedder = get_embedder(settings, paths)
        sync_index(paths, settings, embedder)
    return paths, settings, embedder


@pytest.mark.parametrize(("query", "first"), [("count_words", "lib/tally.ml"), ("UsageError", "cli/errors.py")])
def test_the_implementation_and_the_exact_case_come_first(project, query, first):
    paths, settings, embedder = project
    results = search(paths, settings, query, embedder=embedder).results
    assert results[0].path == first


def _row(cid: int, path: str, text: str) -> store_mod.ChunkRow:
    return store_mod.ChunkRow(path, 1, text.count("\n") + 1, "ocaml", None, "code", None, text, id=cid)


def _shares(config: str, query: str, rows: list[store_mod.ChunkRow], exact: dict[int, bool]) -> dict[int, float]:
    info = analyze(query)
    (identifier,) = info.identifiers
    matches = tuple(DefinitionMatch(cid, identifier, True, ok) for cid, ok in exact.items())
    context = RankingContext(info, ablations()[config], {r.id: r for r in rows}, 1.0, matches,
                             frozenset(), frozenset())
    return definition_shares(context)


def test_a_declaration_file_shares_less_only_beside_its_implementation():
    mli = _row(1, "lib/tally.mli", "val count_words : string -> int\n")
    ml = _row(2, "src/tally.ml", "let count_words s = 0\n")
    other_h = _row(3, "include/slice.h", "val count_words : string -> int\n")
    assert _shares("default", "count_words", [mli, ml], {1: True, 2: True}) == {1: 0.7, 2: 1.0}
    assert _shares("no-definition-picks", "count_words", [mli, ml], {1: True, 2: True}) == {1: 1.0, 2: 1.0}
    # a header whose own implementation file does not define the name keeps its share (C++ classes)
    assert _shares("default", "count_words", [other_h, ml], {3: True, 2: True}) == {3: 1.0, 2: 1.0}


def test_a_symbol_spelled_with_another_case_shares_less():
    upper = _row(1, "lib/errors.dart", "class UsageException implements Exception {}\n")
    lower = _row(2, "lib/runner.dart", "UsageException usageException(String m) => UsageException(m);\n")
    # the type's own chunk is a candidate (round 6's text_types: `class UsageException`), so the other
    # chunk also gets constructor_share: 0.7 x 0.7
    assert _shares("no-text-types", "UsageException", [upper, lower], {1: True, 2: False}) == {1: 1.0, 2: 0.7}
    assert _shares("default", "UsageException", [upper, lower], {1: True, 2: False}) == {1: 1.0, 2: 0.7 * 0.7}
    assert _shares("no-exact-case", "UsageException", [upper, lower], {1: True, 2: False}) == {1: 1.0, 2: 0.7}


def test_a_bare_type_name_prefers_the_type_over_its_constructors():
    struct = store_mod.ChunkRow("src/trie.jl", 1, 3, "julia", "Trie", "class", None,
                                "mutable struct Trie{T}\n    children::Dict{Char,Trie{T}}\nend\n", id=1)
    outer = store_mod.ChunkRow("src/trie.jl", 5, 5, "julia", None, "block", None,
                               "Trie() = Trie{Any}()\n", id=2)
    assert _shares("default", "Trie", [struct, outer], {1: True, 2: True}) == {1: 1.0, 2: 0.7}
    assert _shares("no-definition-picks", "Trie", [struct, outer], {1: True, 2: True}) == {1: 1.0, 2: 1.0}
    # without this pick, the canonical signal's test 4 (one file: the first definition) still ranks the struct first
    assert _shares("no-type-over-constructor", "Trie", [struct, outer], {1: True, 2: True}) == {1: 1.0, 2: 0.7}
    # without a type chunk among the candidates the constructors keep their share
    assert _shares("default", "Trie", [outer], {2: True}) == {2: 1.0}
