"""The ranking signals' pipeline (issue 18): one shape, one ordered list, ablation by name."""

from __future__ import annotations

from dataclasses import replace

from paqad.search import RankingOptions, ablations
from paqad.search.analysis import analyze
from paqad.search.signals import PIPELINE, RankingContext, apply_pipeline, in_force
from paqad.store import ChunkRow


def _row(cid: int, path: str, start: int) -> ChunkRow:
    return ChunkRow(path=path, start_line=start, end_line=start + 9, language="python", symbol=None, kind="block",
                    signature=None, text=f"x = {cid}\n", id=cid)


ROWS = {1: _row(1, "src/store.py", 1), 2: _row(2, "src/store.py", 20), 3: _row(3, "tests/test_store.py", 1)}
FUSED = {1: 1.0, 2: 0.9, 3: 0.95}


def _context(options: RankingOptions) -> RankingContext:
    return RankingContext(info=analyze("how do entries expire after a while"), options=options, rows=ROWS, best=1.0,
                          definitions=(), named_paths=frozenset(), exempt=frozenset())


def test_the_default_signals_in_order_and_an_ablation_is_one_name_off():
    round_4 = ("reexports", "header_declarations", "qualified_members", "type_members", "macro_or_function",
               "kind_words", "free_functions", "root_package", "platform_variants", "named_platforms", "version_copies",
               "issue_prompts", "community_files", "docstring_chunks", "prompt_waivers", "named_frames", "title_names",
               "header_pairs", "c_header_pairs", "interface_pairs", "error_literals")  # c_header_pairs: round 8
    round_6 = ("grammar_outputs", "inline_pairs", "parallel_siblings", "feature_catalogs",
               "type_modules", "error_types", "enum_files", "deprecated_types")  # and round 7's two, round 8's two
    assert [s.name for s in PIPELINE] == ["definitions", "path_priors", "inline_tests", "path_words", "symbol_words", "file_stems",
                                          "central_files", "older", "platform_twins", "coherence", "file_support",
                                          "saturation", "record_data", *round_4[:3], "module_qualifiers", *round_4[3:],
                                          *round_6, "delegates", "test_subjects", "rare_names", "title_files",
                                          "report_paths",  # round 9
                                          "file_evidence",  # round 11
                                          "dominant_file", "passage_order", "passage_choice"]
    off_by_default = ("kind_words", "free_functions", "root_package", "platform_variants", "community_files",
                      "docstring_chunks", "named_frames", "title_names", "header_pairs", "c_header_pairs", "error_literals",
                      "grammar_outputs", "parallel_siblings", "type_modules")
    assert in_force(RankingOptions()) == ("definitions", "path_priors", "path_words", "symbol_words", "older",
                                          "platform_twins", "saturation", "record_data", *round_4[:3], "module_qualifiers",
                                          *(name for name in round_4[3:] + round_6 if name not in off_by_default),
                                          "delegates", "test_subjects", "title_files", "report_paths", "file_evidence",
                                          "passage_order", "passage_choice")
    assert in_force(ablations()["with-file-stems"])[4] == "file_stems"
    assert in_force(ablations()["with-file-support"])[6:8] == ("file_support", "saturation")
    assert in_force(ablations()["with-central-files"])[4] == "central_files"
    assert in_force(ablations()["with-inline-tests"])[2] == "inline_tests"  # round 8, left off
    assert not {"named_platforms", "interface_pairs"} & set(in_force(ablations()["no-round-5"]))
    assert not {"module_qualifiers", "platform_twins"} & set(in_force(ablations()["no-symbols-def1"]))
    assert in_force(ablations()["with-issue-texts"])[-15:-13] == ("named_frames", "title_names")
    assert in_force(ablations()["no-record-data"]) == in_force(RankingOptions(off=frozenset({"record_data"})))
    assert in_force(ablations()["no-passage-choice"]) == in_force(RankingOptions(off=frozenset({"passage_choice"})))
    with_root = in_force(ablations()["with-root-package"])
    assert with_root[with_root.index("root_package") - 1] == "macro_or_function"
    tail = ("inline_pairs", "feature_catalogs", "error_types", "enum_files", "deprecated_types", "delegates",
            "test_subjects", "title_files", "report_paths", "file_evidence", "passage_order", "passage_choice")
    assert in_force(ablations()["with-header-pairs"])[-14:] == ("header_pairs", "interface_pairs", *tail)
    assert in_force(ablations()["with-error-literals"])[-14:] == ("interface_pairs", "error_literals", *tail)
    assert in_force(ablations()["no-round-6"])[-11:] == ("interface_pairs", "error_types", "enum_files", "deprecated_types",
                                                        "delegates", "test_subjects", "title_files", "report_paths",
                                                        "file_evidence", "passage_order", "passage_choice")
    assert in_force(ablations()["with-grammar-outputs"])[-13:-10] == ("grammar_outputs", "inline_pairs", "feature_catalogs")
    assert in_force(ablations()["with-parallel-siblings"])[-13:-10] == ("inline_pairs", "parallel_siblings", "feature_catalogs")
    assert "passage_order" not in in_force(ablations()["no-passage-order"])
    assert in_force(ablations()["with-dominant-file"])[-6:] == ("title_files", "report_paths", "file_evidence", "dominant_file",
                                                                "passage_order", "passage_choice")
    assert "delegates" not in in_force(ablations()["no-delegates"]) + in_force(ablations()["round-6-default"])
    assert "reexports" not in in_force(ablations()["no-reexports"])
    later = {"named_platforms", "named_frames", "title_names", "interface_pairs", "community_files", "prompt_waivers",
             "docstring_chunks"}
    assert not (set(round_4) - later) & set(in_force(ablations()["no-round-4"]))
    assert "prompt_waivers" not in in_force(ablations()["round-5-default"])
    assert {"community_files", "title_names"} <= set(in_force(ablations()["with-community-files"])) | set(
        in_force(ablations()["with-title-names"]))
    assert "platform_variants" in in_force(ablations()["with-platform-variants"])
    assert in_force(RankingOptions(off=frozenset({"saturation"}))) == in_force(ablations()["no-saturation"])
    assert in_force(ablations()["rrf"]) == ()
    assert in_force(ablations()["with-coherence"])[6:9] == ("coherence", "saturation", "record_data")
    assert in_force(ablations()["with-coherence"])[-1] == "passage_choice"


def test_priors_then_saturation_on_real_rows():
    # tests prior 0.1 (the query does not ask for tests), then a file's 2nd chunk x 0.5
    assert apply_pipeline(dict(FUSED), _context(RankingOptions())) == {1: 1.0, 2: 0.45, 3: 0.95 * 0.1}
    # without the priors the test file is 2nd, so the second chunk of store.py is still halved
    off = RankingOptions(off=frozenset({"path_priors"}))
    assert apply_pipeline(dict(FUSED), _context(off)) == {1: 1.0, 2: 0.45, 3: 0.95}
    # nothing in force: the fused scores unchanged, and the input is never changed in place
    fused = dict(FUSED)
    assert apply_pipeline(fused, _context(replace(ablations()["rrf"]))) == FUSED and fused == FUSED
