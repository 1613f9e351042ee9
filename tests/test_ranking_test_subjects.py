"""Round 8's localisation signals (issue 24): a test file's subject module raised under it
(signals.test_subjects), the file a title names (signals.title_files)."""

from __future__ import annotations

from paqad.search import RankingOptions, ablations
from paqad.search.analysis import analyze
from paqad.search.signals import RankingContext, in_force, test_subjects, title_files
from paqad.store import ChunkRow


def _row(cid: int, path: str, language: str = "php") -> ChunkRow:
    return ChunkRow(path=path, start_line=1, end_line=10, language=language, symbol=None, kind="block",
                    signature=None, text=f"x = {cid}\n", id=cid)


def test_subject_stems_of_each_test_naming_shape():
    assert test_subjects.subject_stem("tests/test_make.py") == "make"
    assert test_subjects.subject_stem("pkg/make_test.py") == "make"
    assert test_subjects.subject_stem("logger_test.go") == "logger"
    assert test_subjects.subject_stem("spec/faraday/error_spec.rb") == "error"
    assert test_subjects.subject_stem("src/core/proxy.test.ts") == "proxy"
    assert test_subjects.subject_stem("tests/Handler/StreamHandlerTest.php") == "StreamHandler"
    assert test_subjects.subject_stem("src/test/java/org/x/OptionsTests.java") == "Options"
    assert test_subjects.subject_stem("src/logging_unittest.cc") == "logging"
    assert test_subjects.subject_stem("tests/helpers.py") is None  # no test affix: no subject
    assert test_subjects.subject_stem("tests/test.py") is None  # the affix alone names nothing


def test_subject_is_the_same_stem_in_the_folder_sharing_the_longest_tail():
    paths = ["src/Handler/StreamHandler.php", "src/StreamHandler.php", "tests/Handler/StreamHandlerTest.php",
             "src/Handler/CurlHandler.php"]
    assert test_subjects.subject_of("tests/Handler/StreamHandlerTest.php", paths) == "src/Handler/StreamHandler.php"
    # a C++ unit test: the same extension before a header of that stem
    assert test_subjects.subject_of("src/symbolize_unittest.cc",
                                    ["src/symbolize.h", "src/symbolize.cc"]) == "src/symbolize.cc"
    assert test_subjects.subject_of("src/utilities_unittest.cc", ["src/utilities.h"]) == "src/utilities.h"
    # another language's file of that name is not the subject; nor is another test
    assert test_subjects.subject_of("tests/test_api.py", ["docs/api.md", "tests/api_test.py"]) is None


ROWS = {1: _row(1, "tests/Handler/StreamHandlerTest.php"), 2: _row(2, "tests/Handler/StreamHandlerTest.php"),
        3: _row(3, "src/Utils.php"), 4: _row(4, "src/Handler/StreamHandler.php"),
        5: _row(5, "src/Handler/StreamHandler.php")}
SCORES = {1: 0.8, 2: 0.5, 3: 0.6, 4: 0.4, 5: 0.3}


def _context(options: RankingOptions) -> RankingContext:
    return RankingContext(info=analyze("Set a default ssl.peer_name context in StreamHandler"), options=options,
                          rows=ROWS, best=0.8, definitions=(), named_paths=frozenset(), exempt=frozenset())


def test_the_subject_best_chunk_goes_just_below_its_test():
    out = test_subjects.apply(dict(SCORES), _context(RankingOptions(test_subject_share=0.95)))
    assert out == {1: 0.8, 2: 0.5, 3: 0.6, 4: 0.95 * 0.8, 5: 0.3}  # only the subject's best chunk moves
    # a share above 1 puts the subject first; a subject already above its test keeps its score
    assert test_subjects.apply(dict(SCORES), _context(RankingOptions(test_subject_share=1.1)))[4] == 1.1 * 0.8
    higher = {**SCORES, 4: 0.9}
    assert test_subjects.apply(higher, _context(RankingOptions(test_subject_share=0.95))) == higher


def test_switch_and_ablation():
    assert {"test_subjects", "title_files"} <= set(in_force(RankingOptions()))
    assert "test_subjects" not in in_force(ablations()["no-test-subjects"])
    assert "title_files" not in in_force(ablations()["no-title-files"])
    assert not {"test_subjects", "title_files"} & set(in_force(ablations()["round-7-default"]))
    assert "rare_names" in in_force(ablations()["with-rare-names"])
    assert "test_subjects" not in in_force(RankingOptions(off=frozenset({"test_subjects"})))


def test_title_keys_from_class_names_paths_and_commit_scopes():
    assert title_files.title_keys("Reject non-HTTP schemes in StreamHandler\n\n* Handle them") == {"streamhandler"}
    assert title_files.title_keys("Fix Style/RedundantParentheses in options/env.rb") == {"redundantparentheses"}
    assert title_files.title_file_names("Fix Style/RedundantParentheses in options/env.rb") == {"env.rb"}
    assert title_files.title_keys("fix(symbolize): use correct format specifier") == {"symbolize"}
    assert title_files.title_keys("refactor: move ConfigFwd/FormatterFwd bodies") == {"configfwd", "formatterfwd"}
    # a qualified name is a member, not its type's file; plain words name nothing
    assert title_files.title_keys("Fix type assumption in `Faraday::Error`") == set()
    assert title_files.title_keys("Improve error handling logic") == set()
    # a long first line is a paragraph, not a title
    assert title_files.title_keys("x " * 100 + "StreamHandler\nmore") == set()


TITLE_ROWS = {1: _row(1, "src/Handler/HeaderProcessor.php"), 2: _row(2, "src/Handler/StreamHandler.php"),
              3: _row(3, "src/Handler/StreamHandler.php"), 4: _row(4, "tests/Handler/StreamHandlerTest.php"),
              5: _row(5, "README.md", "markdown")}


def _title_context(query: str, options: RankingOptions) -> RankingContext:
    return RankingContext(info=analyze(query), options=options, rows=TITLE_ROWS, best=1.0, definitions=(),
                          named_paths=frozenset(), exempt=frozenset())


def test_the_file_a_title_names_is_lifted_level_with_the_leader():
    scores = {1: 1.2, 2: 0.7, 3: 0.5, 4: 0.9, 5: 0.4}
    query = "Reject non-HTTP schemes in StreamHandler\n\nIf an URI that does not use the HTTP stream wrapper ..."
    out = title_files.apply(dict(scores), _title_context(query, RankingOptions(title_file_share=1.05)))
    assert out == {**scores, 2: 1.05 * 1.2}  # its best chunk only; the test file named alike stays
    # no name in the title: unchanged
    assert title_files.apply(dict(scores), _title_context("Reject non-HTTP schemes", RankingOptions(
        title_file_share=1.05))) == scores


def test_a_symbol_query_is_left_to_the_definitions():
    # `_Tag` is defined in emittermanip.h; tag.cpp is only named like it (yaml-cpp-29)
    rows = {1: _row(1, "include/yaml-cpp/emittermanip.h", "cpp"), 2: _row(2, "src/tag.cpp", "cpp")}
    scores = {1: 2.0, 2: 0.5}
    context = RankingContext(info=analyze("_Tag"), options=RankingOptions(), rows=rows, best=1.0, definitions=(),
                             named_paths=frozenset(), exempt=frozenset())
    assert title_files.apply(dict(scores), context) == scores
