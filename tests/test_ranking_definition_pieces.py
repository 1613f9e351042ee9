"""Which piece of a definition an exact-name lookup lands on (issue 24), on real indexes of tiny
projects with the real model; each test asserts the first chunk (file and first line):

- a C ``typedef struct ... } name;`` longer than one chunk: its first piece (the ``typedef struct``
  line), not the last one that holds the name (``paqad.search.definition_heads``);
- TypeScript overload signatures above the implementation: the implementation
  (``signals/overloads.py``);
- a Rust type defined in two modules, asked as ``module::Type``: the named module's struct, not
  the other module's, nor its own ``impl`` block (``signals/module_qualifiers.py`` and the type
  preference of ``signals/definitions.py``);
- a Go function written once per platform: the core copy, or the one the query names
  (``signals/platform_twins.py``);
- a Ruby ``Request = Struct.new`` whose namespace other files reopen to nest classes: the
  ``Struct.new`` line (``signals/reopenings.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import build_index
from paqad.config import load_settings
from paqad.project import ProjectPaths
from paqad.search import RankingOptions, load_embedder, search

# A struct of ~1,900 characters: the chunker cuts it into three pieces, and its name comes last.
_FIELDS = "\n".join(
    f"    /** The {what} of the emitter's output stream, kept between calls. */\n    int {name};"
    for what, name in [("column", "column"), ("line number", "line"), ("indentation width", "best_indent"),
                       ("preferred line width", "best_width"), ("open flow level", "flow_level"),
                       ("whitespace flag", "whitespace"), ("indention flag", "indention"),
                       ("open-ended flag", "open_ended"), ("canonical flag", "canonical"),
                       ("unicode flag", "unicode"), ("line break style", "line_break"),
                       ("pending event count", "events_pending"), ("last error code", "error_code"),
                       ("anchor count", "anchor_count"), ("tag directive count", "tag_count")])
EMITTER_H = f"""#ifndef EMITTER_H
#define EMITTER_H

/** Where a document is written and how far the writer has got. */
typedef struct emitter_s {{
{_FIELDS}
}} emitter_t;

/** Starts an emitter with default settings; returns 0 on success. */
int emitter_initialize(emitter_t *emitter);

#endif
"""

EMITTER_C = """#include "emitter.h"

int emitter_initialize(emitter_t *emitter) {
    emitter->column = 0;
    emitter->line = 0;
    emitter->best_indent = 2;
    emitter->best_width = 80;
    return 0;
}

int emitter_reset(emitter_t *emitter) {
    emitter->column = 0;
    emitter->flow_level = 0;
    return emitter_initialize(emitter);
}
"""

TS_COMMON = """import {Draft, Objectish} from "./types"

/**
 * Calls `iter` for each own property of a plain object, or each entry of a map, a set or an
 * array, with the key, the value and the collection itself.
 */
export function forEachEntry<T extends Objectish>(
	collection: T,
	iter: (key: string | number, value: any, source: T) => void
): void
export function forEachEntry(collection: any, iter: any) {
	if (Array.isArray(collection) || collection instanceof Map || collection instanceof Set) {
		collection.forEach((value: any, key: any) => iter(key, value, collection))
		return
	}
	Object.keys(collection).forEach(key => {
		iter(key, collection[key], collection)
	})
}

/** The number of entries `forEachEntry` would visit. */
export function entryCount(collection: any): number {
	let count = 0
	forEachEntry(collection, () => {
		count++
	})
	return count
}
"""

TS_TYPES = """export type Objectish = any[] | Map<any, any> | Set<any> | {[key: string]: any}

export type Draft<T> = T extends object ? {-readonly [K in keyof T]: Draft<T[K]>} : T
"""

FRAME_RS = """//! Frames on the wire.

/// The fixed part in front of every frame: its type and the length of its payload.
pub struct Header {
    pub kind: u8,
    pub length: u32,
}

impl Header {
    /// Reads a frame header from the first five bytes of `input`.
    pub fn parse(input: &[u8]) -> Option<Header> {
        let kind = *input.first()?;
        let length = u32::from_be_bytes(input.get(1..5)?.try_into().ok()?);
        Some(Header { kind, length })
    }
}
"""

STREAM_RS = """//! Streams multiplexed over one connection.

/// What a stream sends before its first frame: the stream id and its priority.
pub struct Header {
    pub stream_id: u32,
    pub priority: u8,
}

impl Header {
    /// A header for stream `stream_id` at the default priority.
    pub fn new(stream_id: u32) -> Header {
        Header { stream_id, priority: 16 }
    }

    /// Whether the stream was opened by the client (odd ids).
    pub fn client_initiated(&self) -> bool {
        self.stream_id % 2 == 1
    }
}
"""

LIB_RS = "pub mod frame;\npub mod stream;\n"

GO_OTHER = """//go:build !windows && !appengine

package logx

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// checkIfTerminal reports whether w is a terminal that understands colour escapes.
func checkIfTerminal(w io.Writer) bool {
	switch v := w.(type) {
	case *os.File:
		_, err := unix.IoctlGetTermios(int(v.Fd()), unix.TCGETS)
		return err == nil
	default:
		return false
	}
}
"""

GO_WINDOWS = """//go:build windows && !appengine

package logx

import (
	"io"
	"os"

	"golang.org/x/sys/windows"
)

// checkIfTerminal reports whether w is a console, and switches on its colour escapes.
func checkIfTerminal(w io.Writer) bool {
	switch v := w.(type) {
	case *os.File:
		handle := windows.Handle(v.Fd())
		var mode uint32
		if err := windows.GetConsoleMode(handle, &mode); err != nil {
			return false
		}
		mode |= windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING
		return windows.SetConsoleMode(handle, mode) == nil
	}
	return false
}
"""

GO_FORMATTER = """package logx

import "io"

// TextFormatter writes entries as key=value pairs, coloured when the output is a terminal.
type TextFormatter struct {
	Out      io.Writer
	coloured bool
}

// Init decides once whether to colour the output, with checkIfTerminal.
func (f *TextFormatter) Init() {
	f.colored = checkIfTerminal(f.Out)
}
"""

RUBY_REQUEST = """module Shop
  # A request to the shop's API: its verb, path, query parameters, headers and body.
  Request = Struct.new(:http_method, :path, :params, :headers, :body) do
    # A request for `http_method`, with empty params and headers.
    def self.create(http_method)
      new(http_method, nil, {}, {}, nil).tap do |request|
        yield(request) if block_given?
      end
    end

    # Sets a header, replacing any header of the same name.
    def []=(key, value)
      headers[key] = value
    end
  end
end
"""

RUBY_JSON = """module Shop
  class Request
    # Encodes the request body as JSON and sets the content type, unless a body type is set.
    class Json
      MIME_TYPE = 'application/json'

      def call(request)
        request.headers['Content-Type'] ||= MIME_TYPE
        request.body = JSON.generate(request.body) unless request.body.is_a?(String)
        request
      end
    end
  end
end
"""

RUBY_AUTH = """module Shop
  class Request
    # Adds an Authorization header with the API token to every request.
    class Authorization
      def initialize(token)
        @token = token
      end

      def call(request)
        request.headers['Authorization'] = "Token #{@token}"
        request
      end
    end
  end
end
"""

PROJECTS = {
    "c-struct": {"include/emitter.h": EMITTER_H, "src/emitter.c": EMITTER_C,
                 "Makefile": "all:\n\tcc -Iinclude -c src/emitter.c\n"},
    "ts-overloads": {"src/common.ts": TS_COMMON, "src/types.ts": TS_TYPES,
                     "package.json": '{"name": "entries", "version": "1.0.0"}\n'},
    "rust-modules": {"Cargo.toml": '[package]\nname = "wire"\nversion = "0.1.0"\n', "src/lib.rs": LIB_RS,
                     "src/frame.rs": FRAME_RS, "src/stream.rs": STREAM_RS},
    "go-twins": {"go.mod": "module example.com/logx\n\ngo 1.21\n", "terminal_check_other.go": GO_OTHER,
                 "terminal_check_windows.go": GO_WINDOWS, "text_formatter.go": GO_FORMATTER},
    "ruby-reopenings": {"shop.gemspec": 'Gem::Specification.new { |s| s.name = "shop" }\n',
                        "lib/shop/request.rb": RUBY_REQUEST, "lib/shop/request/json.rb": RUBY_JSON,
                        "lib/shop/request/authorization.rb": RUBY_AUTH},
}


@pytest.fixture(scope="module")
def projects(tmp_path_factory, paqad_home) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("pieces")
    return {name: build_index(base / name, files, paqad_home) for name, files in PROJECTS.items()}


def _first(root: Path, query: str, options: RankingOptions = RankingOptions()) -> tuple[str, int]:
    """``(path, start line)`` of the first result."""
    paths = ProjectPaths(root)
    settings = load_settings(paths, environ={})
    embedder, why = load_embedder(paths, settings)
    assert why is None
    first = search(paths, settings, query, embedder=embedder, options=options).results[0]
    return first.path, first.start_line


def _line(text: str, prefix: str) -> int:
    """1-based number of the first line of ``text`` that starts with ``prefix``."""
    return next(i for i, line in enumerate(text.split("\n"), 1) if line.startswith(prefix))


def test_a_typedef_struct_split_over_chunks_is_found_at_its_first_line(projects):
    root = projects["c-struct"]
    assert _first(root, "emitter_t") == ("include/emitter.h", _line(EMITTER_H, "/** Where a document"))
    # without the rule the lookup lands on the struct's last piece, the one holding `} emitter_t;`
    path, start = _first(root, "emitter_t", RankingOptions(definition_heads=False))
    assert path == "include/emitter.h" and start > _line(EMITTER_H, "typedef struct")


def test_an_overloaded_typescript_function_is_found_at_its_implementation(projects):
    root = projects["ts-overloads"]
    implementation = _line(TS_COMMON, "export function forEachEntry(collection")
    assert _first(root, "forEachEntry") == ("src/common.ts", implementation)


@pytest.mark.parametrize("query, expected", [("stream::Header", ("src/stream.rs", 1)),
                                             ("frame::Header", ("src/frame.rs", 1))])
def test_a_module_qualified_type_is_found_in_that_module(projects, query, expected):
    assert _first(projects["rust-modules"], query) == expected


def test_without_the_rules_the_lookups_land_elsewhere(projects):
    """The rules are what picks these chunks: with each off, its lookup lands on another one."""
    signature = _first(projects["ts-overloads"], "forEachEntry", RankingOptions(overload_share=1.0))
    assert signature == ("src/common.ts", 1)  # the overload signature (with the doc comment and imports)
    # canonical definitions (lang-overrides) also pick the qualified module's definition: off here
    no_modules = RankingOptions(off=frozenset({"module_qualifiers"}), constructor_share=1.0, canonical_share=1.0)
    assert _first(projects["rust-modules"], "stream::Header", no_modules) != ("src/stream.rs", 1)


@pytest.mark.parametrize("query, expected", [("checkIfTerminal", "terminal_check_other.go"),
                                             ("checkIfTerminal on windows", "terminal_check_windows.go")])
def test_a_function_written_per_platform_is_found_in_the_asked_copy(projects, query, expected):
    assert _first(projects["go-twins"], query)[0] == expected


def test_a_struct_new_class_is_found_over_the_files_that_reopen_it(projects):
    root = projects["ruby-reopenings"]
    assert _first(root, "Request") == ("lib/shop/request.rb", 1)
    # canonical definitions (lang-overrides) also prefer the root definition: off for the counterfactual
    assert _first(root, "Request", RankingOptions(reopening_share=1.0, canonical_share=1.0))[0] != "lib/shop/request.rb"
