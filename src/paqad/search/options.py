"""What the ranking runs with: :class:`RankingOptions` (the product's defaults) and the named
:func:`ablations` ``bench/ranking/run.py`` and ``tune.py`` compare (DESIGN §8).

An ablation is a copy of the defaults with one field changed: a signal of
:data:`paqad.search.signals.PIPELINE` switched off by name (``off={"coherence"}``) or by its own
switch (``priors=False``), or a weight changed.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from paqad.config import RRF_K
from paqad.search.priors import PRIOR_KINDS
from paqad.search.signals.older import ALL_SIGNALS, DEFAULT_SIGNALS, DIVERSITY_DECAY

# issue 24, round 4: the signals at the end of paqad.search.signals.PIPELINE, each ablated by name
ROUND_4_SIGNALS = ("reexports", "header_declarations", "qualified_members", "module_qualifiers", "type_members",
                   "macro_or_function", "root_package", "platform_variants", "platform_twins", "version_copies",
                   "issue_prompts", "header_pairs", "error_literals")
# the canonical-definition rule's four tests (signals/canonical.py), each ablated by name
CANONICAL_TESTS = ("overrides", "roots", "delegates", "one_of_file")
# issue 24, issue texts (bench/issues): long prompts only
ISSUE_TEXT_SIGNALS = ("named_frames", "title_names")


@dataclass(frozen=True)
class RankingOptions:
    """The rankers, fusion weights and ranking signals in force (defaults: what the product runs).

    Weights multiply each pool's reciprocal-rank term (``w / (k + rank)``, k = 60). Boosts and
    factors are relative to the fused scores; priors multiply a chunk's score (``1.0`` = off).
    ``off``: names of :data:`paqad.search.signals.PIPELINE` left out (an ablation by name).
    """

    dense: bool = True
    lexical: bool = True
    # fusion weights: prose queries, symbol queries (a query that is one identifier)
    dense_weight: float = 1.0
    lexical_weight: float = 1.3
    symbol_dense_weight: float = 0.6
    symbol_lexical_weight: float = 1.4
    kind_weights: bool = True
    rrf_k: int = RRF_K
    # issue 24, round 8 (bench/README.md "Round 8: prose questions"): a plain question's pool weights
    # x these (words only: no identifier, no path, not a long prompt; fusion.is_plain_question) and
    # the k of every prose query's reciprocal-rank terms (0: rrf_k). Measured, left off: dense 1.3
    # wins with 4 of 19 dev projects left out; prose_rrf_k 40 with 17 of 19, held-out 0.885 -> 0.884
    plain_dense_factor: float = 1.0
    plain_lexical_factor: float = 1.0
    prose_rrf_k: int = 0
    # candidates taken from each of the dense and BM25 rankers before fusion (gather's default pool is
    # this; rank cuts deeper pools to it, so a shallower configuration ranks the same pools). Round 8,
    # measured, left at 100: 150 (long prompts 100) wins with all 19 dev projects left out (0.885 ->
    # 0.888) but loses dev Java and test PHP, TypeScript (config with-deep-pools)
    pool_depth: int = 100
    long_pool_depth: int = 0  # a long prompt's (0: pool_depth; gather fetches pool_depth, so at most that)
    # and past it, down to this depth, the candidates both pools hold (ranking.cut_pools; 0: none).
    # Measured, left off: 200 (on 14 dev projects) gains only through one project: with it left out, none
    agreement_depth: int = 0
    # symbols: the symbol table's definitions of the query's identifiers join as a pool, and a
    # chunk that defines one gets `definition_boost` x the best fused score (embedded identifiers
    # in prose get `embedded_share` of it; a bare name match of a qualified identifier
    # `unqualified_share`; the file named like the symbol x `file_name_boost` more)
    symbols: bool = True
    symbol_weight: float = 1.0
    # and x this for an error type's definition in a long prompt (issue 24, round 6: the exception
    # class a pasted error quotes ranked above the code the question asks about; paqad.search.fusion;
    # dev before docs_data, 0.0 / 0.3 / 0.5 / 0.7 / 1.0: 0.845 / 0.845 / 0.844 / 0.844 / 0.843, 0.0 lost Java, Ruby)
    long_symbol_share: float = 0.3
    definition_boost: float = 5.0
    embedded_share: float = 0.5
    long_prompt_share: float = 0.0  # and x this in a long prompt (many names, most not the answer)
    unqualified_share: float = 0.5
    file_name_boost: float = 1.0
    # several definitions of one name (issues 22, 24): another case, a declaration file
    inexact_case_share: float = 0.7
    declaration_share: float = 0.7
    # round 8: a one-identifier query spelled like a question word (`METHODS`, `Function`) keeps its
    # BM25 side (search.lexical.lone_identifier_hits)
    lone_identifiers: bool = False  # measured, left off: no dev or test case moved (text_definitions finds them)
    # round 8: a symbol query's name the symbol table lacks: the chunks defining it by text join the
    # fusion like table entries (search.text_definitions)
    text_definitions: bool = True
    # round 8: a one-word query a BM25 hit defines by a keyword or a macro (`#define hashpointer`) is
    # a symbol query though the symbol table lacks the word (search.text_definitions)
    text_bare_words: bool = True
    # round 8: C/C++ `struct name* f(` declares, does not define, name (signals.definitions); measured,
    # left off: no dev or test case moved with header_types on
    c_type_uses: bool = False
    member_heads: bool = True  # round 8: `Foo.bar` finds a keyword-less method head `bar(` in Foo's body (symbols)
    qualified_signatures: bool = True  # round 8: `A::b` finds a C++ method head in A's body (signals.name_shape)
    header_types: bool = True  # round 8: not for a header's type definition of a type-shaped name (signals.header_types)
    constructor_share: float = 0.7
    # a name defined in several modules, the qualifier not deciding: the non-canonical ones
    # (an override, a submodule's, a wrapper delegating to another; signals/canonical.py)
    canonical_share: float = 0.7
    # round 6: a qualifier naming a tied definition's file or folder names it (`bytes_mut::Shared`);
    # name-prefix submodules (`gun_http2` of `gun`) only in Erlang
    canonical_path_qualifiers: bool = True
    canonical_prefix_modules: bool = True
    # test 4: a head ending in `;` before any `{` is a declaration (round 6); measured, left off: no dev case moved
    canonical_declarations: bool = False
    canonical_off: frozenset[str] = frozenset()  # its tests left out by name (overrides, roots, delegates, one_of_file)
    strict_definitions: bool = False  # the name right after the keyword (symbols.strict_definition_pattern)
    # a definition named on its last line (C `typedef struct {...} name;`): the table's match moves
    # to its first piece (paqad.search.definition_heads)
    definition_heads: bool = True
    qualified_types: bool = True  # constructor_share for qualified PascalCase names too (bytes_mut::Shared)
    # round 6: a chunk whose text defines the type (Go `type Level uint32`, TS `type Draft<T> =`) is
    # the type's chunk for that preference and for module qualifiers, whatever the symbol table says
    text_types: bool = True
    # round 6: a constant-shaped name (MAX_VEC_POS, GUID) is defined right after its keyword or as a
    # property at a line's start, not by a use inside a longer line (symbols.defines_constant_in_text)
    constant_shapes: bool = True
    twin_symbols: bool = True  # round 6: a platform variant's core twin has its symbol path (signals.platform_twins)
    go_specs: bool = True  # round 6: Go's typed const/var spec `PanicLevel Level = iota` defines its name
    member_fields: bool = True  # round 6: `Foo.bar` finds a field `bar` declared in Foo's body (signals.name_shape)
    # round 6: a C/C++ definition head without a keyword defines its name (symbols); measured, left
    # off: dev C++ def@1 0.92 -> 1.00, but test C nDCG 0.966 -> 0.962 and where 0.801 -> 0.799
    c_signatures: bool = False
    # round 6: `Validator class`: the type's definition chunk (signals.name_shape); measured, left off
    # (0.5 in with-kind-words): dev C++ +1 case, test TypeScript symbol nDCG 0.902 -> 0.888
    kind_word_share: float = 0.0
    member_share: float = 1.0  # round 6: a bare lower-case name's methods beside a free function of it (signals.name_shape)
    overload_share: float = 0.7  # a body-less overload signature beside its implementation (signals.overloads)
    split_bodies: bool = True  # a chunk opening a body it does not close has one (signals.overloads; round 6)
    reopening_share: float = 0.5  # a scope reopened only to nest a type in it (signals.reopenings)
    # a name only on a definition line's tail, beside a sure definition (signals.loose_matches); measured, left
    # off: it lost C++ on dev (yaml-cpp, cli11: 0.758 -> 0.749 nDCG@10, def@1 0.824 -> 0.765)
    loose_share: float = 1.0
    platform_twin_share: float = 0.5  # a name's platform/test copy beside its core definition (signals.platform_twins)
    # files the query names (paths, traceback frames, identifiers that are file names)
    named_files: bool = True
    named_file_weight: float = 0.0
    # path priors (multiplicative)
    priors: bool = True
    tests_prior: float = 0.1
    examples_prior: float = 0.3
    vendored_prior: float = 0.3
    compat_prior: float = 0.3
    barrel_prior: float = 0.5
    stub_prior: float = 0.7
    changelog_prior: float = 0.5
    prose_prior: float = 0.5
    data_prior: float = 0.5
    docs_data: bool = True  # a data file under docs/ (a docs site's YAML pages) x prose_prior too (issue 24, round 6)
    # round 7: a code file in the root's docs/, website/, book/ in a language not the project's own is
    # prose too (signals.docs_code; dev C 0.883 -> 0.890 from jq's docs/*.py, test unchanged)
    docs_code: bool = True
    # round 7: a Rust lib.rs that only declares/re-exports is a barrel (signals.crate_roots); measured,
    # left off: dev Rust 0.965 -> 0.966, test Rust 0.844 -> 0.836 and def@1 0.920 -> 0.908
    crate_roots: bool = False
    module_barrels: bool = True  # a question about a module/package: its barrel (mod.rs, __init__.py) unpenalised
    templates_prior: float = 1.0  # issue/PR templates, docs conf.py; measured, left off (bench/README.md)
    # prose queries: words naming the file or its folder
    path_words: bool = True
    path_word_boost: float = 1.0
    symbol_word_boost: float = 0.5  # and words naming parts of the chunk's symbol
    # issue 24, round 7: a C++ namespace's name (`namespace leveldb {`, which the C grammar of a `.h`
    # records as a function `leveldb`) gets no symbol-word share (signals.namespace_symbols)
    namespace_symbols: bool = False  # measured, left off: moves no dev or test case
    # issue 24, round 7: a query word naming the stem or folder of more than this share of the indexed
    # files (the project's name: include/leveldb/) gives no path-word share (signals.common_path_words)
    common_path_share: float = 1.0  # measured, left off: dev 0.879 -> 0.878 at 0.1, leave-project-out 0.877
    # issue 24, round 5 (file level of prose questions; bench/README.md "Ranking, round 5")
    central_prior: float = 0.0  # architecture questions: (file chunks / median) ** this; measured, left off
    file_stem_boost: float = 0.0  # questions saying every part of a file's name; measured, left off
    # per-file coherence and saturation; file_support: a prose question's files by their best chunk
    # + this x their second-best (issue 24, round 6, signals/file_support.py); measured, left off: 0.1
    # gained curated dev (where 0.768 -> 0.779, no kind or language lost) but lost git-mined dev C++ and
    # Python and test symbol, def@1, C, C++ (bench/README.md "Round 6: file level of prose questions")
    coherence: float = 0.0
    file_support: float = 0.0
    saturation: float = 0.5
    # the first release's signal set (paqad.search.signals.older), kept measurable
    signals: frozenset[str] = DEFAULT_SIGNALS
    # long prompts: BM25 over identifiers, paths and prose without frames; embedding of the head
    long_prompts: bool = True
    # a file's thin best chunk (doc comment, imports, tail) trades places with its best code chunk
    passage_choice: bool = True
    # and only for a code chunk holding >= this x the share of the query's terms the thin one holds
    # (signals.trade_evidence; 0.0 = any code chunk). Measured, left off: at 0.3 dev where+architecture
    # passage@1 +2 cases of 154, @5 +3; test passage@1 equal, @5 -1 (where, Python); dev 0.2 / 0.5 /
    # 0.6 / 0.8 gave passage@1 +1 / +2 / 0 / -7 (bench/README.md, "Round 6: the passage that answers")
    passage_trade_coverage: float = 0.0
    # within a file, chunks ordered by their score share + this x their BM25 share (signals.passage_order;
    # 0.0 = off; dev: 0.5 / 1 / 2 / 4 gave where+architecture passage@1 0.397 / 0.411 / 0.425 / 0.425)
    passage_bm25_weight: float = 2.0
    # and a candidate outside the BM25 pool gets this x the pool's lowest BM25 (0.0: none; dev: 0 / 0.5 / 1
    # gave where+architecture passage@1 0.338 / 0.338 / 0.344)
    passage_bm25_unknown: float = 1.0
    # issue 19, round 8 (bench/README.md "Round 8: the passage that answers"): passage_choice counts the middle
    # of a Python docstring as thin (signals.docstring_passages; dev passage@1/@5 equal, test @5 0.777 -> 0.781,
    # Python 0.765 -> 0.824; the Textualize/rich refresh question)
    docstring_passages: bool = True
    # and may trade a named type's thin head in a prose question (dev passage@1 0.700 -> 0.702, architecture
    # 0.354 -> 0.367, Java 0.593 -> 0.610; test equal)
    named_type_trades: bool = True
    # the first file's lead over the second at which its 2nd chunk is listed 2nd (signals.dominant_file;
    # measured, left off: no where/architecture case of dev moved at 1.5-5)
    dominant_file_lead: float = 0.0
    # chunks of source code that are only literal records (generated tables) x data_prior
    record_data: bool = True
    off: frozenset[str] = frozenset()
    # issue 24, round 4 (signals at the end of PIPELINE; bench/README.md "Ranking, round 4")
    reexport_share: float = 0.8  # a re-export: this x the best definition share (0.3-0.9 equal on dev)
    header_share: float = 0.5  # a C/C++ header's prototype: this x the best definition share
    macro_share: float = 0.5  # a macro sharing a function's name, unless the query says macro
    # round 8: ... and the function when it does (signals.name_shape.macro_or_function); measured, left off:
    # no benchmark query says "macro"
    asked_macros: bool = False
    root_package_share: float = 1.0  # a same-named definition deeper than the shallowest; measured, left off
    platform_prior: float = 1.0  # a platform variant (win32/, env_posix.cc) not named; measured, left off
    named_platform_prior: float = 0.5  # a query naming a platform: the other platforms' variants
    version_prior: float = 0.3  # a vN/ folder beside a newer vM/ (the compat prior's factor; signals.version_copies)
    # and dotted releases: v1.7/, 1.7/ beside v1.8/ (issue 24, round 6: jq's docs/content/manual/v1.x/;
    # round 6's dotted_versions and cpp-c's release_copies, one rule since round 7)
    release_copies: bool = True
    issue_template_prior: float = 0.3  # long prompts: issue/PR templates, docs conf.py
    error_literal_boost: float = 1.0  # long prompts: a chunk holding a quoted error's words; measured, left off
    interface_prior: float = 0.7  # questions: an interface file beside its candidate implementation
    header_pair_prior: float = 1.0  # questions: a C/C++ header beside its candidate implementation; measured, left off
    # issue 24, issue texts (bench/issues; bench/README.md "Issue localisation"): off by default:
    # named_frames on, the ranking benchmark's dev architecture / PHP / Rust lose 0.001-0.004 nDCG and
    # the git-mined set's dev C++ 0.012 (config "with-issue-texts" = 2.0, 1.0, 0.6)
    named_file_boost: float = 1.0  # long prompts: a file named by a 2+ component path or traceback frame
    frame_function_share: float = 0.0  # and its chunk defining the frame's function: + this x best score
    issue_changelog_prior: float = 1.0  # long prompts: changelogs/release notes, x changelog_prior
    # long prompts (0.6 in "with-title-names"): a chunk defining a name of the title line (x definition_boost);
    # measured, left off: on, test lost (ranking C++ 0.749 -> 0.742, issue set httpx MRR 0.674 -> 0.592)
    title_share: float = 0.0
    # issue 24, round 6 (bench/README.md "Round 6: issue localisation"); config round-5-default = all off
    title_waivers: bool = True  # long prompts: prose/data priors waived only by the first line's words (signals.prompt_waivers)
    issue_prose_prior: float = 0.5  # long prompts: prose/data files the first line does not ask for x this (signals.prompt_waivers)
    docstring_prior: float = 1.0  # long prompts: Python chunks inside docstrings x this (signals.docstring_chunks)
    community_prior: float = 1.0  # CONTRIBUTING, SECURITY, CODE_OF_CONDUCT, ... x this unless asked; measured, left off
    # issue 24, round 7 (bench/README.md "Round 7: issue localisation"): long prompts led by a Python facade
    # (a forwarding function, or a piece of its docstring): its sibling-module delegates raised to this x the
    # leader's score (signals.delegates; 0.0 = off; dev 0.95 / 1.05 / 1.2: see bench/README.md)
    delegate_share: float = 1.05
    # issue 24, round 6: C, C++, Java (bench/README.md "Round 6: C, C++ and Java")
    grammar_output_prior: float = 1.0  # parser.c/lexer.c generated from a candidate parser.y/lexer.l; measured, left off
    inline_pair_prior: float = 0.9  # questions: a C++ header beside its candidate inline file (impl/X_inl.hpp)
    inline_pair_lift: float = 1.0  # and that inline file's best chunk raised to this x the header's best score
    # questions: a method 3+ sibling files (one folder) define, in all but the best-scored; measured, left off
    # (dev: Java 0.784 -> 0.792 but JavaScript 0.902 -> 0.901, ws-11)
    sibling_share: float = 1.0
    feature_catalog_prior: float = 0.5  # questions not asking for features/options: a ...Feature/...Capability type
    # issue 24, round 7 (bench/README.md "Round 7: dev projects for C++, Rust, Java, TypeScript")
    type_module_prior: float = 1.0  # questions not asking for types: a type-only TypeScript module (signals.type_modules)
    # questions not asking which error: a short exception-class file x this (signals.error_types); dev 0.882 -> 0.884,
    # PHP 0.819 -> 0.829, test and the git-mined set unchanged
    error_type_prior: float = 0.7
    # issue 24, round 8 (bench/README.md "Round 8: Rust and Java"): a Rust chunk inside a `#[cfg(test)]`
    # module (or carrying `#[test]`) x this unless the query asks for tests (signals.inline_tests);
    # measured, left off (0.3 in "with-inline-tests"): dev unchanged but for rand-25 (+0.02), test Rust
    # 0.844 -> 0.832 (bench/README.md "Round 8: Rust and Java")
    inline_test_prior: float = 1.0
    # questions not asking which values/modes: a file that only declares an enum of plain constants
    # x this (signals.enum_files; error_type_prior's factor)
    enum_file_prior: float = 0.7
    # a Rust chunk that only uses a query name (`impl Trait for Other`, `let x: T`) while another candidate
    # defines it: its definition share x this (signals.trait_impls)
    trait_impl_share: float = 0.5
    # questions not asking for old code: a Java/Kotlin/C# file whose own type is @Deprecated/[Obsolete]
    # x this (signals.deprecated_types; dev 0.1 / 0.3 / 0.5 / 0.7 / 0.85: commons-cli 0.882 / 0.911 /
    # 0.914 / 0.914 / 0.912, off 0.889; at 0.7 no kind lost, long prompts 0.833 = 0.833)
    deprecated_prior: float = 0.7
    # issue 24, round 8: C and C++ structure (bench/README.md "Round 8: C and C++ structure")
    # questions: a C header's chunk without a body beside its candidate .c (signals.c_header_pairs); measured,
    # left off: dev C 0.886 -> 0.898 at 0.7 (zlib, lz4; jq, lua lose), test C 0.844 -> 0.842, architecture lost
    c_header_pair_prior: float = 1.0
    # x_unittest.cc, x-test.cc, x_benchmark.cc, TEST(...) chunks under the tests/examples priors (signals.c_tests);
    # dev C/C++ 0.874 -> 0.885 (C++ 0.857 -> 0.884), test 0.796 -> 0.797 (C++ 0.749 -> 0.751), no kind lost
    c_test_files: bool = True

    # issue 24, round 8 (bench/README.md "Round 8: issue and commit localisation"): a test file over its
    # subject module (StreamHandlerTest.php over StreamHandler.php): the subject's best chunk raised to
    # this x the test's best score (signals.test_subjects; 0.0 = off; git-mined dev 0.752 -> 0.759)
    test_subject_share: float = 1.05
    # long prompts: a chunk defining a name of the prompt that 1-2 files define gains this x the best score
    # / those files (signals.rare_names; 0.0 = off); measured, left off: git-mined dev lost at 0.3-2.0
    rare_name_share: float = 0.0
    # the prompt's title names a file (a class named like it, a path, a commit scope): its best chunk raised to
    # this x the leading score (signals.title_files; 0.0 = off; git-mined dev 0.752 -> 0.766)
    title_file_share: float = 1.05
    # issue 24, round 9 (bench/README.md "Round 9: issue localisation"): a long prompt pointing at one or two
    # files (a site-packages traceback frame, a repository link, a diff header, a dotted module name): their
    # best chunks raised to this x the leading score (signals.report_paths; 0.0 = off)
    report_path_share: float = 1.05
    # issue 24, round 10 (bench/README.md "Round 10: commit and issue localisation"): CI files x ci_prior unless asked
    # (signals.ci_files; 1.0 = off); a test file named only by its stem (`retry` -> test/retry.ts) keeps its prior;
    # NameV2/ beside NameV3/ x version_prior (signals.version_copies); Cargo's benches/ as examples: measured, left
    # off (git-mined dev Rust 0.778 -> 0.755: rand's and rust-url's commits change their benchmarks too)
    ci_prior: float = 0.3
    stem_named_tests: bool = True
    suffix_versions: bool = True
    bench_folders: bool = False

    @property
    def gather_depth(self) -> int:
        """How deep gather fetches the dense and BM25 pools for these options (rank cuts them)."""
        return max(self.pool_depth, self.agreement_depth)

    @property
    def rankers(self) -> tuple[str, ...]:
        """The rankers in force, in order: ``("dense", "lexical")``, or one of them."""
        return tuple(name for name, on in (("dense", self.dense), ("lexical", self.lexical)) if on)


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
                                         **ROUND_6_OFF, **ROUND_7_OFF, **ROUND_8_OFF, **ROUND_9_OFF, **ROUND_10_LOCALISATION_OFF)
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
# issue 24, round 10 (branch gitmined10): this round's localisation fields at their round-9 values
ROUND_10_LOCALISATION_OFF = {"ci_prior": 1.0, "stem_named_tests": False, "bench_folders": False, "suffix_versions": False}
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
        "round-5-default": replace(default, **ROUND_6_OFF, **ROUND_7_OFF, **ROUND_8_OFF, **ROUND_9_OFF, **ROUND_10_LOCALISATION_OFF),
        # round 7: a facade's delegates over it (signals.delegates) off
        "no-delegates": replace(default, delegate_share=0.0),
        "round-6-default": replace(default, **ROUND_7_OFF, **ROUND_8_OFF, **ROUND_9_OFF, **ROUND_10_LOCALISATION_OFF),
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
        "round-7-default": replace(default, **ROUND_8_OFF, **ROUND_9_OFF, **ROUND_10_LOCALISATION_OFF),
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
        "round-8-default": replace(default, **ROUND_9_OFF, **ROUND_10_LOCALISATION_OFF),
    }


def _round_10_localisation(default: RankingOptions) -> dict[str, RankingOptions]:
    """Issue 24, round 10 (commit and issue localisation): each technique off (``with-bench-folders``, left off:
    on), and all of them (``round-9-default``: main 0fc748d's default)."""
    return {
        "no-ci-files": replace(default, ci_prior=1.0),
        "no-stem-named-tests": replace(default, stem_named_tests=False),
        "with-bench-folders": replace(default, bench_folders=True),  # measured, left off
        "no-suffix-versions": replace(default, suffix_versions=False),
        "round-9-default": replace(default, **ROUND_10_LOCALISATION_OFF),
    }


def ablations() -> dict[str, RankingOptions]:
    """Named configurations for the benchmark: baselines, the previous ranking, the default, and
    the default with each technique switched off."""
    default = RankingOptions()
    nothing_new = replace(default, kind_weights=False, symbols=False, named_files=False, priors=False,
                          path_words=False, coherence=0.0, saturation=1.0, long_prompts=False, lexical_weight=1.0,
                          passage_choice=False, record_data=False, passage_bm25_weight=0.0, delegate_share=0.0,
                          **ROUND_8_OFF, **ROUND_9_OFF, **ROUND_10_LOCALISATION_OFF)
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
                 _round_8_symbols, _round_8_prose, _round_8_localisation, _round_9_localisation, _round_10_localisation):
        configs.update(part(default))
    for kind in PRIOR_KINDS:
        configs[f"no-prior-{kind}"] = replace(default, **{f"{kind}_prior": 1.0})
    return configs


def option_names() -> list[str]:
    """Every field of :class:`RankingOptions` (for ``--set name=value`` in the benchmark)."""
    return [f.name for f in fields(RankingOptions)]
