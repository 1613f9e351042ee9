"""The named ranking configurations ``bench/ranking/run.py``, ``bench/issues/run.py`` and
``tune.py`` compare (DESIGN §8): baselines (``bm25``, ``dense``, ``rrf``), each round's previous
default (``round-N-default``), the product's ``default``, and the default with one technique off
(``no-...``) or a measured-and-left-off one on (``with-...``).

An ablation is a copy of :class:`~paqad.search.options.RankingOptions`' defaults with one field
changed: a signal of :data:`paqad.search.signals.PIPELINE` switched off by name
(``off={"coherence"}``) or by its own switch (``priors=False``), or a weight changed. Each
round's ``ROUND_N_..._OFF`` dict holds that round's fields at the values before it.
"""

from __future__ import annotations

from dataclasses import replace

from paqad.search.options import CANONICAL_TESTS, ISSUE_TEXT_SIGNALS, ROUND_4_SIGNALS, RankingOptions
from paqad.search.priors import PRIOR_KINDS
from paqad.search.signals.older import ALL_SIGNALS, DIVERSITY_DECAY


def _round_4_and_later(default: RankingOptions) -> dict[str, RankingOptions]:
    """The ablations of issue 24's signals (round 4, symbol def@1, issue texts, round 5): each
    technique off (``no-...``), or on where it was measured and left off (``with-...``)."""
    configs: dict[str, RankingOptions] = {}
    for name in ROUND_4_SIGNALS:
        if name in ("root_package", "platform_variants", "header_pairs", "error_literals"):
            continue  # off by default: "with-..." below
        configs[f"no-{name.replace('_', '-')}"] = replace(default, off=default.off | {name})
    configs["no-round-4"] = replace(default, off=default.off | set(ROUND_4_SIGNALS))
    # every rule of this branch off: main's default before it (bench/README.md, "Symbol def@1")
    configs["no-symbols-def1"] = replace(default, off=default.off | {"module_qualifiers", "platform_twins"},
                                         definition_heads=False, overload_share=1.0, reopening_share=1.0,
                                         qualified_types=False, loose_share=1.0)
    issue_texts = replace(default, named_file_boost=2.0, frame_function_share=1.0, title_share=0.6)
    configs["with-issue-texts"] = issue_texts  # measured on bench/issues, left off (bench/README.md)
    for name in ISSUE_TEXT_SIGNALS:
        configs[f"with-issue-texts-no-{name.replace('_', '-')}"] = replace(issue_texts, off=issue_texts.off | {name})
    configs["with-root-package"] = replace(default, root_package_share=0.9)  # measured, left off
    configs["with-platform-variants"] = replace(default, platform_prior=0.5)  # measured, left off
    configs["with-header-pairs"] = replace(default, header_pair_prior=0.7)  # measured, left off
    configs["with-error-literals"] = replace(default, error_literal_boost=3.0)  # measured, left off
    # round 5: file level of prose questions
    configs["no-interface-pairs"] = replace(default, interface_prior=1.0)
    configs["no-module-barrels"] = replace(default, module_barrels=False)
    configs["no-named-platforms"] = replace(default, named_platform_prior=1.0)
    configs["no-round-5"] = replace(default, interface_prior=1.0, module_barrels=False, named_platform_prior=1.0)
    configs["with-file-stems"] = replace(default, file_stem_boost=1.0)  # measured, left off
    configs["with-central-files"] = replace(default, central_prior=0.2)  # measured, left off
    # the default as round 4 left it (main 1163546): round 5's and 6's techniques all off
    configs["round-4-default"] = replace(configs["no-symbols-def1"], interface_prior=1.0, module_barrels=False,
                                         named_platform_prior=1.0, canonical_share=1.0, passage_bm25_weight=0.0,
                                         **ROUND_6_OFF, **ROUND_7_OFF, **ROUND_8_OFF, **ROUND_9_OFF,
                                         **ROUND_10_OFF)
    return configs


# round 6's fields at their round-5 values (main d0e2d3a): every round-6 technique off (issue
# localisation, C/C++/Java, symbol def@1, passage choice's BM25 bound)
ROUND_6_OFF = {"title_share": 0.0, "title_waivers": False, "issue_prose_prior": 1.0, "community_prior": 1.0,
               "release_copies": False, "inline_pair_prior": 1.0, "inline_pair_lift": 0.0,
               "feature_catalog_prior": 1.0, "split_bodies": False, "canonical_path_qualifiers": False,
               "canonical_prefix_modules": False, "text_types": False, "constant_shapes": False,
               "twin_symbols": False, "member_fields": False, "go_specs": False, "passage_bm25_unknown": 0.0,
               "long_symbol_share": 1.0, "docs_data": False}
# round 7's fields at their round-6 values (main 5fbd236): every round-7 technique off (in
# round-6-default, round-5-default and round-4-default too)
ROUND_7_OFF = {"delegate_share": 0.0, "error_type_prior": 1.0, "docs_code": False}
# round 8's symbol-definition fields (issue 24, branch symbols-def) at their round-7 values: every
# technique of it off (bench/README.md "Round 8: symbol definitions (issue 24)")
ROUND_8_SYMBOLS_OFF = {"text_definitions": False, "header_types": False, "qualified_signatures": False,
                       "member_heads": False, "text_bare_words": False}
# round 8's fields at their round-7 values (main 453062f): every round-8 technique off (in
# round-6-default, round-5-default and round-4-default too)
# round 8's fields of issue and commit localisation (branch gitmined-loc) at their round-7 values
ROUND_8_LOCALISATION_OFF = {"test_subject_share": 0.0, "title_file_share": 0.0}
# issue 24, round 9 (branch issue-loc9): this round's issue-localisation fields at their round-8 values
ROUND_9_OFF = {"report_path_share": 0.0}
# issue 24, round 10 (branch symbols10): this round's symbol-query fields at their round-9 values
ROUND_10_SYMBOLS_OFF = dict.fromkeys(("member_table_types", "definition_phrases", "go_package_modules",
                                      "reexport_best_definitions", "reexport_qualifiers", "reexport_definition_priors",
                                      "title_file_definitions"), False)
# issue 24, round 10 (branch gitmined10): this round's localisation fields at their round-9 values
ROUND_10_LOCALISATION_OFF = {"ci_prior": 1.0, "stem_named_tests": False, "bench_folders": False, "suffix_versions": False}
ROUND_10_OFF = {**ROUND_10_SYMBOLS_OFF, **ROUND_10_LOCALISATION_OFF}
# issue 24, round 11 (branch defs11, symbol queries): this round's fields at their round-10 values
ROUND_11_DEFS_OFF = {"package_qualifiers": False, "qualified_rows": False, "rust_impl_types": False}
# issue 24, round 11 (branch prose11): this round's prose-question fields at their round-10 values
ROUND_11_PROSE_OFF = {"evidence_margin": 0.0}
ROUND_8_OFF = {**ROUND_8_SYMBOLS_OFF, **ROUND_8_LOCALISATION_OFF, "inline_test_prior": 1.0, "enum_file_prior": 1.0, "trait_impl_share": 1.0,
               "deprecated_prior": 1.0, "c_test_files": False, "c_header_pair_prior": 1.0,
               "docstring_passages": False, "named_type_trades": False}


def _round_8_symbols(default: RankingOptions) -> dict[str, RankingOptions]:
    """Round 8's symbol-definition rules: each off (``no-...``), all off (``no-symbols-def3``), and
    the three measured and left off, on (``with-...``)."""
    return {
        "with-lone-identifiers": replace(default, lone_identifiers=True),  # measured, left off
        "no-text-definitions": replace(default, text_definitions=False),
        "no-header-types": replace(default, header_types=False),
        "with-c-type-uses": replace(default, c_type_uses=True),  # measured, left off
        "no-qualified-signatures": replace(default, qualified_signatures=False),
        "with-asked-macros": replace(default, asked_macros=True),  # measured, left off
        "no-member-heads": replace(default, member_heads=False),
        "no-text-bare-words": replace(default, text_bare_words=False),
        "no-symbols-def3": replace(default, **ROUND_8_SYMBOLS_OFF),
    }


def _round_8_prose(default: RankingOptions) -> dict[str, RankingOptions]:
    """Round 8's fusion fundamentals of prose questions (bench/README.md "Round 8: prose
    questions"): on together (``with-round-8-prose``) and each alone; all measured and left off
    (each lost a language on dev or test)."""
    return {
        "with-deep-pools": replace(default, pool_depth=150, long_pool_depth=100),
        "with-plain-dense": replace(default, plain_dense_factor=1.3),
        "with-round-8-prose": replace(default, pool_depth=150, long_pool_depth=100, plain_dense_factor=1.3),
    }




def _round_8_localisation(default: RankingOptions) -> dict[str, RankingOptions]:
    """Issue 24, round 8 (issue and commit localisation): each technique off, and all of them."""
    return {
        "no-test-subjects": replace(default, test_subject_share=0.0),
        "no-title-files": replace(default, title_file_share=0.0),
        "with-rare-names": replace(default, rare_name_share=1.0),  # measured, left off
        "no-localisation8": replace(default, **ROUND_8_LOCALISATION_OFF),
    }


def _round_6_prose(default: RankingOptions) -> dict[str, RankingOptions]:
    """Round 6's file level of prose questions (bench/README.md "Round 6: file level of prose
    questions"): each off, all off (``no-round-6-prose``), and the one left off."""
    return {
        "with-file-support": replace(default, file_support=0.1),  # measured, left off
        "no-long-symbol-share": replace(default, long_symbol_share=1.0),
        "no-docs-data": replace(default, docs_data=False),
        # with release_copies (round 6's dotted_versions, one rule with cpp-c's since round 7)
        "no-round-6-prose": replace(default, long_symbol_share=1.0, release_copies=False, docs_data=False),
    }


def _round_6_symbols(default: RankingOptions) -> dict[str, RankingOptions]:
    """The ablations of round 6's symbol def@1 rules (bench/README.md, "Round 6: symbol queries"):
    each off (``no-...``), and all off (``no-symbols-def2``: main's default before them)."""
    configs = {
        "no-split-bodies": replace(default, split_bodies=False),
        "no-canonical-paths": replace(default, canonical_path_qualifiers=False),
        "no-canonical-prefixes": replace(default, canonical_prefix_modules=False),
        "no-text-types": replace(default, text_types=False),
        "no-constant-shapes": replace(default, constant_shapes=False),
        "with-free-functions": replace(default, member_share=0.7),  # measured, left off (no dev case moved)
        "with-c-signatures": replace(default, c_signatures=True),  # measured, left off
        "with-kind-words": replace(default, kind_word_share=0.5),  # measured, left off
        "with-canonical-declarations": replace(default, canonical_declarations=True),  # measured, left off
        "no-canonical-scope": replace(default, canonical_path_qualifiers=False, canonical_prefix_modules=False),
        **{f"no-canonical-{test.replace('_', '-')}": replace(default, canonical_off=frozenset({test}))
           for test in CANONICAL_TESTS},
        "no-twin-symbols": replace(default, twin_symbols=False),
        "no-member-fields": replace(default, member_fields=False),
        "no-go-specs": replace(default, go_specs=False),
    }
    configs["no-symbols-def2"] = replace(default, split_bodies=False, canonical_path_qualifiers=False,
                                         canonical_prefix_modules=False, text_types=False, constant_shapes=False,
                                         twin_symbols=False, member_fields=False, go_specs=False)
    return configs


def _round_6_c_cpp_java(default: RankingOptions) -> dict[str, RankingOptions]:
    """The ablations of round 6's C/C++/Java signals: each off (``no-...``) or, left off, on (``with-...``)."""
    return {
        "no-release-copies": replace(default, release_copies=False),
        "no-inline-pairs": replace(default, inline_pair_prior=1.0, inline_pair_lift=0.0),
        "no-inline-pairs-lift": replace(default, inline_pair_lift=0.0),
        "no-round-6": replace(default, release_copies=False, inline_pair_prior=1.0, inline_pair_lift=0.0,
                              feature_catalog_prior=1.0),
        "with-grammar-outputs": replace(default, grammar_output_prior=0.5),  # measured, left off
        "with-parallel-siblings": replace(default, sibling_share=0.85),  # measured, left off
        "no-feature-catalogs": replace(default, feature_catalog_prior=1.0),
    }


def _round_6_issues(default: RankingOptions) -> dict[str, RankingOptions]:
    """Issue 24, round 6 (issue localisation: bench/issues, the git-mined set): each technique
    off (``no-...``) or on where it was measured and left off (``with-...``), and all of them off
    (``round-5-default``: main d0e2d3a's default, every round-6 technique of any branch off)."""
    return {
        "with-title-names": replace(default, title_share=0.6),  # measured, left off (test lost)
        "no-title-waivers": replace(default, title_waivers=False, issue_prose_prior=1.0),  # prompt_waivers off
        "no-issue-prose": replace(default, issue_prose_prior=1.0),  # prompt_waivers' waivers only
        "with-docstring-chunks": replace(default, docstring_prior=0.5),
        "with-community-files": replace(default, community_prior=0.3),  # measured, left off (no dev gain with prompt_waivers)
        "round-5-default": replace(default, **ROUND_6_OFF, **ROUND_7_OFF, **ROUND_8_OFF, **ROUND_9_OFF,
                                   **ROUND_10_OFF),
        # round 7: a facade's delegates over it (signals.delegates) off
        "no-delegates": replace(default, delegate_share=0.0),
        "round-6-default": replace(default, **ROUND_7_OFF, **ROUND_8_OFF, **ROUND_9_OFF, **ROUND_10_OFF),
    }


def _round_7(default: RankingOptions) -> dict[str, RankingOptions]:
    """Issue 24, round 7 (the new dev projects): each technique on where it was measured."""
    return {
        "with-type-modules": replace(default, type_module_prior=0.7),  # stub_prior's factor; measured, left off
        "no-error-types": replace(default, error_type_prior=1.0),
    }


def _round_8(default: RankingOptions) -> dict[str, RankingOptions]:
    """Issue 24, round 8 (Rust and Java: the workspace and CSV dev projects; C and C++ structure):
    each technique off (``no-...``) or, left off, on (``with-...``), and all of them off
    (``round-7-default``)."""
    return {
        "with-inline-tests": replace(default, inline_test_prior=0.3),  # measured, left off
        "no-enum-files": replace(default, enum_file_prior=1.0),
        "no-trait-impls": replace(default, trait_impl_share=1.0),
        "no-deprecated-types": replace(default, deprecated_prior=1.0),
        "no-c-test-files": replace(default, c_test_files=False),
        "with-c-header-pairs": replace(default, c_header_pair_prior=0.7),  # measured, left off
        # every C/C++ rule measured this round on together (c_signatures is round 6's, left off again)
        "with-round-8": replace(default, c_header_pair_prior=0.7, c_signatures=True),
        "round-7-default": replace(default, **ROUND_8_OFF, **ROUND_9_OFF, **ROUND_10_OFF),
    }


def _round_8_passages(default: RankingOptions) -> dict[str, RankingOptions]:
    """Issue 19, round 8 (the passage that answers): each rule off, and both (``round-7-passages``)."""
    return {
        "no-docstring-passages": replace(default, docstring_passages=False),
        "no-named-type-trades": replace(default, named_type_trades=False),
        "round-7-passages": replace(default, docstring_passages=False, named_type_trades=False),
    }


def _round_9_localisation(default: RankingOptions) -> dict[str, RankingOptions]:
    """Issue 24, round 9 (issue localisation, bench/README.md "Round 9: issue localisation"): each
    technique off, and all of them (``round-8-default``: main 0dd19ac's default)."""
    return {
        "no-report-paths": replace(default, report_path_share=0.0),
        "round-8-default": replace(default, **ROUND_9_OFF, **ROUND_10_OFF),
    }


def _round_10_localisation(default: RankingOptions) -> dict[str, RankingOptions]:
    """Issue 24, round 10 (commit and issue localisation): each technique off (``with-bench-folders``, left off:
    on), and all of them (``no-round-10-localisation``; ``round-9-default``, main 0fc748d's default, has
    every round-10 field off)."""
    return {
        "no-ci-files": replace(default, ci_prior=1.0),
        "no-stem-named-tests": replace(default, stem_named_tests=False),
        "with-bench-folders": replace(default, bench_folders=True),  # measured, left off
        "no-suffix-versions": replace(default, suffix_versions=False),
        "no-round-10-localisation": replace(default, **ROUND_10_LOCALISATION_OFF),
    }


def _round_10_symbols(default: RankingOptions) -> dict[str, RankingOptions]:
    """Issue 24, round 10 (symbol queries): each technique off, all off (``no-round-10-symbols``;
    ``round-9-default``, main 0fc748d's default, has every round-10 field off)."""
    configs = {f"no-{name.replace('_', '-')}": replace(default, **{name: False}) for name in ROUND_10_SYMBOLS_OFF}
    return {**configs, "no-round-10-symbols": replace(default, **ROUND_10_SYMBOLS_OFF)}


def _round_11_defs(default: RankingOptions) -> dict[str, RankingOptions]:
    """Issue 24, round 11 (symbol queries, branch defs11): each technique switched (``no-...`` when the
    default has it on, ``with-...`` when it was measured and left off), and all off (``no-round-11-defs``)."""
    configs = {}
    for name, off in ROUND_11_DEFS_OFF.items():
        slug = name.replace("_", "-")
        on = getattr(default, name) != off
        configs[f"no-{slug}" if on else f"with-{slug}"] = replace(default, **{name: off if on else True})
    return {**configs, "no-round-11-defs": replace(default, **ROUND_11_DEFS_OFF)}


def _round_11_prose(default: RankingOptions) -> dict[str, RankingOptions]:
    """Issue 24, round 11 (prose questions): the close-call rule off (``no-file-evidence``), the two measured
    and left off on (``with-...``), and every round-11 prose field off (``no-round-11-prose``)."""
    return {
        "no-file-evidence": replace(default, evidence_margin=0.0),
        "no-round-11-prose": replace(default, **ROUND_11_PROSE_OFF),
    }


def ablations() -> dict[str, RankingOptions]:
    """Named configurations for the benchmark: baselines, the previous ranking, the default, and
    the default with each technique switched off."""
    default = RankingOptions()
    nothing_new = replace(default, kind_weights=False, symbols=False, named_files=False, priors=False,
                          path_words=False, coherence=0.0, saturation=1.0, long_prompts=False, lexical_weight=1.0,
                          passage_choice=False, record_data=False, passage_bm25_weight=0.0, delegate_share=0.0,
                          **ROUND_8_OFF, **ROUND_9_OFF, **ROUND_10_OFF, **ROUND_11_PROSE_OFF)
    configs = {
        "bm25": replace(nothing_new, dense=False, signals=frozenset()),
        "dense": replace(nothing_new, lexical=False, signals=frozenset()),
        "rrf": replace(nothing_new, signals=frozenset()),
        "previous": replace(nothing_new, signals=ALL_SIGNALS, saturation=DIVERSITY_DECAY),
        "default": default,
        "no-kind-weights": replace(default, kind_weights=False),
        "no-symbols": replace(default, symbols=False),
        "with-named-file-pool": replace(default, named_file_weight=0.25),  # measured, left off
        "no-priors": replace(default, priors=False),
        "no-path-words": replace(default, path_word_boost=0.0),
        "no-symbol-words": replace(default, symbol_word_boost=0.0),
        "with-coherence": replace(default, coherence=0.05),  # measured, left off
        "no-saturation": replace(default, saturation=1.0),
        "no-code-signal": replace(default, signals=frozenset()),
        "no-long-prompts": replace(default, long_prompts=False),
        "no-exact-case": replace(default, inexact_case_share=1.0),
        "no-declaration-share": replace(default, declaration_share=1.0),
        "no-type-over-constructor": replace(default, constructor_share=1.0),
        "no-definition-picks": replace(default, inexact_case_share=1.0, declaration_share=1.0, constructor_share=1.0,
                                       canonical_share=1.0),
        "no-canonical": replace(default, canonical_share=1.0),
        "with-strict-definitions": replace(default, strict_definitions=True),
        "no-definition-heads": replace(default, definition_heads=False),
        "no-overloads": replace(default, overload_share=1.0),
        "no-reopenings": replace(default, reopening_share=1.0),
        "no-qualified-types": replace(default, qualified_types=False),
        "with-loose-matches": replace(default, loose_share=0.5),  # measured, left off
        "with-templates-prior": replace(default, templates_prior=0.3),  # measured, left off
        "no-passage-choice": replace(default, passage_choice=False),
        "with-trade-evidence": replace(default, passage_trade_coverage=0.3),  # measured, left off
        "no-bm25-bound": replace(default, passage_bm25_unknown=0.0),
        "no-passage-order": replace(default, passage_bm25_weight=0.0),
        "with-dominant-file": replace(default, dominant_file_lead=2.0),  # measured, left off
        "no-record-data": replace(default, record_data=False),
        "with-namespace-symbols": replace(default, namespace_symbols=True),  # issue 24, round 7
        "with-common-path-words": replace(default, common_path_share=0.1),
        "no-docs-code": replace(default, docs_code=False),
        "with-crate-roots": replace(default, crate_roots=True),
        # round 7: the two measured and left off on together (docs_code is on); common_path_words lost on dev
        "with-weak-langs-off-rules": replace(default, namespace_symbols=True, crate_roots=True),
    }
    configs.update(_round_4_and_later(default))
    configs.update(_round_6_prose(default))
    for part in (_round_6_symbols, _round_6_c_cpp_java, _round_6_issues, _round_7, _round_8, _round_8_passages,
                 _round_8_symbols, _round_8_prose, _round_8_localisation, _round_9_localisation,
                 _round_10_symbols, _round_10_localisation, _round_11_defs, _round_11_prose):
        configs.update(part(default))
    configs["round-9-default"] = replace(default, **ROUND_10_OFF)  # main 0fc748d's default
    for kind in PRIOR_KINDS:
        configs[f"no-prior-{kind}"] = replace(default, **{f"{kind}_prior": 1.0})
    return configs
