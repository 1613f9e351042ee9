"""The long tail of languages: one data file each (chunking/queries/<language>.scm).

For every data-file language: its manifest detects the stack, its sources pass the file-type
filter, its definitions become symbols with the right line range, and an exact-name query finds
the definition first (one index of all the fixtures, built once with the real model).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import pytest

from conftest import MODEL_MIRROR, run_cli, write_files
from paqad.build import sync as sync_index
from paqad.config import load_settings
from paqad.embed.factory import get_embedder
from paqad.index.chunking import chunk_file
from paqad.index.discover import discover
from paqad.index.grammar_files import GrammarFileError, grammar_files, parse_grammar_file
from paqad.index.languages import Chunking, chunking_for, language_for_path
from paqad.index.stacks import detect_stacks
from paqad.project import ProjectPaths
from paqad.search import search
from paqad.search.analysis import SYMBOL, analyze
from paqad.search.symbols import with_bare_word_symbol
from paqad.store import open_store


@dataclass(frozen=True)
class Case:
    manifest: tuple[str, str]  # (file name, content) that reveals the stack
    path: str  # the source file, project-relative
    source: str
    symbol: str  # a definition in it: its chunk's symbol
    lines: tuple[int, int]  # 1-based first and last line of its chunk
    qualified: str | None = None  # its symbol-table name when the module header qualifies it

    @property
    def query(self) -> str:
        """The exact-name query: the qualified name when there is one (`Shop.Cart.cartTotal`)."""
        return self.qualified or self.symbol


def _lines(prefix: str, count: int) -> str:
    """``count`` comment lines (``prefix`` is the language's comment marker, indented): enough
    to push a container over the 800-character budget, so it is cut into one chunk per member."""
    return "".join(f"{prefix} Checkout step {i}: the cart is locked, priced and charged in order.\n" for i in range(count))


CASES: dict[str, Case] = {
    "elixir": Case(
        ("mix.exs", "defmodule Shop.MixProject do\n  use Mix.Project\nend\n"),
        "lib/shop/cart.ex",
        "defmodule Shop.Cart do\n  @moduledoc \"A shopping cart.\"\n\n"
        "  @doc \"Sum of the line prices with tax.\"\n  def total(cart, tax) when tax >= 0 do\n"
        "    Enum.reduce(cart.lines, 0, fn line, acc -> acc + line.price * line.qty end) * (1 + tax)\n"
        "  end\n\n  defp empty?(cart) do\n" + _lines("    #", 12) + "    cart.lines == []\n  end\nend\n",
        "Shop.Cart.total", (4, 7),
    ),
    "clojure": Case(
        ("deps.edn", "{:paths [\"src\"]}\n"),
        "src/shop/cart.clj",
        "(ns shop.cart\n  \"A shopping cart.\"\n  (:require [clojure.string :as str]))\n\n"
        "(defn- line-price [{:keys [price qty]}] (* price qty))\n\n"
        "(defn cart-total\n  \"Sum of the line prices with tax.\"\n  [cart tax]\n"
        "  (* (reduce + (map line-price (:lines cart))) (+ 1 tax)))\n",
        "cart-total", (7, 10), "shop.cart/cart-total",  # the table's name: shop.cart.cart-total
    ),
    "cmake": Case(
        ("CMakeLists.txt", "cmake_minimum_required(VERSION 3.16)\nproject(shop C)\n\n"
         "if(SHOP_TOOLS)\n  ADD_EXECUTABLE(cart_tool tools/cart_tool.c)\nendif()\n"),
        "cmake/cart.cmake",
        "# Adds a target that prints the cart total with tax.\nfunction(add_cart_total TARGET_NAME)\n"
        "  add_custom_target(${TARGET_NAME}-total COMMAND cart_tool --total)\nendfunction()\n",
        "add_cart_total", (1, 4),  # with its comment; targets (add_library, ...) are definitions too
    ),
    "dockerfile": Case(
        ("Dockerfile", "FROM python:3.12-slim\nCOPY . /app\n"),
        "images/cart/Dockerfile",
        "# The cart service image.\nARG PYTHON_VERSION=3.12\nFROM python:${PYTHON_VERSION}-slim AS cart-base\n"
        "ENV CART_HOME=/srv/cart \\\n    CART_TAX=0.2\n"
        "RUN pip install --no-cache-dir prices==1.2 taxes==0.4 receipts==2.0 && \\\n"
        "    python -m compileall ${CART_HOME} && rm -rf /root/.cache/pip\n\n"
        "# The totals job, on the base stage.\nFROM cart-base AS cart-totals\nCOPY totals.py ${CART_HOME}/\n"
        "CMD [\"python\", \"-m\", \"totals\"]\n",
        "cart-totals", (9, 12),  # a stage with its comment and short tail (ARG/ENV/the first stage: one block)
    ),
    "vue": Case(
        ("nuxt.config.ts", "export default defineNuxtConfig({})\n"),
        "src/components/CartTotal.vue",
        "<script setup lang=\"ts\">\nimport { computed } from 'vue'\n\nconst props = defineProps<{ prices: number[] }>()\n\n"
        "function cartTotal(prices: number[], tax: number): number {\n"
        "  return prices.reduce((a, b) => a + b, 0) * (1 + tax)\n}\n\n"
        "const total = computed(() => cartTotal(props.prices, 0.2))\n</script>\n\n"
        "<template>\n  <p class=\"cart-total\">Total: {{ total }}</p>\n</template>\n\n"
        "<style scoped>\n.cart-total { font-weight: bold; }\n</style>\n",
        "cartTotal", (6, 8),  # the script's function, cut as TypeScript (lang="ts")
    ),
    "svelte": Case(
        ("svelte.config.js", "export default { kit: {} };\n"),
        "src/routes/cart/+page.svelte",
        "<script>\n  export let data;\n\n  /** Sum of the prices with tax. */\n  function cartTotal(prices, tax) {\n"
        "    return prices.reduce((a, b) => a + b, 0) * (1 + tax);\n  }\n</script>\n\n"
        "{#each data.carts as cart}\n  <p>{cart.id}: {cartTotal(cart.prices, 0.2)}</p>\n{/each}\n",
        "cartTotal", (1, 7),  # the script cut as JavaScript: its tiny first lines join the function
    ),
    "dart": Case(
        ("pubspec.yaml", "name: shop\n"),
        "lib/cart.dart",
        "class Cart {\n  final List<int> prices = [];\n\n  int total(double tax) {\n"
        "    var sum = prices.fold(0, (a, b) => a + b);\n    return (sum * (1 + tax)).round();\n  }\n\n"
        "  void checkout() {\n" + _lines("    //", 12) + "  }\n}\n",
        "Cart.total", (4, 7),
    ),
    "graphql": Case(
        ("subgraph.yaml", "specVersion: 0.0.4\nschema:\n  file: ./schema.graphql\n"),
        "schema.graphql",
        "\"\"\"A customer's cart.\"\"\"\ntype Cart @entity {\n  id: ID!\n  prices: [BigInt!]!\n}\n\n"
        "# What a cart costs, tax included.\ntype CartTotal @entity {\n  id: ID!\n  cart: Cart!\n  total: BigDecimal!\n}\n\n"
        "query CartTotals($first: Int) {\n  cartTotals(first: $first) { id total }\n}\n",
        "CartTotal", (7, 12),  # with the comment above it
    ),
    "haskell": Case(
        ("shop.cabal", "name: shop\nversion: 0.1\n"),
        "src/Shop/Cart.hs",
        "module Shop.Cart where\n\ndata Cart = Cart { prices :: [Int] }\n\n"
        "cartTotal :: Cart -> Double -> Double\ncartTotal cart tax =\n"
        "  fromIntegral (sum (prices cart)) * (1 + tax)\n",
        "cartTotal", (5, 7), "Shop.Cart.cartTotal",  # the module header qualifies it
    ),
    "sql": Case(
        ("db/migrations/001_carts.sql", "-- carts and their lines\nCREATE TABLE carts (\n  id serial PRIMARY KEY,\n"
         "  customer text NOT NULL\n);\n"),
        "db/functions.sql",
        "-- Sum of the line prices with tax.\nCREATE FUNCTION cart_total(prices numeric[], tax numeric) RETURNS numeric\n"
        "    LANGUAGE sql\n    AS $$ SELECT sum(p) * (1 + tax) FROM unnest(prices) p $$;\n\n"
        "CREATE VIEW open_carts AS\n  SELECT id, customer FROM carts WHERE closed_at IS NULL;\n",
        "cart_total", (1, 4),  # with the comment above it; the .sql files are the manifest
    ),
    "zig": Case(
        ("build.zig", "const std = @import(\"std\");\n"),
        "src/cart.zig",
        "const std = @import(\"std\");\n\npub const Cart = struct {\n    prices: []const u32,\n\n"
        "    pub fn total(self: Cart) u32 {\n        var sum: u32 = 0;\n"
        "        for (self.prices) |p| sum += p;\n        return sum;\n    }\n\n"
        "    pub fn checkout(self: Cart) void {\n" + _lines("        //", 12) + "        _ = self;\n    }\n};\n",
        "Cart.total", (6, 10),
    ),
    "nix": Case(
        ("flake.nix", "{\n  description = \"shop\";\n  outputs = { self }: import ./lib.nix { };\n}\n"),
        "lib.nix",
        "{ tax ? 0.2 }:\nlet\n  # Sum of the prices with tax.\n  cartTotal = prices:\n"
        "    builtins.foldl' (a: b: a + b) 0 prices * (1 + tax);\n\n"
        "  lib = { inherit cartTotal; };\nin\nlib\n",
        "cartTotal", (1, 5),  # the outer function and `let` are looked through (their lines: tiny glue)
    ),
    "ocaml": Case(
        ("dune-project", "(lang dune 3.0)\n"),
        "lib/cart.ml",
        "type cart = { prices : int list }\n\nlet cart_total cart tax =\n"
        "  let sum = List.fold_left ( + ) 0 cart.prices in\n  float_of_int sum *. (1. +. tax)\n",
        "cart_total", (3, 5), "Cart.cart_total",  # lib/cart.ml is the module Cart
    ),
    "julia": Case(
        ("Project.toml", "name = \"Shop\"\n"),
        "src/cart.jl",
        "struct Cart\n    prices::Vector{Int}\nend\n\n\"\"\"Sum of the prices with tax.\"\"\"\n"
        "function cart_total(cart::Cart, tax)\n    sum(cart.prices) * (1 + tax)\nend\n",
        "cart_total", (5, 8),  # with its docstring
    ),
    "r": Case(
        ("DESCRIPTION", "Package: shop\nVersion: 0.1\n"),
        "R/cart.R",
        "# Sum of the prices with tax.\ncart_total <- function(prices, tax = 0) {\n"
        "  sum(prices) * (1 + tax)\n}\n\nprint_cart <- function(prices) {\n" + _lines("  #", 2) + "  print(prices)\n}\n",
        "cart_total", (1, 4),
    ),
    "perl": Case(
        ("Makefile.PL", "use ExtUtils::MakeMaker;\n"),
        "lib/Shop/Cart.pm",
        "package Shop::Cart;\nuse strict;\n\nsub cart_total {\n    my ($prices, $tax) = @_;\n"
        "    my $sum = 0;\n    $sum += $_ for @$prices;\n    return $sum * (1 + $tax);\n}\n\n1;\n",
        "cart_total", (1, 11), "Shop::Cart::cart_total",  # a small file: the glue above and below joins it
    ),
    "erlang": Case(
        ("rebar.config", "{erl_opts, [debug_info]}.\n"),
        "src/cart.erl",
        "-module(cart).\n-export([cart_total/2]).\n\n-spec cart_total([integer()], float()) -> float().\n"
        "cart_total(Prices, Tax) ->\n    lists:sum(Prices) * (1 + Tax).\n",
        "cart_total", (1, 6), "cart:cart_total",  # the table's name: cart.cart_total
    ),
    "elm": Case(
        ("elm.json", "{\"type\": \"application\"}\n"),
        "src/Cart.elm",
        "module Cart exposing (cartTotal)\n\n\ncartTotal : List Int -> Float -> Float\n"
        "cartTotal prices tax =\n    toFloat (List.sum prices) * (1 + tax)\n",
        "cartTotal", (1, 6), "Cart.cartTotal",  # the module line is tiny glue: it joins the chunk below
    ),
    "hcl": Case(
        ("versions.tf", "terraform {\n  required_version = \">= 1.5\"\n}\n"),
        "infra/storage.tf",
        "variable \"region\" {\n  default = \"eu-west-1\"\n}\n\n"
        "resource \"aws_s3_bucket\" \"cart_exports\" {\n  bucket = \"shop-cart-exports\"\n  tags = {\n"
        "    team = \"shop\"\n  }\n}\n",
        "aws_s3_bucket.cart_exports", (5, 10),
    ),
    "proto": Case(
        ("buf.yaml", "version: v2\n"),
        "proto/cart.proto",
        "syntax = \"proto3\";\npackage shop;\n\nmessage Cart {\n  repeated int64 prices = 1;\n}\n\n"
        "service CartService {\n  // The cart total with tax.\n  rpc CartTotal(Cart) returns (Cart);\n"
        + _lines("  //", 12) + "  rpc Checkout(Cart) returns (Cart);\n}\n",
        "CartService.CartTotal", (8, 10),  # the service line opens its first member
    ),
}


def test_every_data_file_has_a_case_here():
    """Adding a language is one data file plus its case in CASES: a file without one fails."""
    assert sorted(CASES) == sorted(grammar_files())


@pytest.mark.parametrize("language", sorted(CASES))
def test_definitions_become_symbols(language):
    case = CASES[language]
    assert language_for_path(case.path) == language
    assert chunking_for(language) is Chunking.LANGUAGE_PACK
    chunks = chunk_file(case.path, case.source)
    assert chunks[0].language == language
    found = [c for c in chunks if c.symbol == case.symbol and c.defines]
    assert [(c.start_line, c.end_line) for c in found] == [case.lines]
    assert re.sub(r"::|:|/", ".", case.query) in found[0].definitions  # the table's form of the name
    if case.qualified:  # the symbol table names it by its module-qualified name only
        assert case.symbol not in found[0].definitions


@pytest.mark.parametrize("language", sorted(CASES))
def test_manifest_detects_the_stack_and_sources_pass_the_filter(tmp_path, language):
    case = CASES[language]
    write_files(tmp_path, {case.manifest[0]: case.manifest[1], case.path: case.source})
    if grammar_files()[language].manifests:  # a Dockerfile has none: it is indexed in every project
        assert language in [pack.name for pack in detect_stacks(tmp_path)]
    assert case.path in {d.path for d in discover(tmp_path).eligible}


def test_a_javascript_project_indexes_its_single_file_components(tmp_path):
    write_files(tmp_path, {"package.json": "{\"name\": \"shop\"}\n", "src/App.vue": CASES["vue"].source,
                           "src/routes/+page.svelte": CASES["svelte"].source})
    assert {d.path for d in discover(tmp_path).eligible} == {"src/App.vue", "src/routes/+page.svelte"}


def test_cmake_targets_are_definitions_inside_if_blocks_too():
    chunks = chunk_file("CMakeLists.txt", CASES["cmake"].manifest[1])
    assert chunks[0].language == "cmake"
    assert [d for c in chunks for d in c.definitions] == ["cart_tool"]  # ADD_EXECUTABLE: any case


def test_seventeen_wheel_languages_keep_their_own_grammar():
    assert chunking_for("python") is Chunking.GRAMMAR and chunking_for("lua") is Chunking.GRAMMAR
    assert chunking_for("markdown") is Chunking.HEADINGS and chunking_for("make") is Chunking.PARAGRAPHS


def test_a_data_file_without_grammar_or_with_an_unknown_key_is_refused():
    with pytest.raises(GrammarFileError, match="needs 'grammar:'"):
        parse_grammar_file("x", "; extensions: .x\n(identifier) @name\n")
    with pytest.raises(GrammarFileError, match="unknown header key 'extension'"):
        parse_grammar_file("x", "; grammar: x\n; extension: .x\n")
    with pytest.raises(GrammarFileError, match="'file_module:' can only be 'Stem'"):
        parse_grammar_file("x", "; grammar: x\n; extensions: .x\n; file_module: stem\n")


def test_module_headers_qualify_the_symbol_table_names():
    """`package A::B;` qualifies the subs below it up to the next one; a block package's name is
    its own (not under the statement above it); the chunks' symbols stay bare."""
    source = ("package URI::mailto;\nsub query_form { 1 }\npackage URI::_query;\nsub query_form { 2 }\n"
              "package Foo { sub bar { 3 } }\nsub baz { 4 }\n1;\n")
    chunks = chunk_file("lib/URI/mailto.pm", source, max_chars=30)
    named = [(c.start_line, c.symbol, c.definitions) for c in chunks if c.definitions]
    assert named == [
        (2, "query_form", ("URI.mailto.query_form",)),
        (4, "query_form", ("URI._query.query_form",)),
        (5, "Foo", ("Foo",)),
        (6, "baz", ("URI._query.baz",)),
    ]


def test_a_file_named_module_qualifies_its_nested_modules_too():
    """OCaml: `lib/angstrom.ml` is the module Angstrom; a nested `module Choice` is inside it."""
    source = ("let choice ps = List.fold_right alt ps fail\n\nmodule Choice = struct\n"
              "  let alt p q = p\n  let first p q = q\nend\n")
    chunks = chunk_file("lib/angstrom.ml", source, max_chars=40)
    assert [(c.symbol, c.definitions) for c in chunks] == [
        ("choice", ("Angstrom.choice",)),
        ("Choice.alt", ("Angstrom.Choice", "Angstrom.Choice.alt")),  # the module line joins its first member
        ("Choice.first", ("Angstrom.Choice.first",)),
    ]


# Beside the cases: two Elm modules defining one name, and a Zig file where a function's name
# starts another's (`usage`, `usageToFile`).
EXTRA_FILES = {
    "modules/elm.json": "{\"type\": \"package\"}\n",
    "modules/src/Parser.elm": "module Parser exposing (keyword)\n\nimport Parser.Advanced as A\n\n\n"
    "keyword : String -> Parser ()\nkeyword kwd =\n    A.keyword (A.Token kwd (Expecting kwd))\n",
    "modules/src/Parser/Advanced.elm": "module Parser.Advanced exposing (keyword)\n\n\n"
    "keyword : Token x -> Parser c x ()\nkeyword (Token kwd expecting) =\n"
    "    Parser (\\s -> isSubString kwd s.offset s.row s.col s.src expecting)\n",
    "words/build.zig": "const std = @import(\"std\");\n",
    "words/src/clap.zig": "const std = @import(\"std\");\n\n"
    "/// Prints the usage of the parameters to a file.\npub fn usageToFile(file: std.fs.File, params: []const u8) !void {\n"
    "    var writer = file.writer();\n    try usage(writer.any(), params);\n}\n\n"
    "/// Prints the usage text of the parameters.\npub fn usage(writer: anytype, params: []const u8) !void {\n"
    "    for (params) |p| try writer.print(\"{c}\", .{p});\n    try writer.writeAll(\"\\n\");\n}\n",
}


@pytest.fixture(scope="module")
def polyglot(tmp_path_factory, paqad_home):
    """One project holding every case in its own folder, indexed once with the real model."""
    root = tmp_path_factory.mktemp("long-tail") / "shop"
    files: dict[str, str] = dict(EXTRA_FILES)
    for language, case in CASES.items():
        files[f"{language}/{case.manifest[0]}"] = case.manifest[1]
        files[f"{language}/{case.path}"] = case.source
    write_files(root, files)
    paths = ProjectPaths(root)
    settings = load_settings(paths, environ={})
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PAQAD_HOME", str(paqad_home))
        mp.setenv("PAQAD_MODEL_MIRROR", str(MODEL_MIRROR))
        embedder = get_embedder(settings, paths)
        sync_index(paths, settings, embedder)
    return paths, settings, embedder


@pytest.mark.parametrize("language", sorted(CASES))
def test_an_exact_name_query_finds_the_definition_first(polyglot, language):
    paths, settings, embedder = polyglot
    case = CASES[language]
    # Several cases share a name (cart_total): each is searched within its own folder.
    top = search(paths, settings, case.query, embedder=embedder, path_prefix=f"{language}/").results[0]
    assert (top.path, top.symbol, top.start_line) == (f"{language}/{case.path}", case.symbol, case.lines[0])


def test_status_names_how_each_language_is_chunked(polyglot, monkeypatch, paqad_home):
    paths, _, _ = polyglot
    monkeypatch.setenv("PAQAD_HOME", str(paqad_home))
    code, out, _ = run_cli("rag", "status", "--json", project=paths.root)
    assert code == 0
    chunking = json.loads(out)["index"]["chunking"]
    assert chunking["elixir"] == "grammar (language pack)" and chunking["hcl"] == "grammar (language pack)"
    code, out, _ = run_cli("rag", "status", project=paths.root)
    line = next(line for line in out.splitlines() if line.strip().startswith("languages:"))
    assert "(grammar (language pack))" in line


@pytest.mark.parametrize(("query", "path"), [
    ("Parser.Advanced.keyword", "modules/src/Parser/Advanced.elm"),
    ("Parser.keyword", "modules/src/Parser.elm"),
])
def test_a_module_qualified_query_finds_that_modules_definition(polyglot, query, path):
    paths, settings, embedder = polyglot
    top = search(paths, settings, query, embedder=embedder, path_prefix="modules/").results[0]
    assert (top.path, top.symbol) == (path, "keyword")


def test_a_one_word_query_naming_a_symbol_is_a_symbol_query(polyglot):
    paths, settings, embedder = polyglot
    with open_store(paths, readonly=True) as store:
        info = with_bare_word_symbol(store, analyze("usage"))
        assert (info.kind, [i.name for i in info.identifiers]) == (SYMBOL, ["usage"])
        # words no definition is named exactly (the table ignores case: `CartService` is not
        # `cartservice`; `writer` is a local variable)
        for word in ("cartservice", "writer"):
            assert with_bare_word_symbol(store, analyze(word)) == analyze(word)
    top = search(paths, settings, "usage", embedder=embedder, path_prefix="words/").results[0]
    assert (top.symbol, top.start_line) == ("usage", 9)
    top = search(paths, settings, "cart-total", embedder=embedder, path_prefix="clojure/").results[0]
    assert (top.symbol, top.start_line) == ("cart-total", 7)  # kebab-case, as Lisps name things


@pytest.mark.parametrize(("query", "parts"), [
    ("cart:cart_total", ("cart", "cart_total")),  # Erlang's module:function
    ("cart:cart_total/2", ("cart", "cart_total")),
    ("handshake/2", ("handshake",)),  # an arity makes a lower-case word a name
    ("Shop.Cart.total/2", ("Shop", "Cart", "total")),  # Elixir
    ("hiccup.page/include-css", ("hiccup", "page", "include-css")),  # Clojure
])
def test_erlang_elixir_and_clojure_names_are_symbol_queries(query, parts):
    info = analyze(query)
    assert (info.kind, [i.parts for i in info.identifiers]) == (SYMBOL, [parts])


def test_an_erlang_call_finds_the_function_of_its_module(polyglot):
    paths, settings, embedder = polyglot
    top = search(paths, settings, "cart:cart_total/2", embedder=embedder, path_prefix="erlang/").results[0]
    assert (top.path, top.symbol) == ("erlang/src/cart.erl", "cart_total")


# The manifests issue 22 names, each alone in a project with one source file of its language:
# the stack is detected from that manifest and the source passes the file-type filter.
ISSUE_MANIFESTS = [
    ("mix.exs", "elixir", "lib/cart.ex"),
    ("pubspec.yaml", "dart", "lib/cart.dart"),
    ("shop.cabal", "haskell", "src/Cart.hs"),
    ("stack.yaml", "haskell", "src/Cart.hs"),
    ("build.zig", "zig", "src/cart.zig"),
    ("dune-project", "ocaml", "lib/cart.ml"),
    ("Project.toml", "julia", "src/cart.jl"),
    ("DESCRIPTION", "r", "R/cart.R"),
    ("main.tf", "hcl", "modules/cart/variables.tf"),
]


@pytest.mark.parametrize(("manifest", "language", "source"), ISSUE_MANIFESTS)
def test_each_manifest_the_issue_names_detects_its_stack(tmp_path, manifest, language, source):
    write_files(tmp_path, {manifest: "name = shop\n", source: CASES[language].source})
    assert [pack.name for pack in detect_stacks(tmp_path)] == [language, "shell"]  # shell: always, last
    assert language_for_path(source) == language
    assert {d.path for d in discover(tmp_path).eligible} >= {source}
