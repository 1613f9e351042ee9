"""Issue 24, round 10 (symbol queries): the misses the held-out benchmark names, on real indexes of
tiny projects with the real model (bench/README.md "Round 10: symbol queries"):

- a cargo workspace whose asked crate (``serde``) re-exports a trait defined in a sibling crate
  (``serde_core``), which also implements it for many types: the definition first, the re-export
  next, for the bare and the qualified name (``reexport_best_definitions``: before it, the qualified
  name lifted every ``impl Serialize for ...`` of ``serde_core`` above the re-export);
- a workspace whose derive-macro crate has a file named like the trait (``from_request.rs``): "where
  is FromRequest defined?" finds the trait (``title_file_definitions``);
- a bare Go type name that the symbol table holds only as 120 same-named methods (``Level()``),
  the type itself closing the file's first chunk: the type first (``member_table_types``), the root
  package's over a subpackage's (``go_package_modules``), and the subpackage's when qualified;
- a name shared by a C macro and a function (``#define gz_getc(g) ...`` in the header, the function
  after ``#undef`` in the ``.c``): the function first, the header next.

(The existing ``wire_app::Codec`` workspace and the C header/implementation pair are
tests/test_ranking_across_packages.py.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import build_index
from conftest import ranked_files as _files
from paqad.search import RankingOptions
from paqad.search.analysis import analyze
from paqad.search.ablations import ROUND_10_SYMBOLS_OFF
from paqad.search.signals import RankingContext
from paqad.search.signals.reexports import reexport_shares
from paqad.search.symbols import DefinitionMatch
from paqad.search.text_definitions import _held_only_as_members
from paqad.store import ChunkRow

ROUND_9 = RankingOptions(**ROUND_10_SYMBOLS_OFF)

SER_MOD = """//! Generic data structure serialization framework.

mod impls;

/// A **data structure** that can be serialized into any data format supported by Serde.
///
/// Serde provides `Serialize` implementations for many Rust primitive and standard library types.
/// Additionally, Serde provides a procedural macro called `serde_derive` to automatically generate
/// `Serialize` implementations for structs and enums in your program.
pub trait Serialize {
    /// Serialize this value into the given Serde serializer.
    fn serialize<S>(&self, serializer: S) -> Result<S::Ok, S::Error>
    where
        S: Serializer;
}

/// A **data format** that can serialize any data structure supported by Serde.
pub trait Serializer: Sized {
    /// The output type produced by this `Serializer` during successful serialization.
    type Ok;
    /// The error type when some error occurs during serialization.
    type Error: Error;

    /// Serialize a `bool` value.
    fn serialize_bool(self, v: bool) -> Result<Self::Ok, Self::Error>;

    /// Serialize an `i64` value.
    fn serialize_i64(self, v: i64) -> Result<Self::Ok, Self::Error>;

    /// Serialize a `&str`.
    fn serialize_str(self, v: &str) -> Result<Self::Ok, Self::Error>;
}
"""
SERDE_IMPLS = """use crate::ser::{Serialize, Serializer};

macro_rules! primitive_impl {
    ($ty:ident, $method:ident $($cast:tt)*) => {
        impl Serialize for $ty {
            #[inline]
            fn serialize<S>(&self, serializer: S) -> Result<S::Ok, S::Error>
            where
                S: Serializer,
            {
                serializer.$method(*self $($cast)*)
            }
        }
    };
}

primitive_impl!(bool, serialize_bool);
primitive_impl!(i64, serialize_i64);

impl Serialize for str {
    #[inline]
    fn serialize<S>(&self, serializer: S) -> Result<S::Ok, S::Error>
    where
        S: Serializer,
    {
        serializer.serialize_str(self)
    }
}

impl Serialize for String {
    #[inline]
    fn serialize<S>(&self, serializer: S) -> Result<S::Ok, S::Error>
    where
        S: Serializer,
    {
        serializer.serialize_str(self)
    }
}

impl<T> Serialize for Option<T>
where
    T: Serialize,
{
    #[inline]
    fn serialize<S>(&self, serializer: S) -> Result<S::Ok, S::Error>
    where
        S: Serializer,
    {
        match *self {
            Some(ref value) => serializer.serialize_some(value),
            None => serializer.serialize_none(),
        }
    }
}
"""
SERDE_CORE_LIB = """//! Serde core: the traits without the derive macros.

pub mod de;
pub mod ser;

pub use crate::de::{Deserialize, Deserializer};
pub use crate::ser::{Serialize, Serializer};
"""
DE_MOD = """//! Generic data structure deserialization framework.

/// A **data structure** that can be deserialized from any data format supported by Serde.
pub trait Deserialize<'de>: Sized {
    /// Deserialize this value from the given Serde deserializer.
    fn deserialize<D>(deserializer: D) -> Result<Self, D::Error>
    where
        D: Deserializer<'de>;
}

/// A **data format** that can deserialize any data structure supported by Serde.
pub trait Deserializer<'de>: Sized {
    /// The error type that can be returned if some error occurs during deserialization.
    type Error: Error;
}
"""
SERDE_LIB = """//! # Serde
//!
//! Serde is a framework for ***ser***ializing and ***de***serializing Rust data structures
//! efficiently and generically.

#![no_std]

pub use serde_core::{de, ser};
pub use serde_core::{Deserialize, Deserializer, Serialize, Serializer};

// Re-export #[derive(Serialize, Deserialize)].
#[cfg(feature = "serde_derive")]
pub use serde_derive::{Deserialize, Serialize};

#[macro_use]
mod macros;

mod private;
"""
DERIVE_LIB = """//! This crate provides Serde's two derive macros.
//!
//! ```
//! #[derive(Serialize, Deserialize)]
//! ```

mod de;
mod ser;

#[proc_macro_derive(Serialize, attributes(serde))]
pub fn derive_serialize(input: TokenStream) -> TokenStream {
    let mut input = parse_macro_input!(input as DeriveInput);
    ser::expand_derive_serialize(&mut input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

#[proc_macro_derive(Deserialize, attributes(serde))]
pub fn derive_deserialize(input: TokenStream) -> TokenStream {
    let mut input = parse_macro_input!(input as DeriveInput);
    de::expand_derive_deserialize(&mut input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
"""
DERIVE_SER = """use proc_macro2::TokenStream;

/// Expands `#[derive(Serialize)]` for a struct or an enum: an `impl Serialize` block.
pub fn expand_derive_serialize(input: &mut syn::DeriveInput) -> syn::Result<TokenStream> {
    let ident = &input.ident;
    let body = serialize_body(input);
    Ok(quote! {
        impl _serde::Serialize for #ident {
            fn serialize<__S>(&self, __serializer: __S) -> _serde::__private::Result<__S::Ok, __S::Error>
            where
                __S: _serde::Serializer,
            {
                #body
            }
        }
    })
}
"""

SERDE_WORKSPACE = {
    "Cargo.toml": '[workspace]\nmembers = ["serde", "serde_core", "serde_derive"]\n',
    "serde/Cargo.toml": '[package]\nname = "serde"\nversion = "1.0.0"\n', "serde/src/lib.rs": SERDE_LIB,
    "serde_core/Cargo.toml": '[package]\nname = "serde_core"\nversion = "1.0.0"\n', "serde_core/src/lib.rs": SERDE_CORE_LIB,
    "serde_core/src/ser/mod.rs": SER_MOD, "serde_core/src/ser/impls.rs": SERDE_IMPLS, "serde_core/src/de/mod.rs": DE_MOD,
    "serde_derive/Cargo.toml": '[package]\nname = "serde_derive"\nversion = "1.0.0"\n', "serde_derive/src/lib.rs": DERIVE_LIB,
    "serde_derive/src/ser.rs": DERIVE_SER,
}

WEB_CORE_EXTRACT = """//! Types and traits for extracting data from requests.

mod rejection;

use crate::body::Body;
use http::request::Parts;

/// Types that can be created from request parts.
///
/// Extractors that implement `FromRequestParts` cannot consume the request body.
pub trait FromRequestParts<S>: Sized {
    /// If the extractor fails it'll use this "rejection" type.
    type Rejection;

    /// Perform the extraction.
    fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection>;
}

/// Types that can be created from requests.
///
/// Extractors that implement `FromRequest` can consume the request body and can thus only be
/// run once for handlers.
pub trait FromRequest<S>: Sized {
    /// If the extractor fails it'll use this "rejection" type.
    type Rejection;

    /// Perform the extraction.
    fn from_request(req: Request<Body>, state: &S) -> Result<Self, Self::Rejection>;
}

impl<S, T> FromRequest<S> for T
where
    T: FromRequestParts<S>,
{
    type Rejection = <Self as FromRequestParts<S>>::Rejection;

    fn from_request(req: Request<Body>, state: &S) -> Result<Self, Self::Rejection> {
        let (mut parts, _) = req.into_parts();
        Self::from_request_parts(&mut parts, state)
    }
}
"""
WEB_CORE_LIB = """//! Core types and traits for the web framework.

pub mod body;
pub mod extract;
pub mod response;
"""
WEB_EXTRACT = """//! Types and traits for extracting data from requests.
//!
//! See the `FromRequest` and `FromRequestParts` traits for how to write your own extractors.

pub mod path;
pub mod rejection;

mod query;
mod state;

pub use web_core::extract::{FromRequest, FromRequestParts};

pub use self::{path::Path, query::Query, state::State};

#[cfg(feature = "json")]
pub use crate::json::Json;
"""
WEB_MACROS_LIB = """//! Macros for the web framework.

mod debug_handler;
mod from_request;

/// Derive an implementation of `FromRequest`.
///
/// Supports generating two kinds of implementations: one that runs each field's extractor
/// and one that wraps another extractor.
#[proc_macro_derive(FromRequest, attributes(from_request))]
pub fn derive_from_request(item: TokenStream) -> TokenStream {
    expand_with(item, |item| from_request::expand(item, from_request::Trait::FromRequest))
}

/// Generates better error messages when applied to handler functions.
#[proc_macro_attribute]
pub fn debug_handler(_attr: TokenStream, input: TokenStream) -> TokenStream {
    expand_attr_with(_attr, input, |attrs, item_fn| debug_handler::expand(attrs, item_fn))
}
"""
WEB_MACROS_FROM_REQUEST = """use proc_macro2::TokenStream;

pub(crate) enum Trait {
    FromRequest,
    FromRequestParts,
}

/// Expands `#[derive(FromRequest)]` for a struct.
pub(crate) fn expand(item: syn::Item, tr: Trait) -> syn::Result<TokenStream> {
    match item {
        syn::Item::Struct(item) => expand_struct(item, tr),
        _ => Err(syn::Error::new_spanned(item, "expected `struct`")),
    }
}
"""

WEB_WORKSPACE = {
    "Cargo.toml": '[workspace]\nmembers = ["web", "web-core", "web-macros"]\n',
    "web-core/Cargo.toml": '[package]\nname = "web-core"\nversion = "0.1.0"\n',
    "web-core/src/lib.rs": WEB_CORE_LIB, "web-core/src/extract/mod.rs": WEB_CORE_EXTRACT,
    "web/Cargo.toml": '[package]\nname = "web"\nversion = "0.1.0"\n',
    "web/src/lib.rs": "//! A web framework.\n\npub mod extract;\n", "web/src/extract/mod.rs": WEB_EXTRACT,
    "web-macros/Cargo.toml": '[package]\nname = "web-macros"\nversion = "0.1.0"\n',
    "web-macros/src/lib.rs": WEB_MACROS_LIB, "web-macros/src/from_request.rs": WEB_MACROS_FROM_REQUEST,
}

LOGKIT = """package logkit

import (
	"fmt"
	"strings"
)

// Fields type, used to pass to WithFields.
type Fields map[string]any

// Level type
type Level uint32

// Convert the Level to a string. E.g. PanicLevel becomes "panic".
func (level Level) String() string {
	if b, err := level.MarshalText(); err == nil {
		return string(b)
	}
	return "unknown"
}

// ParseLevel takes a string level and returns the Logkit log level constant.
func ParseLevel(lvl string) (Level, error) {
	switch strings.ToLower(lvl) {
	case "error":
		return ErrorLevel, nil
	case "info":
		return InfoLevel, nil
	}
	var l Level
	return l, fmt.Errorf("not a valid logkit Level: %q", lvl)
}

// MarshalText implements encoding.TextMarshaler.
func (level Level) MarshalText() ([]byte, error) {
	switch level {
	case ErrorLevel:
		return []byte("error"), nil
	case InfoLevel:
		return []byte("info"), nil
	}
	return nil, fmt.Errorf("not a valid logkit level %d", level)
}

// These are the different logging levels.
const (
	// ErrorLevel level. Logs errors that should definitely be noted.
	ErrorLevel Level = iota
	// InfoLevel level. General operational entries about what's going on inside the application.
	InfoLevel
)
"""
SLOG_LEVEL = """package slog

import (
	"log/slog"

	"example.com/logkit"
)

// Leveler maps a logkit level to the slog level it is written at.
type Leveler interface {
	Level(logkit.Level) slog.Level
}

// LevelerFunc is a function that is a Leveler.
type LevelerFunc func(logkit.Level) slog.Level

// Level calls the function.
func (f LevelerFunc) Level(l logkit.Level) slog.Level {
	return f(l)
}

// Level is a logkit level used as a slog.Leveler.
type Level logkit.Level

// SlogLevel maps every logkit level to one slog level.
type SlogLevel slog.Level

// Level returns the slog level.
func (l SlogLevel) Level(logkit.Level) slog.Level {
	return slog.Level(l)
}
"""
HANDLER = """package handlers

import "example.com/logkit"

// Handler{n} serves the {n}th route and logs at its own level.
type Handler{n} struct {{
	level logkit.Level
}}

// Level returns the level handler {n} logs at: its own level, or the info level when unset.
func (h *Handler{n}) Level() logkit.Level {{
	if h.level == 0 {{
		return logkit.InfoLevel
	}}
	return h.level
}}
"""

GO_MODULE = {"go.mod": "module example.com/logkit\n\ngo 1.21\n", "logkit.go": LOGKIT, "hooks/slog/level.go": SLOG_LEVEL,
             **{f"handlers/h{n:03d}.go": HANDLER.format(n=n) for n in range(120)}}

GZ_H = """#ifndef GZ_H
#define GZ_H

/* An open gzip file: the bytes decompressed ahead of the reader. */
typedef struct gz_state {
    unsigned have;
    unsigned char *next;
    long pos;
} *gzFile;

/* Reads one decompressed byte from file; returns it, or -1 at the end or on an error. */
int gz_getc(gzFile file);

/* The fast path: a byte already decompressed is taken without a call. */
#define gz_getc(g) \\
    ((g)->have ? ((g)->have--, (g)->pos++, *((g)->next)++) : (gz_getc)(g))

#endif
"""

GZREAD_C = """#include "gz.h"

static int gz_fill(gzFile state) {
    /* decompress the next block into the state's buffer */
    return state->have > 0 ? 0 : -1;
}

#undef gz_getc
int gz_getc(gzFile file) {
    if (file == NULL) {
        return -1;
    }
    if (file->have == 0 && gz_fill(file) != 0) {
        return -1;
    }
    file->have--;
    file->pos++;
    return *(file->next)++;
}
"""

GZ_LIBRARY = {"include/gz.h": GZ_H, "src/gzread.c": GZREAD_C,
              "Makefile": "all:\n\tcc -Iinclude -c src/gzread.c\n"}


@pytest.fixture(scope="module")
def serde_workspace(tmp_path_factory, paqad_home) -> Path:
    return build_index(tmp_path_factory.mktemp("round10") / "serde", SERDE_WORKSPACE, paqad_home)


@pytest.fixture(scope="module")
def web_workspace(tmp_path_factory, paqad_home) -> Path:
    return build_index(tmp_path_factory.mktemp("round10") / "web", WEB_WORKSPACE, paqad_home)


@pytest.fixture(scope="module")
def go_module(tmp_path_factory, paqad_home) -> Path:
    return build_index(tmp_path_factory.mktemp("round10") / "logkit", GO_MODULE, paqad_home)


@pytest.fixture(scope="module")
def gz_library(tmp_path_factory, paqad_home) -> Path:
    return build_index(tmp_path_factory.mktemp("round10") / "gz", GZ_LIBRARY, paqad_home)


@pytest.mark.model
@pytest.mark.parametrize("query", ["serde::Serialize", "Serialize"])
def test_a_trait_re_exported_from_a_sibling_crate_ranks_its_definition_first_and_the_re_export_next(serde_workspace, query):
    assert _files(serde_workspace, query)[:2] == ["serde_core/src/ser/mod.rs", "serde/src/lib.rs"]


@pytest.mark.model
def test_the_qualified_name_lifted_every_impl_of_the_trait_above_the_re_export_before_round_10(serde_workspace):
    assert _files(serde_workspace, "serde::Serialize", ROUND_9)[:2] == ["serde_core/src/ser/mod.rs",
                                                                        "serde_core/src/ser/impls.rs"]


@pytest.mark.model
def test_where_is_a_trait_defined_finds_it_not_the_derive_macro_file_named_like_it(web_workspace):
    query = "where is FromRequest defined?"
    assert _files(web_workspace, query)[0] == "web-core/src/extract/mod.rs"
    assert _files(web_workspace, query, ROUND_9)[0] == "web-macros/src/from_request.rs"


@pytest.mark.model
def test_a_bare_type_name_finds_the_type_not_the_same_named_methods(go_module):
    assert _files(go_module, "Level")[0] == "logkit.go"
    # round 9: the root type's chunk was no candidate (120 handlers' `Level()` methods and the slog
    # hook's type filled the pools), and a tie of the two types went by score, not by package
    assert _files(go_module, "Level", ROUND_9)[0] == "hooks/slog/level.go"


@pytest.mark.model
def test_a_qualified_go_type_is_the_named_subpackages(go_module):
    assert _files(go_module, "slog.Level")[0] == "hooks/slog/level.go"


@pytest.mark.model
@pytest.mark.parametrize("query", ["gz_getc", "where is gz_getc defined?"])
def test_a_name_shared_by_a_macro_and_a_function_ranks_the_function_first_and_the_header_next(gz_library, query):
    assert _files(gz_library, query)[:2] == ["src/gzread.c", "include/gz.h"]


# --- the rules on hand-made rows -------------------------------------------------------------------

def _row(cid: int, path: str, symbol: str | None, text: str, kind: str = "block", language: str = "rust") -> ChunkRow:
    return ChunkRow(path=path, start_line=cid * 20, end_line=cid * 20 + 19, language=language, symbol=symbol,
                    kind=kind, signature=None, text=text, id=cid)


def test_a_type_shaped_name_is_held_only_as_members_when_no_table_match_is_a_type_named_so():
    info = analyze("Level")
    level = info.identifiers[0]
    rows = {1: _row(1, "hooks/slog/level.go", "Level.Level", "func (f LevelerFunc) Level() {}", "method", "go"),
            2: _row(2, "logger.go", "Logger.level", "func (l *Logger) level() Level {}", "method", "go"),
            3: _row(3, "logrus.go", "Level", "type Level uint32\n", "type", "go")}
    members = [DefinitionMatch(1, level, True, True, "Level.Level"), DefinitionMatch(2, level, True, False, "Logger.level")]
    assert _held_only_as_members("Level", members, rows)
    assert not _held_only_as_members("Level", [*members, DefinitionMatch(3, level, True, True, "Level")], rows)
    assert not _held_only_as_members("level", members, rows)  # not type-shaped
    assert not _held_only_as_members("MAX_LEVEL", members, rows)  # constant-shaped


def test_the_qualifier_of_a_re_exporting_crate_lifts_the_definition_not_the_uses_of_its_module():
    rows = {1: _row(1, "serde_core/src/ser/mod.rs", "Serialize", "pub trait Serialize {\n    fn serialize(&self);\n}\n",
                    "trait"),
            2: _row(2, "serde_core/src/ser/impls.rs", "str", "impl Serialize for str {\n    fn serialize(&self) {}\n}\n",
                    "impl"),
            3: _row(3, "serde/src/lib.rs", None, "pub use serde_core::{Deserialize, Serialize};\n")}
    info = analyze("serde::Serialize")
    table = (DefinitionMatch(1, info.identifiers[0], False, True, "Serialize"),)

    def shares(options: RankingOptions) -> dict[int, float]:
        context = RankingContext(info=info, options=options, rows=rows, best=1.0, definitions=table,
                                 named_paths=frozenset(), exempt=frozenset())
        return {cid: round(share, 3) for cid, share in reexport_shares(context).items()}

    # the trait's 0.5 (a bare-name match of a qualified identifier) lifted to 1.0; the re-export 0.8 x 1.0
    assert shares(RankingOptions()) == {1: 0.5, 3: 0.8}
    # before: the impl's use share (0.5 x 0.7 x 0.5, trait_impls) lifted to 1.0 as well
    assert shares(ROUND_9) == {1: 0.5, 2: 0.825, 3: 0.8}


@pytest.mark.model
@pytest.mark.parametrize("query", ["where is Level defined?", "what does Level do", "where is the Level type defined?"])
def test_a_definition_question_about_a_one_hump_name_asks_what_the_name_alone_asks(go_module, query):
    assert _files(go_module, query)[0] == "logkit.go"
    # round 9: "Level" in prose is a plain word; the slog hook's level.go is named by it
    assert _files(go_module, query, ROUND_9)[0] == "hooks/slog/level.go"


def test_the_definition_question_shapes_name_one_name_and_leave_other_questions_alone():
    from paqad.search.symbols import _DEFINITION_PHRASE

    def name(query: str) -> str | None:
        match = _DEFINITION_PHRASE.fullmatch(query)
        return match and (match.group("name") or match.group("name2"))

    assert name("where is Level defined?") == "Level"
    assert name("what does rngs::OsRng do") == "rngs::OsRng"
    assert name("where is the `Codec` trait") == "Codec"
    assert name("what does pprint do") == "pprint"
    assert name("Serialize trait defined") == "Serialize"
    # round 6's kind_words shape stays prose (measured, left off), and so do behaviour questions
    assert name("Validator class") is None and name("JsonToken enum") is None
    assert name("how does the parser handle errors?") is None
    assert name("where are routes matched") is None
