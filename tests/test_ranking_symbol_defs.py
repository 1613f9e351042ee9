"""Exact-name lookups of issue 24, round 8 (symbol definitions), on real indexes of tiny projects
with the real model; each test asserts the first chunk (its file and the definition line it holds):

- a bare C++ type name whose header holds the class and whose ``.cc`` file holds its same-named
  constructors: the class (``header_types``);
- a name a C macro and a function both define: the function (``macro_or_function``, round 4), and
  the macro when the query says "macro" (``asked_macros``);
- a C struct named in lower case (``locfile``), beside a function returning a pointer to it: the
  struct (``c_type_uses``, ``header_types``);
- a lower-case C macro (``#define hashpointer(t,p)``) the symbol table does not hold, asked as one
  word: its ``#define`` line (``text_bare_words``);
- a Ruby constant spelled like a question word (``METHODS``) in the first chunk of a class whose
  other files say "methods" everywhere: its assignment line (``lone_identifiers``, ``text_definitions``);
- a C++ alias ``using missing_t = ...`` inside a class (``text_definitions`` and the ``using`` form);
- ``OptionBase::get_group``, a one-line C++ method whose line starts with a macro (the symbol
  table names it after its return type): that line (``qualified_signatures``);
- the definition keyword of each language the chunker reads (:func:`paqad.search.symbols.defines_in_text`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import build_index
from conftest import first_result as _first
from conftest import holds as _holds
from conftest import line_starting as _line
from paqad import store as store_mod
from paqad.config import load_settings
from paqad.project import ProjectPaths
from paqad.search import RankingOptions, gather, load_embedder
from paqad.search.lexical import lone_identifier_hits
from paqad.search.symbols import defines_in_text, only_type_uses
from paqad.search.text_definitions import text_definition_pool

CPP_LOGGING_H = """#pragma once

#include <string>

#define LOG_EXPORT __attribute__((visibility("default")))

namespace logx {

/// One message on its way to the sinks: collects the text, then flushes it.
class LOG_EXPORT LogMessage {
 public:
  LogMessage(const char* file, int line);
  ~LogMessage();
  std::ostream& stream();

 private:
  std::string text_;
  int line_;
};

// This class happens to be thread-hostile because all instances share a single data buffer,
// but since it can only be created just before the process dies, we do not worry so much.
class LOG_EXPORT LogMessageFatal : public LogMessage {
 public:
  LogMessageFatal(const char* file, int line);
  LogMessageFatal(const char* file, int line, const std::string& result);
  [[noreturn]] ~LogMessageFatal() noexcept(false);
};

}  // namespace logx
"""

CPP_LOGGING_CC = """#include "logx/logging.h"

#include <cstdlib>
#include <iostream>

namespace logx {

LogMessage::LogMessage(const char* file, int line) : line_(line) {
  text_ = std::string(file) + ":" + std::to_string(line) + " ";
}

LogMessage::~LogMessage() {
  std::cerr << text_ << std::endl;
}

std::ostream& LogMessage::stream() {
  static std::ostream& out = std::cerr;
  return out;
}

LogMessageFatal::LogMessageFatal(const char* file, int line)
    : LogMessage(file, line) {}

LogMessageFatal::LogMessageFatal(const char* file, int line,
                                 const std::string& result)
    : LogMessage(file, line) {
  stream() << "Check failed: " << result << " ";
}

LogMessageFatal::~LogMessageFatal() noexcept(false) {
  std::cerr << "fatal, aborting" << std::endl;
  std::abort();
}

}  // namespace logx
"""

C_BUFFER_H = """#ifndef BUFFER_H
#define BUFFER_H

#include <stddef.h>

typedef struct buffer {
    char *data;
    size_t used;
    size_t size;
} buffer;

/* The number of bytes in use: a macro for the hot paths, a function (buffer.c) for the others. */
#define buffer_used(b) ((b)->used)

size_t (buffer_used)(const buffer *b);
int buffer_append(buffer *b, const char *s, size_t n);

#endif
"""

C_BUFFER_C = """#include <stdlib.h>
#include <string.h>

#include "buffer.h"

#undef buffer_used

/* The number of bytes of b in use, for callers that need a function pointer. */
size_t buffer_used(const buffer *b) {
    if (b == NULL) {
        return 0;
    }
    return b->used;
}

int buffer_append(buffer *b, const char *s, size_t n) {
    if (b->used + n > b->size) {
        size_t size = (b->used + n) * 2;
        char *data = realloc(b->data, size);
        if (data == NULL) {
            return -1;
        }
        b->data = data;
        b->size = size;
    }
    memcpy(b->data + b->used, s, n);
    b->used += n;
    return 0;
}
"""

C_LOCFILE_H = """#ifndef LOCFILE_H
#define LOCFILE_H

#include <stddef.h>

/* A source file kept in memory, with the offsets of its line starts for error messages. */
struct locfile {
  const char *fname;
  const char *data;
  int length;
  int *linemap;
  int nlines;
  int refct;
};

struct locfile* locfile_init(const char *fname, const char *data, int length);
void locfile_free(struct locfile *l);
int locfile_get_line(struct locfile *l, int pos);

#endif
"""

C_LOCFILE_C = """#include <stdlib.h>
#include <string.h>

#include "locfile.h"

struct locfile* locfile_init(const char *fname, const char *data, int length) {
  struct locfile* l = malloc(sizeof(struct locfile));
  l->fname = fname;
  l->data = malloc(length);
  memcpy((char*)l->data, data, length);
  l->length = length;
  l->nlines = 1;
  for (int i = 0; i < length; i++) {
    if (data[i] == '\\n') l->nlines++;
  }
  l->linemap = calloc(l->nlines + 1, sizeof(int));
  l->refct = 1;
  return l;
}

void locfile_free(struct locfile *l) {
  if (--l->refct == 0) {
    free(l->linemap);
    free((char*)l->data);
    free(l);
  }
}

int locfile_get_line(struct locfile *l, int pos) {
  int line = 1;
  while (line < l->nlines && l->linemap[line] <= pos) line++;
  return line - 1;
}
"""

C_TABLE = """#include <stddef.h>

#include "buffer.h"

typedef struct node { const void *key; struct node *next; } node;
typedef struct table { node **slots; size_t size; } table;

static size_t point2uint(const void *p) {
    return (size_t)p;
}

/*
** for some types, it is better to avoid modulus by power of 2, as they tend to have many 2 factors.
*/
#define hashmod(t,n)	((t)->slots[((n) % (((t)->size - 1) | 1))])

#define hashpointer(t,p)	hashmod(t, point2uint(p))

/* The slot a key hashes to: pointers and functions by their address. */
static node *mainposition(table *t, int kind, const void *p) {
    switch (kind) {
        case 1:
            return hashpointer(t, p);
        case 2:
            return hashpointer(t, (const char *)p + 1);
        default:
            return hashpointer(t, NULL);
    }
}

/* Whether the key is in the table: walks the chain of its main position. */
int table_has(table *t, int kind, const void *p) {
    for (node *n = mainposition(t, kind, p); n != NULL; n = n->next) {
        if (n->key == p) {
            return 1;
        }
    }
    return 0;
}
"""

RB_CONNECTION = """# frozen_string_literal: true

module Wire
  # Connection objects manage the default properties and the middleware stack for fulfilling an
  # HTTP request.
  #
  # @example
  #
  #   conn = Wire::Connection.new 'http://httpbingo.org'
  #
  #   # GET http://httpbingo.org/nigiri
  #   conn.get 'nigiri'
  #
  class Connection
    # A Set of allowed HTTP verbs.
    METHODS = Set.new %i[get post put delete head patch options trace]
    USER_AGENT = "Wire v1.0"

    # @return [Hash] URI query unencoded key/value pairs.
    attr_reader :params

    def initialize(url = nil, options = {})
      @url = url
      @params = options.fetch(:params, {})
    end
  end
end
"""

RB_REQUEST = """# frozen_string_literal: true

module Wire
  # Request builds the request the methods of a connection send: the HTTP methods get, post,
  # put and the others all come here, and the methods of the middleware see it afterwards.
  class Request
    # The HTTP methods that carry a body; the other methods send none.
    def self.body_methods
      %i[post put patch]
    end

    # Whether the request's method is one of the methods that carry a body.
    def body?(method)
      self.class.body_methods.include?(method)
    end

    # Runs the request through the methods registered for it, in order.
    def run_methods(methods)
      methods.each { |m| m.call(self) }
    end
  end
end
"""

RB_METHODS = """# frozen_string_literal: true

module Wire
  # Helpers for the request methods: every connection method (get, post, ...) is defined here by
  # metaprogramming, so the methods exist for each verb the connection allows.
  module Methods
    # Defines one method per verb on the including class.
    def self.define_methods(klass, verbs)
      verbs.each do |verb|
        klass.define_method(verb) { |url = nil| run_request(verb, url) }
      end
    end

    # The methods of the including class that send a request.
    def request_methods
      public_methods.select { |m| m.to_s.start_with?("get", "post") }
    end
  end
end
"""

CPP_OPTION = """#pragma once

#include <string>

#define CLI11_NODISCARD [[nodiscard]]

namespace CLI {

/// The options every option and every app share.
template <typename CRTP> class OptionBase {
  protected:
    std::string group_ = std::string("OPTIONS");
    bool required_{false};

  public:
    /// Changes the group membership
    CRTP *group(const std::string &name) {
        if(name.find('\\n') != std::string::npos) {
            throw std::invalid_argument("Group names may not contain newlines");
        }
        group_ = name;
        return static_cast<CRTP *>(this);
    }

    /// Set the option as required
    CRTP *required(bool value = true) {
        required_ = value;
        return static_cast<CRTP *>(this);
    }

    // Getters

    /// Get the group of this option
    CLI11_NODISCARD const std::string &get_group() const { return group_; }

    /// True if this is a required option
    CLI11_NODISCARD bool get_required() const { return required_; }
};

}  // namespace CLI
"""

CPP_APP = """#pragma once

#include <string>
#include <vector>

#include "Option.hpp"

namespace CLI {

/// Creates a command line program, with very few defaults.
class App {
  protected:
    std::string group_{"SUBCOMMANDS"};
    std::vector<App *> subcommands_{};

    /// Pairs of the arguments that were not matched, with the kind of each
    using missing_t = std::vector<std::pair<int, std::string>>;

    /// The arguments that matched no option, kept for `allow_extras`
    missing_t missing_{};

  public:
    /// Get the group of this subcommand
    const std::string &get_group() const { return group_; }

    /// Get the subcommands of this app in the order they were added.
    std::vector<App *> get_subcommands() const { return subcommands_; }

    /// The arguments that matched nothing (with `allow_extras` on)
    std::vector<std::string> remaining() const {
        std::vector<std::string> out;
        for(const auto &m : missing_) {
            out.push_back(m.second);
        }
        return out;
    }
};

}  // namespace CLI
"""

PROJECTS = {
    "cpp-log": {"CMakeLists.txt": "project(logx)\n", "include/logx/logging.h": CPP_LOGGING_H,
                "src/logging.cc": CPP_LOGGING_CC},
    "c-buffers": {"Makefile": "all:\n\tcc -c buffer.c locfile.c\n", "buffer.h": C_BUFFER_H, "buffer.c": C_BUFFER_C,
                  "locfile.h": C_LOCFILE_H, "locfile.c": C_LOCFILE_C, "table.c": C_TABLE},
    "rb-wire": {"wire.gemspec": "Gem::Specification.new { |s| s.name = 'wire' }\n",
                "lib/wire/connection.rb": RB_CONNECTION, "lib/wire/request.rb": RB_REQUEST,
                "lib/wire/methods.rb": RB_METHODS},
    "cpp-cli": {"CMakeLists.txt": "project(cli)\n", "include/CLI/Option.hpp": CPP_OPTION, "include/CLI/App.hpp": CPP_APP},
}


@pytest.fixture(scope="module")
def projects(tmp_path_factory, paqad_home) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("symbol-defs")
    return {name: build_index(base / name, files, paqad_home) for name, files in PROJECTS.items()}


def test_a_bare_type_name_finds_the_class_in_its_header_not_its_constructors(projects):
    found = _first(projects["cpp-log"], "LogMessageFatal")
    assert _holds(found, "include/logx/logging.h", _line(CPP_LOGGING_H, "class LOG_EXPORT LogMessageFatal"))
    # without header_types the header's class is a "declaration" beside the .cc's constructors
    off = _first(projects["cpp-log"], "LogMessageFatal", RankingOptions(header_types=False))
    assert off[0] == "src/logging.cc"


def test_a_name_of_a_macro_and_a_function_finds_the_function_unless_the_query_says_macro(projects):
    root = projects["c-buffers"]
    assert _holds(_first(root, "buffer_used"), "buffer.c", _line(C_BUFFER_C, "size_t buffer_used("))
    asked = RankingOptions(asked_macros=True)  # measured and left off (no benchmark query says "macro")
    assert _holds(_first(root, "buffer_used macro", asked), "buffer.h", _line(C_BUFFER_H, "#define buffer_used"))
    assert _first(root, "buffer_used macro")[0] == "buffer.c"


def test_a_lower_case_c_struct_beats_a_function_returning_a_pointer_to_it(projects):
    root = projects["c-buffers"]
    both = RankingOptions(c_type_uses=True)  # c_type_uses: measured and left off (header_types alone does it)
    assert _holds(_first(root, "locfile", both), "locfile.h", _line(C_LOCFILE_H, "struct locfile {"))
    assert _holds(_first(root, "locfile"), "locfile.h", _line(C_LOCFILE_H, "struct locfile {"))
    off = _first(root, "locfile", RankingOptions(c_type_uses=False, header_types=False))
    assert off[0] == "locfile.c"


def test_a_lower_case_macro_the_table_lacks_is_found_at_its_define(projects):
    root = projects["c-buffers"]
    line = _line(C_TABLE, "#define hashpointer")
    assert _holds(_first(root, "hashpointer"), "table.c", line)
    # the word alone is no identifier to the analysis and the symbol table has no macros
    paths = ProjectPaths(root)
    embedder, _ = load_embedder(paths, load_settings(paths, environ={}))
    with store_mod.open_store(paths, readonly=True) as store:
        pools = gather(store, embedder, "hashpointer")
    assert pools.info.identifiers == () and pools.text_info is not None
    assert [i.name for i in pools.text_info.identifiers] == ["hashpointer"]


def test_a_constant_spelled_like_a_question_word_is_found_at_its_assignment(projects):
    root = projects["rb-wire"]
    line = _line(RB_CONNECTION, "    METHODS = Set.new")
    assert _holds(_first(root, "METHODS"), "lib/wire/connection.rb", line)
    # the pools behind it: BM25 has nothing for a lone stopword without lone_identifiers, and the
    # text definition pool holds the assignment's chunk (the symbol table has no constants)
    paths = ProjectPaths(root)
    embedder, _ = load_embedder(paths, load_settings(paths, environ={}))
    with store_mod.open_store(paths, readonly=True) as store:
        pools = gather(store, embedder, "METHODS")
        found = text_definition_pool(store, pools.info, pools.definitions, {})
    assert pools.lexical == [] and pools.lone_hits  # used only with lone_identifiers (measured, left off)
    assert [(r.path, r.start_line <= line <= r.end_line) for r in found.values()] == [("lib/wire/connection.rb", True)]


def test_a_cpp_alias_and_a_macro_led_member_are_definitions(projects):
    root = projects["cpp-cli"]
    assert _holds(_first(root, "missing_t"), "include/CLI/App.hpp", _line(CPP_APP, "    using missing_t ="))
    head = _line(CPP_OPTION, "    CLI11_NODISCARD const std::string &get_group()")
    assert _holds(_first(root, "OptionBase::get_group"), "include/CLI/Option.hpp", head)
    # chunker 7 blanks `CLI11_NODISCARD` before parsing: the member is named `OptionBase.get_group`
    # and is found without qualified_signatures too (chunker 6: App.hpp first without it)
    assert _holds(_first(root, "OptionBase::get_group", RankingOptions(qualified_signatures=False)), "include/CLI/Option.hpp", head)


def test_a_lone_stopword_identifier_gets_bm25_hits_and_other_queries_none(projects):
    with store_mod.open_store(ProjectPaths(projects["rb-wire"]), readonly=True) as store:
        assert lone_identifier_hits(store, "METHODS", 100)  # "methods" is a question stopword
        assert lone_identifier_hits(store, "USER_AGENT", 100) == []  # its terms are kept anyway
        assert lone_identifier_hits(store, "which methods", 100) == []  # prose
        assert lone_identifier_hits(store, "methods", 100) == []  # a lone question word, not spelled like code


def test_type_uses_are_not_definitions():
    assert only_type_uses("struct locfile* locfile_init(const char *f) {\n  struct locfile* l = 0;", "locfile")
    assert not only_type_uses("struct locfile {\n  int refct;\n};", "locfile")
    assert not only_type_uses("int x = 1;", "locfile")  # no definition-like line at all
    assert not only_type_uses("typedef struct jv_parser jv_parser;", "jv_parser")  # the alias's definition


# One definition line per language the chunker reads (and the long tail of issue 22): the loose
# rule must find the name on it.
DEFINITION_LINES = [
    ("python", "def parse_args(argv):", "parse_args"), ("python", "class Schema(Base):", "Schema"),
    ("javascript", "export function createStore(reducer) {", "createStore"),
    ("typescript", "export type Draft<T> = T", "Draft"), ("typescript", "export abstract class Base {", "Base"),
    ("go", "func (r *Router) ServeHTTP(w http.ResponseWriter) {", "ServeHTTP"), ("go", "type Level uint32", "Level"),
    ("rust", "pub(crate) fn promote_to_shared(&mut self) {", "promote_to_shared"),
    ("rust", "macro_rules! buf_get_impl {", "buf_get_impl"), ("rust", "pub const fn new() -> Self {", "new"),
    ("java", "public final class JsonFactory extends TokenStreamFactory {", "JsonFactory"),
    ("java", "public @interface Nullable {", "Nullable"), ("java", "public record Point(int x, int y) {", "Point"),
    ("kotlin", "fun parse(input: String): Node {", "parse"), ("kotlin", "data class User(val name: String)", "User"),
    ("kotlin", "suspend fun fetch(url: String): Response {", "fetch"),
    ("kotlin", "typealias Handler = (Event) -> Unit", "Handler"), ("kotlin", "companion object Factory {", "Factory"),
    ("csharp", "public sealed partial class JsonSerializer {", "JsonSerializer"),
    ("csharp", "public delegate void Handler(object sender);", "Handler"),
    ("swift", "public func request(_ url: URL) -> DataRequest {", "request"),
    ("swift", "fileprivate final class Box {", "Box"), ("swift", "public typealias Handler = (Int) -> Void", "Handler"),
    ("swift", "mutating func append(_ x: Int) {", "append"), ("swift", "public actor Cache {", "Cache"),
    ("php", "final class Router implements RouterInterface", "Router"), ("php", "trait MacroableTrait", "MacroableTrait"),
    ("ruby", "def self.build(app)", "build"), ("ruby", "def empty?", "empty?"),
    ("lua", "local function luaL_check(L, n)", "luaL_check"), ("lua", "function M:parse(s)", "parse"),
    ("scala", "case class Token(kind: Kind)", "Token"), ("scala", "implicit def toJson(x: Int): Json = ???", "toJson"),
    ("scala", "lazy val parser = new Parser", "parser"),
    ("elixir", "defmodule Mint.HTTP do", "HTTP"), ("elixir", "defp do_connect(scheme) do", "do_connect"),
    ("elixir", "defmacro __using__(opts) do", "__using__"), ("elixir", "defprotocol Size do", "Size"),
    ("dart", "mixin Options on Base {", "Options"), ("dart", "extension StringX on String {", "StringX"),
    ("dart", "factory ArgParser.allowAnything() => ArgParser();", "allowAnything"),
    ("zig", "pub fn parse(comptime T: type) !T {", "parse"), ("zig", "pub const Parser = struct {", "Parser"),
    ("haskell", "newtype Parser a = Parser (String -> a)", "Parser"), ("ocaml", "let rec parse_expr tokens =", "parse_expr"),
    ("erlang", "-record(state, {socket}).", "state"), ("erlang", "-define(TIMEOUT, 5000).", "TIMEOUT"),
    ("clojure", "(defn include-css [& styles]", "include-css"), ("clojure", "(defprotocol ToString", "ToString"),
    ("julia", "mutable struct Heap{T}", "Heap"), ("julia", "macro check(ex)", "check"),
    ("elm", "type alias Model = { count : Int }", "Model"), ("perl", "sub parse_header {", "parse_header"),
    ("r", "parse_args <- function(x) {", "parse_args"), ("c", "#define YAML_MALLOC(size) malloc(size)", "YAML_MALLOC"),
    ("cpp", "template <typename T> class Node {", "Node"), ("cpp", "using missing_t = std::vector<int>;", "missing_t"),
    ("bash", "function setup_env() {", "setup_env"),
]


@pytest.mark.parametrize(("language", "line", "name"), DEFINITION_LINES, ids=[f"{l}-{n}" for l, _, n in DEFINITION_LINES])
def test_each_languages_definition_keyword_is_recognised(language, line, name):
    assert defines_in_text(line, name)


def test_uses_are_not_definitions_in_the_new_keywords():
    assert not defines_in_text("    return fun(x)", "fun")  # a call, not `fun name`
    assert not defines_in_text("data = compute(Schema)", "Schema")  # `data` is a modifier, not a keyword
    assert not defines_in_text("case FOO: return parse(x);", "parse")  # `case` needs a keyword after it
