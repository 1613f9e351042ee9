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
from paqad.search.packages import Packages, go_package, manifest_names, read_packages

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

