"""Issue 24, round 11 (symbol queries, branch defs11): a qualifier that names a Cargo *package*, not
a folder (bench/README.md "Round 11: symbol queries"; the held-out miss ``grep_regex::RegexMatcher``,
whose crate is ``crates/regex`` under ``[package] name = "grep-regex"``).

A workspace of three crates under package names their folders do not spell (``acme-matcher`` in
``crates/matcher``, ``acme-regex`` in ``crates/regex``, ``acme-pcre2`` in ``crates/pcre2``): the
trait ``Matcher`` is defined in the first and re-exported by the other two, which each define a
``RegexMatcher``. With ``package_qualifiers`` the asked package decides: its type first, and for
the re-exported trait, the definition first and the asked package's re-export next.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from conftest import build_index
from conftest import ranked_files as _files
from paqad.search import RankingOptions
from paqad.search.analysis import analyze
from paqad.search.packages import Packages, go_package, manifest_names, package_names, read_packages
from paqad.search.signals import RankingContext
from paqad.search.signals.module_qualifiers import module_shares
from paqad.search.symbols import DefinitionMatch
from paqad.store import ChunkRow

ON = replace(RankingOptions(), package_qualifiers=True)
OFF = replace(RankingOptions(), package_qualifiers=False)

MATCHER_LIB = """//! An interface for regular expression matchers used by the search crates.

use std::fmt;

/// The type of a match: a start and an end offset into the haystack.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct Match {
    start: usize,
    end: usize,
}

/// A matcher defines an interface for regular expression implementations.
///
/// Implementations report where a pattern matches in a haystack; the searcher drives them line
/// by line and never needs to know which regex engine is behind the trait.
pub trait Matcher {
    /// The error type used by this matcher.
    type Error: fmt::Display;

    /// Returns the start and end offsets of the first match in `haystack`, if any.
    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, Self::Error>;

    /// Returns true if and only if the matcher matches the given haystack.
    fn is_match(&self, haystack: &[u8]) -> Result<bool, Self::Error> {
        Ok(self.find_at(haystack, 0)?.is_some())
    }
}
"""


def _engine_lib(engine: str) -> str:
    return f"""//! A `Matcher` implementation backed by the {engine} engine.

pub use acme_matcher::Matcher;

pub use crate::matcher::{{RegexMatcher, RegexMatcherBuilder}};

mod error;
mod matcher;
"""


def _engine_matcher(engine: str) -> str:
    return f"""use acme_matcher::{{Match, Matcher}};

use crate::error::Error;

/// A builder for configuring the compilation of a {engine} regex.
#[derive(Clone, Debug, Default)]
pub struct RegexMatcherBuilder {{
    case_insensitive: bool,
    multi_line: bool,
}}

impl RegexMatcherBuilder {{
    /// Build a new matcher from a pattern.
    pub fn build(&self, pattern: &str) -> Result<RegexMatcher, Error> {{
        let regex = {engine}::Regex::new(pattern, self.case_insensitive, self.multi_line)?;
        Ok(RegexMatcher {{ regex }})
    }}
}}

/// An implementation of the `Matcher` trait using the {engine} regex engine.
#[derive(Clone, Debug)]
pub struct RegexMatcher {{
    regex: {engine}::Regex,
}}

impl Matcher for RegexMatcher {{
    type Error = Error;

    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, Error> {{
        Ok(self.regex.find_at(haystack, at).map(|m| Match::new(m.start(), m.end())))
    }}
}}
"""


def _engine_error(engine: str) -> str:
    return f"""/// An error that can occur while building a {engine} matcher.
#[derive(Clone, Debug)]
pub struct Error {{
    message: String,
}}
"""


WORKSPACE: dict[str, str] = {
    "Cargo.toml": '[workspace]\nmembers = ["crates/matcher", "crates/regex", "crates/pcre2"]\n',
    "crates/matcher/Cargo.toml": '[package]\nname = "acme-matcher"\nversion = "0.1.0"\nedition = "2021"\n',
    "crates/matcher/src/lib.rs": MATCHER_LIB,
}
for _folder, _engine in (("regex", "regex"), ("pcre2", "pcre2")):
    WORKSPACE[f"crates/{_folder}/Cargo.toml"] = (f'[package]\nname = "acme-{_folder}"\nversion = "0.1.0"\n\n'
                                                 f'[dependencies]\nacme-matcher = {{ path = "../matcher" }}\n')
    WORKSPACE[f"crates/{_folder}/src/lib.rs"] = _engine_lib(_engine)
    WORKSPACE[f"crates/{_folder}/src/matcher.rs"] = _engine_matcher(_engine)
    WORKSPACE[f"crates/{_folder}/src/error.rs"] = _engine_error(_engine)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory, paqad_home) -> Path:
    return build_index(tmp_path_factory.mktemp("round11") / "acme", WORKSPACE, paqad_home)


@pytest.mark.model
@pytest.mark.parametrize("folder", ["regex", "pcre2"])
def test_a_package_qualifier_picks_the_type_of_the_crate_it_names(workspace, folder):
    assert _files(workspace, f"acme_{folder}::RegexMatcher", ON)[0] == f"crates/{folder}/src/matcher.rs"


@pytest.mark.model
def test_without_package_names_the_qualifier_named_no_folder_and_the_namesakes_tied(workspace):
    assert _files(workspace, "acme_regex::RegexMatcher", OFF)[:2] == ["crates/pcre2/src/matcher.rs",
                                                                      "crates/regex/src/matcher.rs"]


@pytest.mark.model
def test_a_trait_the_asked_package_re_exports_ranks_its_definition_first_and_the_re_export_next(workspace):
    assert _files(workspace, "acme_pcre2::Matcher", ON)[:2] == ["crates/matcher/src/lib.rs", "crates/pcre2/src/lib.rs"]


def test_manifests_name_their_folders_package():
    assert manifest_names("crates/regex/Cargo.toml",
                          '[package]\nname = "grep-regex"\n\n[dependencies]\nname = "x"\n\n[lib]\nname = "grep_rx"\n') == {
        "grep_regex", "grep_rx"}
    assert manifest_names("Cargo.toml", '[workspace]\nmembers = ["a"]\n') == frozenset()
    assert manifest_names("packages/core/package.json", '{\n  "name": "@acme/core-lib",\n  "version": "1.0.0"\n}') == {
        "core_lib"}
    assert manifest_names("pyproject.toml", '[project]\nname = "PyYAML"\n') == {"pyyaml"}
    assert manifest_names("src/lib.rs", '[package]\nname = "x"\n') == frozenset()
    assert go_package("// Package logrus is a logger.\npackage logrus\n\nimport \"io\"\n") == "logrus"
    assert go_package("package logrus_test\n") == "logrus" and go_package("package main\n") is None


def test_a_file_belongs_to_the_package_of_the_deepest_manifest_above_it():
    texts = {"Cargo.toml": '[package]\nname = "rand"\n\n[workspace]\nmembers = ["rand_core"]\n',
             "rand_core/Cargo.toml": '[package]\nname = "rand_core"\n',
             "benches/Cargo.toml": '[workspace]\n'}
    packages = read_packages([*texts, "src/distr/uniform.rs", "rand_core/src/lib.rs"], texts.__getitem__)
    assert packages == Packages({"": frozenset({"rand"}), "rand_core": frozenset({"rand_core"})})
    assert packages.names("src/distr/uniform.rs") == {"rand"}
    assert packages.names("rand_core/src/os.rs") == {"rand_core"}
    assert packages.names("benches/src/a.rs") == {"rand"}  # a workspace without a package names none



def _error_enum(what: str, variants: tuple[str, ...]) -> str:
    body = "\n".join(f"    /// {v} {what}.\n    {v}," for v in variants)
    return f"""use core::fmt;

/// Error type returned when building a {what} distribution fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {{
{body}
}}

impl fmt::Display for Error {{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {{
        f.write_str("invalid {what} parameters")
    }}
}}
"""


# a root crate (`dice`, the project's own folder) beside a member crate: paths under `src/` hold no `dice`
DICE = {
    "Cargo.toml": '[package]\nname = "dice"\nversion = "0.1.0"\n\n[workspace]\nmembers = ["dice_distr"]\n',
    "src/lib.rs": "//! Random dice.\n\npub mod distr;\n",
    "src/distr/mod.rs": "//! Distributions.\n\npub mod uniform;\npub mod weighted;\n",
    "src/distr/uniform.rs": _error_enum("uniform", ("EmptyRange", "NonFinite")),
    "src/distr/weighted/mod.rs": _error_enum("weighted", ("InvalidInput", "InvalidWeight", "Overflow")),
    "dice_distr/Cargo.toml": '[package]\nname = "dice_distr"\nversion = "0.1.0"\n',
    "dice_distr/src/lib.rs": "//! More distributions.\n\npub mod normal;\npub mod gamma;\n",
    "dice_distr/src/normal.rs": _error_enum("normal", ("MeanTooSmall", "BadVariance")),
    "dice_distr/src/gamma.rs": _error_enum("gamma", ("ShapeTooSmall", "ScaleTooLarge")),
}


@pytest.fixture(scope="module")
def dice(tmp_path_factory, paqad_home) -> Path:
    return build_index(tmp_path_factory.mktemp("round11") / "dice", DICE, paqad_home)



@pytest.mark.model
@pytest.mark.parametrize(("query", "path"), [("dice::distr::weighted::Error", "src/distr/weighted/mod.rs"),
                                             ("dice::distr::uniform::Error", "src/distr/uniform.rs")])
def test_the_root_crates_name_qualifies_its_files(dice, query, path):
    assert _files(dice, query, ON)[0] == path


def test_the_module_qualifier_rule_reads_the_root_crates_name_from_its_manifest():
    """Hand-made rows: ``dice::distr::uniform::Error`` names ``src/distr/uniform.rs`` only through the
    root manifest's ``[package] name = "dice"`` (its path holds no ``dice``): the bare-name share 0.5
    of that definition is lifted to 1.0; without package names no definition is lifted."""
    rows = {1: _row(1, "src/distr/uniform.rs", "Error", "pub enum Error {\n    EmptyRange,\n}\n"),
            2: _row(2, "dice_distr/src/normal.rs", "Error", "pub enum Error {\n    BadVariance,\n}\n")}
    info = analyze("dice::distr::uniform::Error")
    table = tuple(DefinitionMatch(cid, info.identifiers[0], False, True, "Error") for cid in rows)
    texts = {"Cargo.toml": '[package]\nname = "dice"\n', "dice_distr/Cargo.toml": '[package]\nname = "dice_distr"\n'}
    names = package_names(lambda: read_packages(texts, texts.__getitem__), None)

    def shares(options: RankingOptions) -> dict[int, float]:
        context = RankingContext(info=info, options=options, rows=rows, best=1.0, definitions=table,
                                 named_paths=frozenset(), exempt=frozenset(), package_names=names)
        return {cid: round(share, 3) for cid, share in module_shares(context).items()}

    assert shares(ON) == {1: 0.5}
    assert shares(OFF) == {}


def _row(cid: int, path: str, symbol: str | None, text: str, kind: str = "enum", language: str = "rust") -> ChunkRow:
    return ChunkRow(path=path, start_line=cid * 20, end_line=cid * 20 + 19, language=language, symbol=symbol,
                    kind=kind, signature=None, text=text, id=cid)


def test_manifest_names_skip_arrays_of_tables_and_nested_json_names():
    """A `[[bin]]` right after `[package]`, a Poetry source index, a PEP 621 author table and a
    package.json author object before the top-level name are no package names (qa12)."""
    cargo = '[package]\nname = "foo"\n\n[[bin]]\nname = "foo-cli"\npath = "src/main.rs"\n'
    poetry = '[tool.poetry]\nname = "app"\n\n[[tool.poetry.source]]\nname = "private"\nurl = "x"\n'
    pep621 = '[project]\nname = "app"\n[[project.authors]]\nname = "Jane"\n'
    npm = '{"author": {"name": "Jane"}, "name": "@acme/core"}'
    assert manifest_names("Cargo.toml", cargo) == frozenset({"foo"})
    assert manifest_names("pyproject.toml", poetry) == frozenset({"app"})
    assert manifest_names("pyproject.toml", pep621) == frozenset({"app"})
    assert manifest_names("web/package.json", npm) == frozenset({"core"})
    assert manifest_names("web/package.json", '{"name": "x",') == frozenset({"x"})
    assert manifest_names("web/package.json", '[{"name": "x"}]') == frozenset()
