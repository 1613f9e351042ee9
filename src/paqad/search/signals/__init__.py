"""Ranking signals after fusion, one module each (DESIGN §8.4), run in the order of :data:`PIPELINE`.

Every signal has one shape: ``apply(scores, context) -> scores``, where ``scores`` maps chunk id
to score (not changed in place) and ``context`` is the query's read-only
:class:`~paqad.search.signals.context.RankingContext`. A signal is in force when its own
:class:`~paqad.search.options.RankingOptions` switch is on and its name is not in
``RankingOptions.off``, so an ablation leaves one name off the list.

1. ``definitions``: chunks defining an identifier the query names gain a share of the best score;
2. ``path_priors``: tests, examples, vendored copies, shims, barrels, stubs, changelogs, prose and
   data files multiplied down unless the query asks for them;
3. ``path_words`` / 4. ``symbol_words``: prose words naming the file, its folder or its symbol
   (issue 24, round 7, both off by default: ``common_path_words`` leaves out a word naming most
   files' paths, ``namespace_symbols`` a C++ namespace's name; ``path_priors`` reads ``docs_code``
   and ``crate_roots``: code in the root's docs folder is prose, a declaring ``lib.rs`` a barrel);
5. ``older``: the first release's factors (by default only ``code``: code over prose);
6. ``coherence``: a file's best chunk gains from its siblings (off by default); ``file_support``:
   every chunk of a file gains a share of the file's second-best chunk (prose questions);
7. ``saturation``: a file's later chunks discounted so one file does not fill the list;
8. ``record_data``: chunks of source code that are only literal records (a generated table) x the
   data prior, like YAML/JSON files (issue 19);
then issue 24's round-4 signals (symbols across packages, name shapes, module qualifiers, platform
variants and version copies (with round 6's dotted releases, ``release_copies``), issue-style prompts;
see :data:`~paqad.search.options.ROUND_4_SIGNALS` and each module; ``platform_twins`` runs before
saturation), round 6's C/C++/Java signals (``inline_pairs``, ``feature_catalogs``; ``grammar_outputs`` and
``parallel_siblings`` off by default), round 7's ``error_types`` (a short exception-class file
below the code that throws it in a question; ``type_modules``, type-only TypeScript modules, off
by default) and ``delegates`` (a long prompt's Python facade: its sibling-module delegates over it), round 8's
``inline_tests`` (a Rust ``#[cfg(test)]`` module's chunks, off by default), ``enum_files`` and ``deprecated_types``
(a bare enum file, a deprecated type's file, below the code for questions; ``trait_impls`` acts inside
``definitions``), ``c_header_pairs`` (a C header chunk beside its candidate ``.c``, off by default;
``path_priors`` reads ``c_test_files``: ``x_unittest.cc``, googletest ``TEST(...)`` chunks are tests), round 8's localisation
signals (``test_subjects``: a test's subject module raised just above it; ``rare_names``: a long prompt's names one or
two files define; ``title_files``: the file a title names by a class, path or commit scope), round 9's
``report_paths`` (the files a long prompt points at: a site-packages
frame, a repository link, a diff header, a dotted module name), and last (issue 19) three that never move a file:
9. ``dominant_file`` (off by default): a far-leading first file's second chunk listed second;
10. ``passage_order``: within each file, chunks ordered by their score share plus their BM25 share;
11. ``passage_choice``: a file's thin best chunk (doc comment, imports, tail) trades places with its
   best chunk of code, when that code holds enough of the query's words (``trade_evidence``); round 8:
   a Python docstring's middle counts as thin (``docstring_passages``), and so does a named type's thin
   head in a prose question (``named_type_trades``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from paqad.search.priors import is_test_path
from paqad.search.signals import (c_header_pairs, central_files, coherence, community_files, definitions, delegates, docstring_chunks,
                                  dominant_file, error_literals, error_types, feature_catalogs, file_stems, file_support,
                                  grammar_outputs, header_declarations, header_pairs, inline_pairs, interface_pairs,
                                  issue_prompts, module_qualifiers, name_shape, named_frames, older, parallel_siblings,
                                  passage_choice, passage_order, path_priors, path_words, platform_twins,
                                  platform_variants, prompt_waivers, rare_names, record_data, reexports, saturation,
                                  symbol_words, test_subjects, title_files, title_names, type_modules, version_copies)
from paqad.search.signals import deprecated_types, enum_files, inline_tests  # issue 24, round 8
from paqad.search.signals import report_paths  # issue 24, round 9
from paqad.search.signals import file_evidence  # issue 24, round 11
from paqad.search.signals.context import RankingContext
from paqad.search.signals.older import ALL_SIGNALS, DEFAULT_SIGNALS, is_code_like

if TYPE_CHECKING:
    from paqad.search.options import RankingOptions

__all__ = ["ALL_SIGNALS", "DEFAULT_SIGNALS", "PIPELINE", "RankingContext", "Signal", "apply_pipeline",
           "in_force", "is_code_like", "is_test_path"]


@dataclass(frozen=True)
class Signal:
    """One ranking signal: its ``name`` (for ``RankingOptions.off`` and reports), its ``apply``
    function and ``switched_on``: whether the options' own fields have it on."""

    name: str
    apply: Callable[[dict[int, float], RankingContext], dict[int, float]]
    switched_on: Callable[[RankingOptions], bool]


PIPELINE: tuple[Signal, ...] = (
    Signal("definitions", definitions.apply, lambda o: o.symbols),
    Signal("path_priors", path_priors.apply, lambda o: o.priors),
    # issue 24, round 8: a Rust file's `#[cfg(test)]` module is test code (before saturation counts it)
    Signal("inline_tests", inline_tests.apply, lambda o: o.priors and o.inline_test_prior < 1.0),
    Signal("path_words", path_words.apply, lambda o: o.path_words),
    Signal("symbol_words", symbol_words.apply, lambda o: o.path_words),
    Signal("file_stems", file_stems.apply, lambda o: o.path_words and o.file_stem_boost > 0.0),
    Signal("central_files", central_files.apply, lambda o: o.priors and o.central_prior != 0.0),
    Signal("older", older.apply, lambda o: bool(o.signals - {"diversity"})),
    # before saturation: a core twin in the same file as its variant must not be discounted as its second chunk
    Signal("platform_twins", platform_twins.apply, lambda o: o.symbols and o.platform_twin_share < 1.0),
    Signal("coherence", coherence.apply, lambda o: bool(o.coherence)),
    # issue 24, round 6: a file's second-best chunk supports it (before saturation discounts it)
    Signal("file_support", file_support.apply, lambda o: o.file_support > 0.0),
    Signal("saturation", saturation.apply, lambda o: o.saturation < 1.0),
    Signal("record_data", record_data.apply, lambda o: o.record_data and o.priors),
    # issue 24, round 4 (after saturation and record_data, before passage_choice, which must stay last)
    Signal("reexports", reexports.apply, lambda o: o.symbols),
    Signal("header_declarations", header_declarations.apply, lambda o: o.symbols),
    Signal("qualified_members", name_shape.qualified_members, lambda o: o.symbols),
    Signal("module_qualifiers", module_qualifiers.apply, lambda o: o.symbols),
    Signal("type_members", name_shape.type_members, lambda o: o.symbols),
    Signal("macro_or_function", name_shape.macro_or_function, lambda o: o.symbols),
    Signal("kind_words", name_shape.kind_words, lambda o: o.symbols and o.kind_word_share > 0),
    Signal("free_functions", name_shape.free_functions, lambda o: o.symbols and o.member_share < 1.0),
    Signal("root_package", name_shape.root_package, lambda o: o.symbols and o.root_package_share < 1.0),
    Signal("platform_variants", platform_variants.platform_variants, lambda o: o.priors and o.platform_prior < 1.0),
    Signal("named_platforms", platform_variants.named_platforms, lambda o: o.priors and o.named_platform_prior < 1.0),
    Signal("version_copies", version_copies.apply, lambda o: o.priors),
    Signal("issue_prompts", issue_prompts.apply, lambda o: o.priors),
    Signal("community_files", community_files.apply, lambda o: o.priors and o.community_prior != 1.0),
    Signal("docstring_chunks", docstring_chunks.apply, lambda o: o.priors and o.docstring_prior != 1.0),
    Signal("prompt_waivers", prompt_waivers.apply, lambda o: o.priors and (o.title_waivers or o.issue_prose_prior != 1.0)),
    # issue 24, issue texts: a long prompt's named files and frames, its title's names
    Signal("named_frames", named_frames.apply, lambda o: o.named_file_boost != 1.0 or o.frame_function_share > 0),
    Signal("title_names", title_names.apply, lambda o: o.symbols and o.title_share > 0),
    Signal("header_pairs", header_pairs.apply, lambda o: o.priors and o.header_pair_prior < 1.0),
    # issue 24, round 8: a C header (no function body) beside its candidate .c, for questions
    Signal("c_header_pairs", c_header_pairs.apply, lambda o: o.priors and o.c_header_pair_prior < 1.0),
    Signal("interface_pairs", interface_pairs.apply, lambda o: o.priors and o.interface_prior < 1.0),
    Signal("error_literals", error_literals.apply, lambda o: o.error_literal_boost != 1.0),
    # issue 24, round 6 (C, C++, Java): generated parsers, inline implementation files, parallel
    # siblings, feature catalogs (its older release copies are version_copies' release_copies)
    Signal("grammar_outputs", grammar_outputs.apply, lambda o: o.priors and o.grammar_output_prior < 1.0),
    Signal("inline_pairs", inline_pairs.apply,
           lambda o: o.priors and (o.inline_pair_prior < 1.0 or o.inline_pair_lift > 0.0)),
    Signal("parallel_siblings", parallel_siblings.apply, lambda o: o.sibling_share < 1.0),
    Signal("feature_catalogs", feature_catalogs.apply, lambda o: o.priors and o.feature_catalog_prior < 1.0),
    # issue 24, round 7: type-only TypeScript modules below the code for questions
    Signal("type_modules", type_modules.apply, lambda o: o.priors and o.type_module_prior < 1.0),
    Signal("error_types", error_types.apply, lambda o: o.priors and o.error_type_prior < 1.0),
    # issue 24, round 8: a file of one bare enum below the code for questions
    Signal("enum_files", enum_files.apply, lambda o: o.priors and o.enum_file_prior < 1.0),
    Signal("deprecated_types", deprecated_types.apply, lambda o: o.priors and o.deprecated_prior < 1.0),
    # issue 24, round 7: a long prompt led by a Python facade: its sibling-module delegate over it
    Signal("delegates", delegates.apply, lambda o: o.delegate_share > 0.0),
    # issue 24, round 8: a test file over its subject module: the subject raised to 1.05 x the test (just above it)
    Signal("test_subjects", test_subjects.apply, lambda o: o.test_subject_share > 0.0),
    # issue 24, round 8: a long prompt's names that one or two files define
    Signal("rare_names", rare_names.apply, lambda o: o.symbols and o.rare_name_share > 0),
    # issue 24, round 8: the files a prompt's title names (a class named like the file, a path, a commit scope)
    Signal("title_files", title_files.apply, lambda o: o.title_file_share > 0),
    # issue 24, round 9: the files a long prompt points at (a site-packages frame, a repository link, a module name)
    Signal("report_paths", report_paths.apply, lambda o: o.report_path_share > 0),
    # issue 24, round 11: a close call at the top of a prose question settled for the file with more candidates
    Signal("file_evidence", file_evidence.apply, lambda o: o.evidence_margin > 0.0),
    Signal("dominant_file", dominant_file.apply, lambda o: o.dominant_file_lead > 0),
    Signal("passage_order", passage_order.apply, lambda o: o.passage_bm25_weight > 0),
    Signal("passage_choice", passage_choice.apply, lambda o: o.passage_choice),
)


def in_force(options: RankingOptions) -> tuple[str, ...]:
    """Names of the :data:`PIPELINE` signals ``options`` runs, in order."""
    return tuple(s.name for s in PIPELINE if s.switched_on(options) and s.name not in options.off)


def apply_pipeline(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Fused scores (chunk id -> score) after every signal in force, in :data:`PIPELINE` order."""
    names = in_force(context.options)
    for signal in PIPELINE:
        if signal.name in names:
            scores = signal.apply(scores, context)
    return scores
