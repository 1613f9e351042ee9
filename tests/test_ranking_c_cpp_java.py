"""C, C++ and Java rankings (issue 24, round 6), on real indexes of tiny projects with the real
model, one rule each:

- yacc and lex grammars of a C project are indexed and found (``src/parser.y``, ``src/lexer.l``);
- ``release_copies``: a manual kept once per release (``docs/manual/v1.6/``, ``v1.7/``, ``v1.8/``)
  goes below the code except for the newest release's copy;
- a C++ forward declaration (``class Node;``) defines nothing: ``detail::node`` and
  ``YAML::Node`` find their classes (cutting a C++ header named ``.h`` as C++ was measured and
  left off: ``paqad.index.languages.CPP_HEADERS_BY_CONTENT``);
- ``inline_pairs``: a C++ header's inline implementation file (``impl/Formatter_inl.hpp``) is
  found for a "how" question above the header that declares it;
- ``feature_catalogs``: an enum of feature flags whose doc comments repeat a question's words goes
  below the code doing it, unless the question asks about features or options;
- ``parallel_siblings`` (off by default) and the path rules of the others, on hand-made rows.

Each test also runs the ranking with its rule off where the rule is a ranking signal, so it shows
the rule is what orders the files.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from conftest import build_index
from paqad.config import load_settings
from paqad.project import ProjectPaths
from paqad.search import RankingOptions, load_embedder, search
from paqad.search.analysis import analyze
from paqad.search.signals import (RankingContext, feature_catalogs, grammar_outputs, inline_pairs, parallel_siblings,
                                  version_copies)
from paqad.store import ChunkRow

PARSER_Y = """%{
#include "compile.h"
%}
%token IDENT FIELD LITERAL
%left '|'
%left ','

%%

/* The grammar of the filter language: a program is a pipeline of terms. */
Pipeline:
Term '|' Pipeline { $$ = block_join($1, $3); }
| Term { $$ = $1; }
;

Term:
'.' { $$ = gen_noop(); }
| FIELD { $$ = gen_index(jv_string($1)); }
| '$' IDENT { $$ = gen_variable_ref($2); }
| LITERAL { $$ = gen_const($1); }
;

%%
"""

LEXER_L = """%{
#include "parser.h"
%}
%option noyywrap

%%

"|"  { return '|'; }
"."  { return '.'; }
"$"  { return '$'; }
[a-zA-Z_][a-zA-Z_0-9]*  { yylval->literal = jv_string(yytext); return IDENT; }
\\.[a-zA-Z_][a-zA-Z_0-9]*  { yylval->literal = jv_string(yytext + 1); return FIELD; }
[0-9]+  { yylval->literal = jv_number(atof(yytext)); return LITERAL; }
[ \\t\\n]+  { /* whitespace between tokens */ }

%%
"""

VARS_C = """#include "compile.h"

/* --arg NAME VALUE: every pair given on the command line is bound as $NAME before the program
 * runs, so a reference to $NAME in the filter reads the value. */
block bind_named_arguments(block program, jv args) {
    jv_object_foreach(args, name, value) {
        program = gen_var_binding(gen_const(value), jv_string_value(name), program);
    }
    return program;
}
"""

MAIN_C = """#include <stdio.h>
#include "compile.h"

int main(int argc, char **argv) {
    jv args = jv_object();
    for (int i = 1; i + 2 < argc; i++) {
        if (strcmp(argv[i], "--arg") == 0) {
            args = jv_object_set(args, jv_string(argv[i + 1]), jv_string(argv[i + 2]));
            i += 2;
        }
    }
    return run_program(argv[argc - 1], args);
}
"""


def _manual(release: str) -> str:
    return (f"version: {release}\nsections:\n  - title: Invoking jq\n    body: |\n"
            "      `--arg name value`: passes a value to the program as a predefined variable. If you run\n"
            "      jq with `--arg foo bar`, then `$foo` is available in the program and has the value \"bar\".\n"
            "      Every value passed with --arg on the command line becomes a $variable inside the filter.\n")


GRAMMAR = {"configure.ac": "AC_INIT([jq], [1.8])\nAC_PROG_CC\nAC_PROG_YACC\nAM_PROG_LEX\nAC_OUTPUT\n",
           "src/parser.y": PARSER_Y, "src/lexer.l": LEXER_L, "src/vars.c": VARS_C, "src/main.c": MAIN_C,
           "docs/manual/v1.6/manual.yml": _manual("1.6"), "docs/manual/v1.7/manual.yml": _manual("1.7"),
           "docs/manual/v1.8/manual.yml": _manual("1.8")}

NODE_H = """#pragma once
#include "yaml-cpp/node/detail/node.h"

namespace YAML {
/** A node of a document: a scalar, a sequence or a map, sharing its memory with its document. */
class Node {
 public:
  Node();
  explicit Node(NodeType::value type);
  bool IsDefined() const;
  const std::string& Scalar() const;

 private:
  detail::node* m_pNode;
};
}  // namespace YAML
"""

DETAIL_NODE_H = """#pragma once
#include <set>

namespace YAML {
namespace detail {
class node {
 public:
  node() : m_index{} {}
  bool is_defined() const { return m_defined; }

  void mark_defined() {
    if (is_defined())
      return;
    m_defined = true;
  }

 private:
  bool m_defined = false;
  size_t m_index;
};
}  // namespace detail
}  // namespace YAML
"""

PARSE_H = """#pragma once
#include <string>

namespace YAML {
class Node;

/** Loads the input string as a single YAML document; throws ParserException when it is malformed. */
Node Load(const std::string& input);

/** Loads every document of the input string. */
std::vector<Node> LoadAll(const std::string& input);
}  // namespace YAML
"""

HEADERS = {"CMakeLists.txt": "cmake_minimum_required(VERSION 3.4)\nproject(yaml-cpp CXX)\nadd_library(yaml-cpp src/parse.cpp)\n",
           "include/yaml-cpp/node/node.hpp": NODE_H, "include/yaml-cpp/node/detail/node.hpp": DETAIL_NODE_H,
           "include/yaml-cpp/node/parse.hpp": PARSE_H,
           "src/parse.cpp": '#include "yaml-cpp/node/parse.hpp"\n\nnamespace YAML {\nNode Load(const std::string& input) {\n'
                            "  std::stringstream stream(input);\n  return Load(stream);\n}\n}  // namespace YAML\n"}

FORMATTER_HPP = """#pragma once
#include <string>

namespace CLI {
/// Formats the help output of an application. How the usage line at the top of the help output is
/// put together: the usage line is the program name, an [OPTIONS] marker when the app has options,
/// the positionals and [SUBCOMMAND]; the help output puts the usage line at the top, then the rest.
class Formatter {
 public:
  /// The help output of `app`: usage line, description, options, subcommands, footer.
  std::string make_help(const App *app, std::string name) const;

  /// The usage line at the top of the help output.
  std::string make_usage(const App *app, std::string name) const;
};
}  // namespace CLI
"""

FORMATTER_INL_HPP = """#pragma once
#include "../Formatter.hpp"

namespace CLI {
CLI11_INLINE std::string Formatter::make_usage(const App *app, std::string name) const {
    std::stringstream out;
    out << get_label("Usage") << ":" << (name.empty() ? "" : " ") << name;
    if(!app->get_options().empty())
        out << " [" << get_label("OPTIONS") << "]";
    for(const Option *opt : app->get_positionals())
        out << " " << opt->get_name();
    if(!app->get_subcommands().empty())
        out << " [" << get_label("SUBCOMMAND") << "]";
    out << '\\n';
    return out.str();
}

CLI11_INLINE std::string Formatter::make_help(const App *app, std::string name) const {
    std::stringstream out;
    out << make_usage(app, name) << make_description(app) << make_groups(app) << make_footer(app);
    return out.str();
}
}  // namespace CLI
"""

ERROR_HPP = """#pragma once
#include <stdexcept>

namespace CLI {
/// Thrown when an argument on the command line was not expected.
class ExtrasError : public std::runtime_error {
 public:
  explicit ExtrasError(const std::string &name) : std::runtime_error("The following argument was not expected: " + name) {}
};
}  // namespace CLI
"""

INLINE = {"CMakeLists.txt": "cmake_minimum_required(VERSION 3.4)\nproject(CLI11 CXX)\n",
          "include/CLI/Formatter.hpp": FORMATTER_HPP, "include/CLI/impl/Formatter_inl.hpp": FORMATTER_INL_HPP,
          "include/CLI/Error.hpp": ERROR_HPP}


STREAM_READ_FEATURE = """package com.example;

/** The on/off features of a parser. */
public enum StreamReadFeature {
    /**
     * Whether an object that has the same key twice is rejected: when enabled, the parser checks
     * every key of an object and throws when the same key comes twice in one object.
     */
    STRICT_DUPLICATE_DETECTION(false),

    /** Whether the parser closes the input source it reads from when it is closed. */
    AUTO_CLOSE_SOURCE(true);

    private final boolean defaultState;

    StreamReadFeature(boolean defaultState) {
        this.defaultState = defaultState;
    }
}
"""

DUP_DETECTOR = """package com.example.json;

/** Rejects an object with a key it has seen before in that object. */
public class DupDetector {
    private String first;
    private HashSet<String> seen;

    public boolean isDup(String name) throws JsonParseException {
        if (first == null) {
            first = name;
            return false;
        }
        if (seen == null) {
            seen = new HashSet<>();
            seen.add(first);
        }
        return !seen.add(name);
    }
}
"""

CATALOGS = {"pom.xml": "<project><modelVersion>4.0.0</modelVersion><artifactId>json</artifactId></project>\n",
            "src/main/java/com/example/StreamReadFeature.java": STREAM_READ_FEATURE,
            "src/main/java/com/example/json/DupDetector.java": DUP_DETECTOR}


@pytest.fixture(scope="module")
def catalogs(tmp_path_factory, paqad_home) -> Path:
    return build_index(tmp_path_factory.mktemp("c-cpp-java") / "catalogs", CATALOGS, paqad_home)


@pytest.fixture(scope="module")
def grammar(tmp_path_factory, paqad_home) -> Path:
    return build_index(tmp_path_factory.mktemp("c-cpp-java") / "grammar", GRAMMAR, paqad_home)


@pytest.fixture(scope="module")
def headers(tmp_path_factory, paqad_home) -> Path:
    return build_index(tmp_path_factory.mktemp("c-cpp-java") / "headers", HEADERS, paqad_home)


@pytest.fixture(scope="module")
def inline(tmp_path_factory, paqad_home) -> Path:
    return build_index(tmp_path_factory.mktemp("c-cpp-java") / "inline", INLINE, paqad_home)


def _results(root: Path, query: str, options: RankingOptions = RankingOptions()):
    paths = ProjectPaths(root)
    settings = load_settings(paths, environ={})
    embedder, why = load_embedder(paths, settings)
    assert why is None
    return search(paths, settings, query, embedder=embedder, options=options).results


def _files(root: Path, query: str, options: RankingOptions = RankingOptions()) -> list[str]:
    """Distinct files of the results, best first."""
    return list(dict.fromkeys(r.path for r in _results(root, query, options)))


def test_yacc_and_lex_grammars_are_indexed_and_found(grammar):
    assert _files(grammar, "how is the syntax of the filter language defined?")[0] == "src/parser.y"
    assert _files(grammar, "which file splits a program into tokens?")[:2] == ["src/parser.y", "src/lexer.l"]


def test_older_release_copies_of_a_manual_go_below_the_code(grammar):
    # release_copies (on, signals.version_copies): v1.6/ and v1.7/ are older copies of v1.8/'s manual;
    # docs_data (on) puts every manual below the code too, so the rule's own effect shows with it off
    query = "how does a value passed with --arg on the command line become a $variable inside the filter?"
    code = ["src/vars.c", "src/parser.y", "src/main.c"]
    assert _files(grammar, query) == [*code, "src/lexer.l", "docs/manual/v1.8/manual.yml",
                                      "docs/manual/v1.6/manual.yml", "docs/manual/v1.7/manual.yml"]
    alone = replace(RankingOptions(), docs_data=False)
    assert _files(grammar, query, alone) == [*code, "docs/manual/v1.8/manual.yml", "src/lexer.l",
                                             "docs/manual/v1.6/manual.yml", "docs/manual/v1.7/manual.yml"]
    assert _files(grammar, query, replace(alone, release_copies=False)) == [
        *code, "docs/manual/v1.6/manual.yml", "src/lexer.l", "docs/manual/v1.8/manual.yml",
        "docs/manual/v1.7/manual.yml"]


def test_a_forward_declaration_is_not_the_definition(headers):
    # chunker 5: `class Node;` in parse.hpp defines nothing (it was a definition of Node before)
    assert _files(headers, "detail::node")[0] == "include/yaml-cpp/node/detail/node.hpp"
    assert _files(headers, "YAML::Node")[:2] == ["include/yaml-cpp/node/node.hpp", "include/yaml-cpp/node/parse.hpp"]


def test_an_inline_implementation_file_ranks_above_its_header_for_a_how_question(inline):
    # inline_pairs (on): Formatter.hpp x 0.9 and impl/Formatter_inl.hpp at least its best score
    query = "how is the usage line at the top of the help output put together?"
    assert _files(inline, query) == ["include/CLI/impl/Formatter_inl.hpp", "include/CLI/Error.hpp",
                                     "include/CLI/Formatter.hpp", "CMakeLists.txt"]
    assert _files(inline, query, replace(RankingOptions(), inline_pair_prior=1.0, inline_pair_lift=0.0)) == [
        "include/CLI/impl/Formatter_inl.hpp", "include/CLI/Formatter.hpp", "include/CLI/Error.hpp", "CMakeLists.txt"]
    # a question about the class asks for its declaration: waived
    assert _files(inline, "the Formatter class")[0] == "include/CLI/Formatter.hpp"


def test_a_feature_catalog_ranks_below_the_code_doing_it(catalogs):
    # feature_catalogs (on): the enum constant's doc comment repeats the question's words
    query = "where is an object that has the same key twice rejected?"
    feature, code = "src/main/java/com/example/StreamReadFeature.java", "src/main/java/com/example/json/DupDetector.java"
    assert _files(catalogs, query) == [code, feature]
    assert _files(catalogs, query, replace(RankingOptions(), feature_catalog_prior=1.0)) == [feature, code]
    # a question about the switch itself is left alone
    assert _files(catalogs, "which parser feature rejects an object that has the same key twice?") == [feature, code]


def _row(cid: int, path: str, symbol: str | None = None, kind: str = "block") -> ChunkRow:
    return ChunkRow(path=path, start_line=1, end_line=10, language="java", symbol=symbol, kind=kind, signature=None,
                    text="", id=cid)


def _context(query: str, rows: dict[int, ChunkRow], options: RankingOptions = RankingOptions()) -> RankingContext:
    return RankingContext(info=analyze(query), options=options, rows=rows, best=1.0, definitions=(),
                          named_paths=frozenset(), exempt=frozenset())


def test_the_pair_and_release_rules_read_paths():
    assert version_copies.version_of("docs/content/manual/v1.7/manual.yml") == ("docs/content/manual/", (1, 7))
    assert version_copies.version_of("docs/2.4.1/api.md") == ("docs/", (2, 4, 1))
    assert version_copies.version_of("src/v3/index.ts") == ("src/", (3,))
    assert version_copies.version_of("docs/2/api.md") is None  # a bare whole number is not a version folder
    assert version_copies.version_of("docs/content/manual/v1.7/manual.yml", releases=False) is None
    assert [inline_pairs.inline_stem(p) for p in ("include/CLI/impl/App_inl.hpp", "absl/strings/str_cat-inl.h",
                                                   "asio/impl/write.ipp", "bits/vector.tcc", "include/CLI/App.hpp")] == [
        "app", "str_cat", "write", "vector", None]
    assert [inline_pairs.header_stem(p) for p in ("include/CLI/App.hpp", "include/CLI/FormatterFwd.hpp", "x_fwd.h",
                                                   "include/CLI/impl/App_inl.hpp", "src/app.cpp")] == [
        "app", "formatter", "x", None, None]
    grammars = {("src/", "parser"): "yacc", ("src/", "lexer"): "lex"}
    assert [grammar_outputs.generated_from(p, grammars) for p in ("src/parser.c", "src/parser.tab.h", "src/lexer.c",
                                                                   "src/lex.yy.c", "src/main.c", "lib/parser.c")] == [
        True, True, True, True, False, False]


def test_feature_catalogs_are_named_by_their_type():
    assert feature_catalogs.is_catalog("StreamReadFeature", "src/main/java/com/x/StreamReadFeature.java")
    assert feature_catalogs.is_catalog("JsonParser.Feature", "src/main/java/com/x/JsonParser.java")
    assert feature_catalogs.is_catalog(None, "src/main/java/com/x/StreamReadCapability.java")
    assert not feature_catalogs.is_catalog("JsonParser.nextToken", "src/main/java/com/x/JsonParser.java")
    assert not feature_catalogs.is_catalog("FeatureFlags", "src/flags.rs")
    assert feature_catalogs.catalog_name("JsonParser.Feature", "src/main/java/com/x/JsonParser.java") == "Feature"
    # a commit message naming the catalog (Add `StreamReadFeature.CLEAR_CURRENT_TOKEN_ON_CLOSE`) keeps it
    rows = {1: _row(1, "src/main/java/com/x/StreamReadFeature.java", "StreamReadFeature", "class"),
            2: _row(2, "src/main/java/com/x/base/ParserBase.java", "ParserBase.close", "method")}
    scores = {1: 0.9, 2: 0.8}
    assert feature_catalogs.apply(scores, _context("Implement #1441: Add `StreamReadFeature.CLEAR_CURRENT_TOKEN_ON_CLOSE`",
                                                   rows)) == scores
    assert feature_catalogs.apply(scores, _context("clear the current token when the parser is closed", rows)) == {
        1: 0.45, 2: 0.8}


def test_parallel_implementations_of_a_method_keep_only_the_best_copy_in_place():
    # parallel_siblings (measured, off by default: it lost JavaScript on dev, ws-11)
    rows = {1: _row(1, "core/json/ReaderParser.java", "ReaderParser._decodeBase64", "method"),
            2: _row(2, "core/json/StreamParser.java", "StreamParser._decodeBase64", "method"),
            3: _row(3, "core/json/DataInputParser.java", "DataInputParser._decodeBase64", "method"),
            4: _row(4, "core/Base64Variant.java", "Base64Variant.decode", "method"),
            5: _row(5, "core/json/StreamParser.java", "StreamParser._skipString", "method")}
    scores = {1: 0.9, 2: 0.8, 3: 0.7, 4: 0.6, 5: 0.5}
    query = "how is base64 text decoded back into bytes?"
    on = replace(RankingOptions(), sibling_share=0.5)
    assert parallel_siblings.apply(scores, _context(query, rows, on)) == {1: 0.9, 2: 0.4, 3: 0.35, 4: 0.6, 5: 0.5}
    # two copies are not a family; a symbol query is left to the definitions
    del rows[3], scores[3]
    assert parallel_siblings.apply(scores, _context(query, rows, on)) == scores
    assert parallel_siblings.apply(scores, _context("_decodeBase64", rows, on)) == scores
