"""What the ranking runs with: :class:`RankingOptions`, the product's defaults (DESIGN §8). The
named configurations the benchmarks compare are :func:`paqad.search.ablations.ablations`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from paqad.config import RRF_K
from paqad.search.signals.older import DEFAULT_SIGNALS

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
    # issue 24, round 10 (bench/README.md): a type name the table holds only as members: its types by text join (text_definitions)
    member_table_types: bool = True
    definition_phrases: bool = True  # "where is Level defined?" ranked as `Level` (symbols.with_phrase_name)
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
    go_package_modules: bool = True  # round 10: a Go file's module is its folder, for the roots test (signals.canonical)
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
    # round 10 (signals.reexports): a qualifier's lift to the best definitions only; other packages' re-exports; definitions' priors
    reexport_best_definitions: bool = True
    reexport_qualifiers: bool = True
    reexport_definition_priors: bool = True
    # round 11 (search.packages): a qualifier part names the package a file belongs to (Cargo/npm/pyproject
    # names, a Go package clause): `grep_regex::X` -> `crates/regex/`, `rand::distr::X` -> the root crate
    package_qualifiers: bool = True
    # round 11 (symbols.qualified_overflow): a qualified name's table matches past the 40-row cap, in files a
    # qualifier part names, join the definitions (`rand::distr::uniform::Error` among 120 `Error` rows)
    qualified_rows: bool = True
    # round 11 (signals.module_qualifiers): a Rust impl's `type Error = Error;` is no module type a qualifier names
    rust_impl_types: bool = True
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
    title_file_definitions: bool = True  # round 10: not for a name the table defines in another file (signals.title_files)
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
    # issue 24, round 11 (bench/README.md "Round 11: prose questions at file level"): a close call at the top of a question: a runner-up (files 2-5) scoring >= evidence_margin x the first file
    # with >= evidence_ratio x its candidate chunks is raised just above it (signals.file_evidence; 0.0 = off;
    # dev where 0.818 -> 0.826, test all 0.878 -> 0.882, no kind or language lower on either half)
    evidence_margin: float = 0.9
    evidence_ratio: float = 3.0
    evidence_depth: int = 1  # the file places settled so, from the first (measured, left at 1: 3 lost dev Java)

    @property
    def gather_depth(self) -> int:
        """How deep gather fetches the dense and BM25 pools for these options (rank cuts them)."""
        return max(self.pool_depth, self.agreement_depth)

    @property
    def rankers(self) -> tuple[str, ...]:
        """The rankers in force, in order: ``("dense", "lexical")``, or one of them."""
        return tuple(name for name, on in (("dense", self.dense), ("lexical", self.lexical)) if on)


def option_names() -> list[str]:
    """Every field of :class:`RankingOptions` (for ``--set name=value`` in the benchmark)."""
    return [f.name for f in fields(RankingOptions)]
