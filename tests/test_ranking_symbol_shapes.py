"""Exact-name lookups decided by the name's shape and by what defines it (issue 24, round 6), on
real indexes of tiny projects with the real model; each test asserts the first chunk:

- a Go ``type Fields map[string]any`` the chunker leaves without a symbol, beside functions whose
  parameters are typed ``Fields``; a Go ``type Level`` of a sub-package asked as ``slog.Level``
  (``text_types``: :func:`paqad.search.symbols.text_type`);
- a constant-shaped name (``DRAFT_STATE``): its ``export const`` line, not a function that reads
  it on a ``const`` line (``constant_shapes``);
- a Go struct field asked as ``JSONFormatter.DataKey`` (``member_fields``), a typed spec of a
  ``const`` block (``PanicLevel Level = iota``: ``go_specs``);
- a function written per platform that a type's method is also named after (``isTerminal``):
  one of the platform copies, not the method (``twin_symbols``);
- a C++ function whose head has no keyword (``CLI11_INLINE std::vector<std::string> split_up(``)
  and a ``Validator class`` query (``c_signatures``, ``kind_word_share``: both off by default);
- a C ``static`` function declared at the top of its file and defined below: the definition
  (``canonical_declarations``);
- a Rust ``bytes_mut::Shared`` beside ``bytes::Shared`` (``canonical_path_qualifiers``,
  ``canonical_prefix_modules``);
- a Java method longer than a chunk beside a 4-line overload (``split_bodies``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import build_index
from conftest import first_result as _first
from conftest import holds as _holds
from conftest import line_starting as _line
from paqad.search import RankingOptions

GO_LOGX = """package logx

import "fmt"

// Fields holds the key-value pairs attached to an entry.
type Fields map[string]any

// Level is the importance of an entry, from PanicLevel to DebugLevel.
type Level uint32

// The levels, most severe first.
const (
	// PanicLevel logs the entry and then panics.
	PanicLevel Level = iota
	// ErrorLevel logs errors that should be looked at.
	ErrorLevel
)

// String spells the level the way the text formatter prints it.
func (level Level) String() string {
	switch level {
	case PanicLevel:
		return "panic"
	case ErrorLevel:
		return "error"
	default:
		return fmt.Sprintf("level(%d)", uint32(level))
	}
}
"""

GO_EXPORTED = """package logx

// WithFields starts an entry of the standard logger carrying the given fields.
func WithFields(fields Fields) *Entry {
	return std.WithFields(fields)
}

// Panic logs args at PanicLevel on the standard logger, then panics.
func Panic(args ...any) {
	std.Log(PanicLevel, args...)
}

// MergeFields copies the fields of extra over a copy of base and returns the copy.
func MergeFields(base Fields, extra Fields) Fields {
	out := make(Fields, len(base)+len(extra))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}
"""

GO_SLOG_LEVEL = """package slog

import (
	"log/slog"

	"example.com/logx"
)

// Level maps a logx level onto the standard library's slog levels.
type Level logx.Level

// Level returns l as the corresponding slog level.
func (l Level) Level() slog.Level {
	if logx.Level(l) == logx.PanicLevel {
		return slog.LevelError + 4
	}
	return slog.LevelInfo
}
"""

GO_JSON = """package logx

import "encoding/json"

// JSONFormatter writes each entry as one JSON object.
type JSONFormatter struct {
	// DataKey, when set, nests the entry's fields under this key.
	DataKey string
	// PrettyPrint indents the output.
	PrettyPrint bool
}

// Format encodes the entry, nesting its data under DataKey when one is set.
func (f *JSONFormatter) Format(entry *Entry) ([]byte, error) {
	data := make(Fields, len(entry.Data)+3)
	if f.DataKey != "" {
		data[f.DataKey] = entry.Data
	} else {
		for k, v := range entry.Data {
			data[k] = v
		}
	}
	if f.PrettyPrint {
		return json.MarshalIndent(data, "", "  ")
	}
	return json.Marshal(data)
}
"""

GO_UNIX = """//go:build linux || aix

package logx

import "golang.org/x/sys/unix"

// isTerminal reports whether the file descriptor is a terminal.
func isTerminal(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	return err == nil
}
"""

GO_BSD = """//go:build darwin || freebsd || openbsd

package logx

import "golang.org/x/sys/unix"

// isTerminal reports whether the file descriptor is a terminal.
func isTerminal(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, unix.TIOCGETA)
	return err == nil
}
"""

GO_TEXT = """package logx

import "sync"

// TextFormatter writes entries as key=value pairs, coloured on a terminal.
type TextFormatter struct {
	terminal bool
	once     sync.Once
}

// isTerminal decides once, for the entry's logger, whether its output is a terminal.
func (f *TextFormatter) isTerminal(entry *Entry) bool {
	if entry == nil || entry.Logger == nil {
		return false
	}
	f.once.Do(func() {
		f.terminal = checkIfTerminal(entry.Logger.Out)
	})
	return f.terminal
}
"""

TS_ENV = """// Should be no imports here!

/** The sentinel value a producer returns to replace the draft with undefined. */
export const NOTHING: unique symbol = Symbol.for("immer-nothing")

/** Where a draft keeps its state. */
export const DRAFT_STATE: unique symbol = Symbol.for("immer-state")
"""

TS_SCOPE = """import {DRAFT_STATE} from "./env"

/** Revokes the proxy of a draft once its producer has returned. */
export function revokeDraft(draft: any) {
	const state: any = draft[DRAFT_STATE]
	if (state.type === "object" || state.type === "array") state.revoke()
	else state.revoked = true
}

/** Whether a value is a draft made by this library. */
export function isDraft(value: any): boolean {
	const state = !!value && value[DRAFT_STATE]
	return !!state
}
"""

TS_PROXY = """import {DRAFT_STATE} from "./env"

/** Reads a property of a draft, from its copy when it has one. */
export function peek(draft: any, prop: PropertyKey) {
	const state = draft[DRAFT_STATE]
	const source = state ? state.copy || state.base : draft
	return source[prop]
}
"""

CPP_TOOLS = """#pragma once

#include <string>
#include <vector>

#define CLI11_INLINE inline

namespace CLI {
namespace detail {

/// Split a string into words at the delimiter, keeping quoted parts whole.
CLI11_INLINE std::vector<std::string> split_up(std::string str, char delimiter = '\\0');

}  // namespace detail
}  // namespace CLI
"""

CPP_TOOLS_INL = """#pragma once

#include "tools.hpp"

namespace CLI {
namespace detail {

CLI11_INLINE std::vector<std::string> split_up(std::string str, char delimiter) {
    std::vector<std::string> output;
    std::string current;
    bool quoted = false;
    for(char ch : str) {
        if(ch == '"') {
            quoted = !quoted;
        } else if(ch == delimiter && !quoted) {
            output.push_back(current);
            current.clear();
        } else {
            current.push_back(ch);
        }
    }
    output.push_back(current);
    return output;
}

}  // namespace detail
}  // namespace CLI
"""

CPP_CONFIG = """#include <string>
#include <vector>

#include "tools.hpp"

namespace CLI {

/// Reads one line of an INI file into its key and its values.
std::vector<std::string> parse_line(const std::string &line) {
    auto parts = detail::split_up(line, '=');
    if(parts.size() < 2) {
        return {};
    }
    return detail::split_up(parts[1], ',');
}

}  // namespace CLI
"""

_METHODS = "\n".join(
    f"""    /// Sets the {what} of this validator and returns it.
    Validator &{name}(std::string value) {{
        {name}_ = std::move(value);
        return *this;
    }}
""" for what, name in [("description", "description"), ("name", "name"), ("help text", "help"),
                       ("group", "group"), ("error message", "message")])
CPP_VALIDATORS = f"""#pragma once

#include <functional>
#include <string>

namespace CLI {{

/// Some validators that are provided
///
/// These are simple `std::string(const std::string&)` validators that are useful. They return
/// a string if the validation fails.
class Validator {{
  protected:
    /// The function that checks a value: an empty string if it passes, else the error
    std::function<std::string(std::string &)> func_{{[](std::string &) {{ return std::string{{}}; }}}};
    std::string description_{{}};
    std::string name_{{}};
    std::string help_{{}};
    std::string group_{{}};
    std::string message_{{}};

  public:
    Validator() = default;
    /// Construct a Validator with just the validator function
    explicit Validator(std::function<std::string(std::string &)> op) : func_(std::move(op)) {{}}

{_METHODS}
    /// Runs the validator on a value: an empty string if it passes
    std::string operator()(std::string &str) const {{ return func_(str); }}
}};

/// A validator that a path exists
class ExistingPathValidator : public Validator {{
  public:
    ExistingPathValidator();
}};

}}  // namespace CLI
"""

RUST_BYTES = """//! A cheaply cloneable chunk of memory.

/// The reference-counted buffer behind a shared `Bytes`.
struct Shared {
    buf: *mut u8,
    cap: usize,
    ref_cnt: usize,
}

impl Shared {
    fn release(&mut self) -> bool {
        self.ref_cnt -= 1;
        self.ref_cnt == 0
    }
}
"""

RUST_BYTES_MUT = """//! A unique reference to a contiguous slice of memory.

/// The buffer a `BytesMut` shares once it has been split: its vector and a count of handles.
struct Shared {
    vec: Vec<u8>,
    original_capacity_repr: usize,
    ref_count: usize,
}

impl Shared {
    fn is_unique(&self) -> bool {
        self.ref_count == 1
    }
}
"""

_ARGUMENT_CASES = "\n".join(
    f"""        case '{c}':
          checkArgument(index < args.length, "missing argument for $%s", '{c}');
          newArgs.add(args[index++]);
          break;""" for c in "LNSTWZ")
JAVA_CODEBLOCK = f"""package com.example.poet;

import java.util.ArrayList;
import java.util.List;

public final class CodeBlock {{
  final List<String> formatParts;
  final List<Object> args;

  private CodeBlock(Builder builder) {{
    this.formatParts = builder.formatParts;
    this.args = builder.args;
  }}

  public static final class Builder {{
    final List<String> formatParts = new ArrayList<>();
    final List<Object> args = new ArrayList<>();

    /**
     * Adds code with positional or relative arguments: each placeholder of the format string
     * takes the next argument, or the one its index names.
     */
    public Builder add(String format, Object... args) {{
      boolean hasRelative = false;
      boolean hasIndexed = false;
      int index = 0;
      List<Object> newArgs = new ArrayList<>();
      for (int p = 0; p < format.length(); ) {{
        if (format.charAt(p) != '$') {{
          int next = format.indexOf('$', p + 1);
          if (next == -1) next = format.length();
          formatParts.add(format.substring(p, next));
          p = next;
          continue;
        }}
        char c = format.charAt(p + 1);
        switch (c) {{
{_ARGUMENT_CASES}
          default:
            throw new IllegalArgumentException("invalid format string: " + format);
        }}
        formatParts.add("$" + c);
        p += 2;
        hasRelative = true;
      }}
      checkArgument(!(hasRelative && hasIndexed), "cannot mix indexed and relative arguments");
      checkArgument(index == args.length, "unused arguments: expected %s, received %s", index, args.length);
      this.args.addAll(newArgs);
      return this;
    }}

    public Builder add(CodeBlock codeBlock) {{
      formatParts.addAll(codeBlock.formatParts);
      args.addAll(codeBlock.args);
      return this;
    }}

    public CodeBlock build() {{
      return new CodeBlock(this);
    }}
  }}

  private static void checkArgument(boolean condition, String format, Object... args) {{
    if (!condition) throw new IllegalArgumentException(String.format(format, args));
  }}
}}
"""

PROJECTS = {
    "go-shapes": {"go.mod": "module example.com/logx\n\ngo 1.21\n", "logx.go": GO_LOGX, "exported.go": GO_EXPORTED,
                  "hooks/slog/level.go": GO_SLOG_LEVEL, "json_formatter.go": GO_JSON,
                  "terminal_check_unix.go": GO_UNIX, "terminal_check_bsd.go": GO_BSD, "text_formatter.go": GO_TEXT},
    "ts-constants": {"package.json": '{"name": "drafts", "version": "1.0.0"}\n', "src/env.ts": TS_ENV,
                     "src/scope.ts": TS_SCOPE, "src/proxy.ts": TS_PROXY},
    "cpp-heads": {"CMakeLists.txt": "project(cli)\n", "include/CLI/tools.hpp": CPP_TOOLS,
                  "include/CLI/impl/tools_inl.hpp": CPP_TOOLS_INL, "src/config.cpp": CPP_CONFIG,
                  "include/CLI/validators.hpp": CPP_VALIDATORS},
    "rust-prefix": {"Cargo.toml": '[package]\nname = "buffers"\nversion = "0.1.0"\n',
                    "src/lib.rs": "mod bytes;\nmod bytes_mut;\n", "src/bytes.rs": RUST_BYTES,
                    "src/bytes_mut.rs": RUST_BYTES_MUT},
    "java-split": {"pom.xml": "<project><artifactId>poet</artifactId></project>\n",
                   "src/main/java/com/example/poet/CodeBlock.java": JAVA_CODEBLOCK},
}


@pytest.fixture(scope="module")
def projects(tmp_path_factory, paqad_home) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("shapes")
    return {name: build_index(base / name, files, paqad_home) for name, files in PROJECTS.items()}


def test_a_go_type_without_a_symbol_is_found_by_its_type_line(projects):
    root = projects["go-shapes"]
    assert _holds(_first(root, "Fields"), "logx.go", _line(GO_LOGX, "type Fields"))
    assert _holds(_first(root, "slog.Level"), "hooks/slog/level.go", _line(GO_SLOG_LEVEL, "type Level"))


def test_a_go_const_spec_defines_its_name(projects):
    assert _holds(_first(projects["go-shapes"], "PanicLevel"), "logx.go", _line(GO_LOGX, "\tPanicLevel Level = iota"))


def test_a_constant_is_found_at_its_definition_not_where_a_const_line_reads_it(projects):
    root = projects["ts-constants"]
    assert _holds(_first(root, "DRAFT_STATE"), "src/env.ts", _line(TS_ENV, "export const DRAFT_STATE"))


def test_a_qualified_field_is_found_in_its_types_body(projects):
    root = projects["go-shapes"]
    assert _holds(_first(root, "JSONFormatter.DataKey"), "json_formatter.go", _line(GO_JSON, "\tDataKey string"))


def test_a_per_platform_function_beats_a_method_named_like_it(projects):
    root = projects["go-shapes"]
    assert _first(root, "isTerminal")[0] in ("terminal_check_unix.go", "terminal_check_bsd.go")


def test_cpp_definition_heads_and_kind_words(projects):
    """Both measured and left off by default (bench/README.md, "Round 6: symbol queries")."""
    root = projects["cpp-heads"]
    head = _line(CPP_TOOLS_INL, "CLI11_INLINE std::vector<std::string> split_up(")
    assert _holds(_first(root, "split_up", RankingOptions(c_signatures=True)), "include/CLI/impl/tools_inl.hpp", head)
    assert _holds(_first(root, "Validator class", RankingOptions(kind_word_share=0.5)), "include/CLI/validators.hpp",
                  _line(CPP_VALIDATORS, "class Validator {"))


def test_a_module_qualifier_picks_its_module_over_a_name_prefix_parent(projects):
    root = projects["rust-prefix"]
    assert _first(root, "bytes_mut::Shared")[0] == "src/bytes_mut.rs"
    assert _first(root, "bytes::Shared")[0] == "src/bytes.rs"


def test_a_long_method_cut_into_pieces_beats_its_short_overload(projects):
    root = projects["java-split"]
    path = "src/main/java/com/example/poet/CodeBlock.java"
    long_add = _line(JAVA_CODEBLOCK, "    public Builder add(String format")
    assert _holds(_first(root, "CodeBlock.Builder.add"), path, long_add)


def test_without_the_rules_the_lookups_land_elsewhere(projects):
    """Each rule is what picks its chunk: with it off, the lookup lands on another one."""
    go, cpp = projects["go-shapes"], projects["cpp-heads"]
    assert not _holds(_first(go, "slog.Level", RankingOptions(text_types=False)), "hooks/slog/level.go",
                      _line(GO_SLOG_LEVEL, "type Level"))
    assert not _holds(_first(projects["ts-constants"], "DRAFT_STATE", RankingOptions(constant_shapes=False, text_definitions=False)),
                      "src/env.ts", _line(TS_ENV, "export const DRAFT_STATE"))
    assert not _holds(_first(go, "JSONFormatter.DataKey", RankingOptions(member_fields=False)), "json_formatter.go",
                      _line(GO_JSON, "\tDataKey string"))
    assert _first(go, "isTerminal", RankingOptions(twin_symbols=False))[0] == "text_formatter.go"
    head = _line(CPP_TOOLS_INL, "CLI11_INLINE std::vector<std::string> split_up(")
    # chunker 7 blanks the prefix macro before parsing: the chunk is named `split_up` and the
    # default finds it without c_signatures (chunker 6 named it `std.vectorsplit_up`)
    assert _holds(_first(cpp, "split_up"), "include/CLI/impl/tools_inl.hpp", head)
    assert not _holds(_first(cpp, "Validator class"), "include/CLI/validators.hpp", _line(CPP_VALIDATORS, "class Validator {"))
    long_add = _line(JAVA_CODEBLOCK, "    public Builder add(String format")
    assert not _holds(_first(projects["java-split"], "CodeBlock.Builder.add", RankingOptions(split_bodies=False)),
                      "src/main/java/com/example/poet/CodeBlock.java", long_add)


C_PROTOTYPES = """static int
yaml_parser_save_simple_key(yaml_parser_t *parser);

static int
yaml_parser_remove_simple_key(yaml_parser_t *parser);

static int
yaml_parser_fetch_more_tokens(yaml_parser_t *parser)
{
    return yaml_parser_save_simple_key(parser);
}
"""


def test_a_prototype_in_a_chunk_of_other_code_is_a_declaration():
    """``canonical_declarations``: the head's first ``;`` or ``{`` after the name decides."""
    from paqad.search.signals.canonical import bodiless

    assert bodiless(C_PROTOTYPES, "yaml_parser_save_simple_key", terminators=True) is True
    assert bodiless(C_PROTOTYPES, "yaml_parser_save_simple_key") is False  # the chunk goes on with a body
    assert bodiless(C_PROTOTYPES, "yaml_parser_fetch_more_tokens", terminators=True) is False
    assert bodiless("def load(self, data):\n    return self._do_load(data)\n", "load", terminators=True) is False
