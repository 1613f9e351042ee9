"""Issue 24, round 8 (Rust and Java): the rules of this round on hand-made rows with the exact
factors they leave (signals.trait_impls, signals.inline_tests, signals.enum_files,
signals.deprecated_types), and a real
index of a tiny cargo workspace with the real model: a facade crate re-exporting a trait of a
sibling crate that a third crate implements and tests inline."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import build_index
from conftest import ranked_files as _files
from paqad.search import RankingOptions, ablations
from paqad.search.analysis import analyze
from paqad.search.ablations import ROUND_8_OFF
from paqad.search.signals import RankingContext, deprecated_types, enum_files, inline_tests, passage_choice
from paqad.search.signals.deprecated_types import is_deprecated_type_file
from paqad.search.signals.definitions import definition_shares
from paqad.search.signals.enum_files import is_bare_enum_file
from paqad.search.signals.inline_tests import is_inline_test, cfg_test_modules
from paqad.search.signals.trait_impls import defines_rust_name
from paqad.store import ChunkRow


def _row(cid: int, path: str, symbol: str | None, text: str, language: str = "rust", kind: str = "class") -> ChunkRow:
    return ChunkRow(path=path, start_line=cid * 20, end_line=cid * 20 + 19, language=language, symbol=symbol,
                    kind=kind, signature=None, text=text, id=cid)


def _context(query: str, options: RankingOptions, rows: dict[int, ChunkRow], files: dict[str, str] | None = None,
             named: frozenset[str] = frozenset()) -> RankingContext:
    texts = files or {}
    return RankingContext(info=analyze(query), options=options, rows=rows, best=1.0, definitions=(),
                          named_paths=named, exempt=frozenset(), file_text=lambda path: texts.get(path, ""))


# --- trait_impls ---------------------------------------------------------------------------------

def test_a_rust_name_is_defined_by_its_item_its_own_impl_or_its_impl_of_a_trait_not_by_uses():
    assert defines_rust_name("pub trait CryptoRng: RngCore {}", "CryptoRng")
    assert defines_rust_name("pub(crate) struct Shared {\n    vec: Vec<u8>,\n}", "Shared")
    assert defines_rust_name("impl<R: BlockRngCore> BlockRng<R> {\n", "BlockRng")
    assert defines_rust_name("impl CryptoRng for ThreadRng {}", "ThreadRng")
    assert defines_rust_name("impl<R, Rsdr> RngCore for ReseedingRng<R, Rsdr>\nwhere\n", "ReseedingRng")
    assert defines_rust_name("macro_rules! chacha_impl {", "chacha_impl")
    assert defines_rust_name("    pub unsafe fn advance_mut(&mut self, cnt: usize) {", "advance_mut")
    # uses: the trait implemented for another type, a `let` naming it as a type, a parameter
    assert not defines_rust_name("impl<T: DerefMut> CryptoRng for T where T::Target: CryptoRng {}", "CryptoRng")
    assert not defines_rust_name("impl<R, Rsdr> RngCore for ReseedingRng<R, Rsdr>\nwhere\n", "RngCore")
    assert not defines_rust_name("    let rng2 = &mut rng1.clone() as &mut dyn CryptoRng;", "CryptoRng")
    assert not defines_rust_name("pub fn fill(rng: &mut impl RngCore) {", "RngCore")
    assert not defines_rust_name("pub trait CryptoRngExt {}", "CryptoRng")


# rand 0.9 as the index holds it: the trait in rand_core, implementations and a test elsewhere
TRAIT_ROWS = {
    1: _row(1, "rand_core/src/lib.rs", "CryptoRng", "/// A marker trait.\npub trait CryptoRng: RngCore {}\n"),
    2: _row(2, "rand_core/src/lib.rs", "T", "impl<T: DerefMut> CryptoRng for T where T::Target: CryptoRng {}\n",
            kind="impl"),
    3: _row(3, "src/rngs/thread.rs", "ThreadRng", "impl CryptoRng for ThreadRng {}\n", kind="impl"),
    4: _row(4, "rand_chacha/src/chacha.rs", "test.test_trait_objects",
            "    #[test]\n    fn test_trait_objects() {\n        let rng2 = &mut rng1.clone() as &mut dyn CryptoRng;\n",
            kind="method"),
    5: _row(5, "src/lib.rs", None, "pub use rand_core::{CryptoRng, RngCore, SeedableRng};\n", kind="module"),
}


def test_uses_of_a_trait_get_half_the_share_of_its_definition_with_the_rule_on():
    # rule off: every use keeps the share of a non-type definition beside the type (constructor_share 0.7)
    before = definition_shares(_context("CryptoRng", RankingOptions(trait_impl_share=1.0), TRAIT_ROWS))
    assert before == pytest.approx({1: 1.0, 2: 0.7, 3: 0.7, 4: 0.7})
    after = definition_shares(_context("CryptoRng", RankingOptions(), TRAIT_ROWS))
    assert after == pytest.approx({1: 1.0, 2: 0.35, 3: 0.35, 4: 0.35})
    # a type named in the query: its `impl Trait for Type` block is its own code and keeps its share
    typed = definition_shares(_context("ThreadRng", RankingOptions(), TRAIT_ROWS))
    assert typed == pytest.approx({3: 1.0})


def test_uses_keep_their_share_when_no_candidate_defines_the_name():
    rows = {cid: row for cid, row in TRAIT_ROWS.items() if cid != 1}
    assert definition_shares(_context("CryptoRng", RankingOptions(), rows)) == pytest.approx({2: 1.0, 3: 1.0, 4: 1.0})
    java = {6: _row(6, "Sink.java", "Sink", "interface Sink {}\n", "java"),
            7: _row(7, "FileSink.java", "FileSink", "    let s = (Sink) other;\n", "java")}
    # the rule reads Rust only: a Java line the loose rule takes keeps its share
    assert definition_shares(_context("Sink", RankingOptions(), java)) == pytest.approx({6: 1.0, 7: 0.7})


# --- inline_tests --------------------------------------------------------------------------------

RNG_FILE = ("pub trait Rng: RngCore {\n    fn random<T>(&mut self) -> T;\n}\n\nimpl<R: RngCore + ?Sized> Rng for R {}\n\n"
            "#[cfg(test)]\nmod test {\n    use super::*;\n\n    #[test]\n    fn test_rng_boxed_trait() {\n")
RNG_ROWS = {
    1: _row(1, "src/rng.rs", "Rng", "/// The user-facing generator trait.\n///\n/// Every RngCore is an Rng.\n"
            "pub trait Rng: RngCore {\n"),
    2: _row(2, "src/rng.rs", "Rng.random",
            "    fn random<T>(&mut self) -> T\n    where\n        StandardUniform: Distribution<T>,\n    {\n"
            "        let x = StandardUniform.sample(self);\n        if x.is_nan() {\n            return self.random();\n"
            "        }\n        x\n    }\n", kind="method"),
    3: _row(3, "src/rng.rs", "test.test_rng_boxed_trait",
            "    #[test]\n    fn test_rng_boxed_trait() {\n        let rng = &mut StepRng::new(0, 1) as &mut dyn RngCore;\n"
            "        let mut r = Box::new(rng) as Box<dyn Rng>;\n        r.next_u32();\n        r.random::<i32>();\n"
            "        assert_eq!(r.random_range(0..1), 0);\n        r.random_bool(0.5);\n    }\n", kind="method"),
    4: _row(4, "tests/fill.rs", "fill_slice", "#[test]\nfn fill_slice() {\n", kind="function"),
    5: _row(5, "src/seq/index.rs", "test.test_sample_alg", "    fn test_sample_alg() {\n", kind="method"),
}


def test_a_module_under_cfg_test_names_the_test_chunks_of_its_file():
    assert cfg_test_modules(RNG_FILE) == frozenset({"test"})
    assert cfg_test_modules("#[cfg(test)]\n#[allow(unused)]\npub(crate) mod tests {\n") == frozenset({"tests"})
    assert cfg_test_modules("#[cfg(feature = \"std\")]\nmod test {\n") == frozenset()
    assert is_inline_test("test.test_rng_boxed_trait", "    fn test_rng_boxed_trait() {\n", RNG_FILE)
    assert not is_inline_test("Rng.random", RNG_ROWS[2].text, RNG_FILE)
    assert is_inline_test(None, "#[test]\nfn fill_slice() {\n", "")  # a test function outside such a module
    # `test.` names no test module of a file without `#[cfg(test)]`
    assert not is_inline_test("test.test_sample_alg", "    fn test_sample_alg() {\n", "mod test {\n")


def test_inline_test_chunks_get_the_factor_unless_the_query_asks_for_tests():
    files = {"src/rng.rs": RNG_FILE, "src/seq/index.rs": "mod test {\n"}
    scores = {cid: 1.0 for cid in RNG_ROWS}
    query = "which trait does a new generator implement so that the Rng methods work on it?"
    on = RankingOptions(inline_test_prior=0.3)
    out = inline_tests.apply(scores, _context(query, on, RNG_ROWS, files))
    assert out == pytest.approx({1: 1.0, 2: 1.0, 3: 0.3, 4: 0.3, 5: 1.0})
    asked = inline_tests.apply(scores, _context("which tests cover the Rng trait?", on, RNG_ROWS, files))
    assert asked == scores
    named = inline_tests.apply(scores, _context(query, on, RNG_ROWS, files, named=frozenset({"src/rng.rs"})))
    assert named == pytest.approx({1: 1.0, 2: 1.0, 3: 1.0, 4: 0.3, 5: 1.0})


def test_passage_choice_trades_a_doc_comment_for_code_not_for_the_inline_test():
    files = {"src/rng.rs": RNG_FILE}
    rows = {cid: RNG_ROWS[cid] for cid in (1, 2, 3)}
    scores = {1: 0.9, 3: 0.5, 2: 0.4}  # the doc comment first, then the test, then the method
    query = "how does a generator produce a value of any type through the standard distribution?"
    off = passage_choice.apply(scores, _context(query, RankingOptions(**ROUND_8_OFF), rows, files))
    assert off == {1: 0.5, 3: 0.9, 2: 0.4}  # rule off: the test takes the doc comment's place
    assert passage_choice.apply(scores, _context(query, RankingOptions(), rows, files)) == off  # off by default
    on = passage_choice.apply(scores, _context(query, RankingOptions(inline_test_prior=0.3), rows, files))
    assert on == {1: 0.4, 3: 0.5, 2: 0.9}


# --- enum_files ----------------------------------------------------------------------------------

QUOTE_MODE = """/*
 * Licensed to the Apache Software Foundation (ASF) under one or more contributor license agreements.
 */

package org.apache.commons.csv;

/**
 * Defines quotation behavior when printing.
 */
public enum QuoteMode {

    /**
     * Quotes all fields.
     */
    ALL,

    /**
     * Quotes fields that contain special characters such as a the field delimiter, quote character or any of the
     * characters in the line separator string.
     */
    MINIMAL,

    /**
     * Never quotes fields.
     */
    NONE
}
"""

TOKEN_TYPE = """package org.apache.commons.csv;

enum Type {
    INVALID, TOKEN;

    boolean isEnd() {
        return this == INVALID;
    }
}
"""


def test_a_bare_enum_file_is_an_enum_of_plain_constants_and_nothing_else():
    assert is_bare_enum_file("src/main/java/org/apache/commons/csv/QuoteMode.java", QUOTE_MODE)
    assert is_bare_enum_file("src/level.ts", "// Levels.\nexport enum Level {\n  Debug = 0,\n  Info = 1,\n}\n")
    assert not is_bare_enum_file("src/main/java/org/apache/commons/csv/Token.java", TOKEN_TYPE)  # a method
    assert not is_bare_enum_file("quote_mode.rs", "pub enum QuoteMode { All, Minimal }\n")  # Rust: not judged
    assert not is_bare_enum_file("Lexer.java", "final class Lexer {\n    enum Mode { A, B }\n}\n")


ENUM_ROWS = {
    1: _row(1, "src/main/java/org/apache/commons/csv/QuoteMode.java", "QuoteMode", QUOTE_MODE, "java"),
    2: _row(2, "src/main/java/org/apache/commons/csv/CSVFormat.java", "CSVFormat.printWithQuotes",
            "    private void printWithQuotes(final Object object, final CharSequence charSeq) {\n", "java", "method"),
}
ENUM_FILES = {row.path: row.text for row in ENUM_ROWS.values()}


def test_bare_enum_files_get_the_factor_in_questions_that_do_not_ask_for_the_values():
    scores = {1: 1.0, 2: 0.9}
    query = "how does the printer decide whether a value needs to be quoted?"
    assert enum_files.apply(scores, _context(query, RankingOptions(), ENUM_ROWS, ENUM_FILES)) == pytest.approx({1: 0.7, 2: 0.9})
    for asks in ("which quote modes are there?", "what does the QuoteMode enum hold?"):
        assert enum_files.apply(scores, _context(asks, RankingOptions(), ENUM_ROWS, ENUM_FILES)) == scores
    assert enum_files.apply(scores, _context("QuoteMode", RankingOptions(), ENUM_ROWS, ENUM_FILES)) == scores


# --- deprecated_types ----------------------------------------------------------------------------

OLD_PARSER = """/**
 * Parser creates {@link CommandLine}s.
 *
 * @deprecated since 1.3, the two-pass parsing with the flatten method is not enough flexible to handle complex cases
 */
@Deprecated
public abstract class Parser implements CommandLineParser {

    protected void checkRequiredOptions() throws MissingOptionException {
"""
NEW_PARSER = """/**
 * Default parser.
 */
public class DefaultParser implements CommandLineParser {

    /** @deprecated use the builder */
    @Deprecated
    public DefaultParser() {
    }

    protected void checkRequiredOptions() throws MissingOptionException {
"""


def test_a_deprecated_type_file_marks_the_type_named_like_the_file():
    assert is_deprecated_type_file("src/main/java/org/apache/commons/cli/Parser.java", OLD_PARSER)
    assert is_deprecated_type_file("src/Legacy.cs", "[Obsolete(\"Use Modern\")]\npublic sealed class Legacy {\n")
    assert is_deprecated_type_file("src/Old.kt", "@Deprecated(\"use New\")\nclass Old {\n")
    # a deprecated constructor of a live class, and another file's name
    assert not is_deprecated_type_file("src/main/java/org/apache/commons/cli/DefaultParser.java", NEW_PARSER)
    assert not is_deprecated_type_file("src/main/java/org/apache/commons/cli/Other.java", OLD_PARSER)
    assert not is_deprecated_type_file("parser.py", OLD_PARSER)


DEPRECATED_ROWS = {
    1: _row(1, "src/main/java/org/apache/commons/cli/Parser.java", "Parser.checkRequiredOptions", OLD_PARSER, "java"),
    2: _row(2, "src/main/java/org/apache/commons/cli/DefaultParser.java", "DefaultParser.checkRequiredOptions",
            NEW_PARSER, "java"),
}
DEPRECATED_FILES = {row.path: row.text for row in DEPRECATED_ROWS.values()}


def test_deprecated_type_files_get_the_factor_in_questions_not_asking_for_old_code():
    scores = {1: 1.0, 2: 0.8}
    query = "where are missing required options detected after parsing?"
    out = deprecated_types.apply(scores, _context(query, RankingOptions(), DEPRECATED_ROWS, DEPRECATED_FILES))
    assert out == pytest.approx({1: 0.7, 2: 0.8})
    old = "how did the old parser detect missing required options?"
    assert deprecated_types.apply(scores, _context(old, RankingOptions(), DEPRECATED_ROWS, DEPRECATED_FILES)) == scores
    named = _context(query, RankingOptions(), DEPRECATED_ROWS, DEPRECATED_FILES, named=frozenset({DEPRECATED_ROWS[1].path}))
    assert deprecated_types.apply(scores, named) == scores


def test_round_8_configs_switch_each_rule_off():
    configs = ablations()
    assert configs["with-inline-tests"].inline_test_prior == 0.3
    assert configs["no-enum-files"].enum_file_prior == 1.0
    assert configs["no-trait-impls"].trait_impl_share == 1.0
    assert configs["no-deprecated-types"].deprecated_prior == 1.0
    default = RankingOptions()
    assert (default.inline_test_prior, default.enum_file_prior, default.trait_impl_share,
            default.deprecated_prior) == (1.0, 0.7, 0.5, 0.7)
    assert all(getattr(configs["round-7-default"], name) == value for name, value in ROUND_8_OFF.items())


# --- a real index: a workspace whose facade re-exports a sibling crate's trait -------------------

SINK_CORE = """//! The traits every crate of the workspace shares.

/// A destination for log records: formats and writes them somewhere.
pub trait Sink {
    /// Writes one record.
    fn write(&mut self, record: &str);

    /// Flushes what is buffered.
    fn flush(&mut self) {}
}
"""

SINK_FACADE = """//! Logging for applications: re-exports the core traits and the sinks.

pub use logkit_core::Sink;
pub use logkit_sinks::{FileSink, MemorySink};
"""

SINKS = """use logkit_core::Sink;

/// Keeps every record in memory.
pub struct MemorySink {
    records: Vec<String>,
}

impl Sink for MemorySink {
    fn write(&mut self, record: &str) {
        self.records.push(record.to_string());
    }
}

/// Appends records to a file.
pub struct FileSink {
    path: std::path::PathBuf,
}

impl Sink for FileSink {
    fn write(&mut self, record: &str) {
        let _ = std::fs::write(&self.path, record);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_sink_keeps_records() {
        let mut sink = MemorySink { records: Vec::new() };
        let s: &mut dyn Sink = &mut sink;
        s.write("one");
        assert_eq!(sink.records, vec!["one".to_string()]);
    }
}
"""

LOGKIT = {
    "Cargo.toml": '[workspace]\nmembers = ["logkit", "logkit-core", "logkit-sinks"]\n',
    "logkit-core/Cargo.toml": '[package]\nname = "logkit-core"\nversion = "0.1.0"\n',
    "logkit-core/src/lib.rs": SINK_CORE,
    "logkit-sinks/Cargo.toml": '[package]\nname = "logkit-sinks"\nversion = "0.1.0"\n',
    "logkit-sinks/src/lib.rs": SINKS,
    "logkit/Cargo.toml": '[package]\nname = "logkit"\nversion = "0.1.0"\n',
    "logkit/src/lib.rs": SINK_FACADE,
}


@pytest.fixture(scope="module")
def logkit(tmp_path_factory, paqad_home) -> Path:
    return build_index(tmp_path_factory.mktemp("round8") / "logkit", LOGKIT, paqad_home)


@pytest.mark.parametrize("query", ["logkit::Sink", "Sink"])
def test_a_trait_the_facade_re_exports_finds_its_definition_then_the_re_export_then_its_impls(logkit, query):
    assert _files(logkit, query)[:3] == ["logkit-core/src/lib.rs", "logkit/src/lib.rs", "logkit-sinks/src/lib.rs"]



def _chunks(root: Path, query: str, options: RankingOptions) -> list[tuple[str, int, int]]:
    from paqad.config import load_settings
    from paqad.project import ProjectPaths
    from paqad.search import load_embedder, search

    paths = ProjectPaths(root)
    settings = load_settings(paths, environ={})
    embedder, why = load_embedder(paths, settings)
    assert why is None
    return [(r.path, r.start_line, r.end_line) for r in search(paths, settings, query, embedder=embedder, options=options).results]



@pytest.mark.parametrize(("query", "answer"), [("how is a record written to a sink?", ("logkit-sinks/src/lib.rs", 8, 12)),
                                               ("where does the memory sink keep its records?", ("logkit-sinks/src/lib.rs", 1, 6))])
def test_a_question_gets_the_code_of_the_sinks_crate_not_its_inline_test(logkit, query, answer):
    test_module = ("logkit-sinks/src/lib.rs", 25, 36)
    on = RankingOptions(inline_test_prior=0.3)  # with-inline-tests (left off by default)
    assert _chunks(logkit, query, on)[0] == answer
    assert _chunks(logkit, query, RankingOptions(**ROUND_8_OFF))[0] == test_module  # the round's rules off
    assert test_module not in _chunks(logkit, "Sink", on)[:3]
