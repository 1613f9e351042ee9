"""One name defined in several modules (issue 22, round 3): the base class's definition over its
overrides, the package's root module over its submodules, the definition a wrapper delegates to;
the query's qualifier first (signals/canonical.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from conftest import MODEL_MIRROR, write_files
from paqad import store as store_mod
from paqad.build import sync as sync_index
from paqad.config import load_settings
from paqad.embed.factory import get_embedder
from paqad.project import ProjectPaths
from paqad.search import ablations, search
from paqad.search.analysis import SYMBOL, Identifier, analyze
from paqad.search.signals.canonical import marked_override
from paqad.search.signals.context import RankingContext
from paqad.search.signals.definitions import definition_shares
from paqad.search.symbols import DefinitionMatch


def _row(cid: int, path: str, text: str, symbol: str | None = None) -> store_mod.ChunkRow:
    # the index's language for the path (Erlang's name-prefix submodules count only in Erlang, round 6)
    language = "erlang" if path.endswith(".erl") else "perl"
    return store_mod.ChunkRow(path, 1, text.count("\n") + 1, language, symbol, "function", None, text, id=cid)


def _shares(query: str, rows: dict[store_mod.ChunkRow, str], files: dict[str, str] | None = None,
            config: str = "default") -> dict[int, float]:
    """Definition shares of ``rows`` (row -> its symbol-table symbol) for ``query``."""
    info = analyze(query)
    if not info.identifiers:  # a one-word lower-case name: gather's with_bare_word_symbol, the table holding it
        info = replace(info, kind=SYMBOL, identifiers=(Identifier(query, (query,), embedded=False),))
    (identifier,) = info.identifiers
    wanted = [p.lower() for p in identifier.parts]
    matches = tuple(DefinitionMatch(r.id, identifier, not identifier.qualified or symbol.lower().split(".")[-len(wanted):] == wanted,
                                    True, symbol) for r, symbol in rows.items())
    context = RankingContext(info, ablations()[config], {r.id: r for r in rows}, 1.0, matches, frozenset(), frozenset(),
                             file_text=(files or {}).get)
    return definition_shares(context)


MESSAGE = _row(1, "lib/HTTP/Message.pm", "sub dump\n{\n    my($self, %opt) = @_;\n}\n")
REQUEST = _row(2, "lib/HTTP/Request.pm", "sub dump\n{\n    my $self = shift;\n    $self->SUPER::dump(@_);\n}\n")
FILES = {"lib/HTTP/Request.pm": "package HTTP::Request;\n\nuse strict;\nuse parent 'HTTP::Message';\n\nsub dump\n{\n}\n",
         "lib/HTTP/Message.pm": "package HTTP::Message;\n\nsub dump\n{\n}\n"}


def test_the_base_class_over_a_subclass_that_inherits_from_it():
    rows = {MESSAGE: "HTTP.Message.dump", REQUEST: "HTTP.Request.dump"}
    assert _shares("dump", rows, FILES) == {1: 1.0, 2: 0.7}
    assert _shares("dump", rows, FILES, config="no-canonical") == {1: 1.0, 2: 1.0}
    # the qualifier names the subclass: it decides (the unqualified base gets the bare-name share)
    assert _shares("HTTP::Request::dump", rows, FILES) == {1: 0.5, 2: 1.0}


def test_an_override_marker_loses_to_the_declaring_class():
    base = _row(1, "lib/src/arg_parser.dart", "  void addSeparator(String text) {\n    _optionsAndSeparators.add(text);\n  }\n")
    over = _row(2, "lib/src/allow_anything_parser.dart",
                "  @override\n  void addSeparator(String text) {\n    throw UnsupportedError('no');\n  }\n")
    rows = {base: "ArgParser.addSeparator", over: "AllowAnythingParser.addSeparator"}
    assert _shares("addSeparator", rows) == {1: 1.0, 2: 0.7}


@pytest.mark.parametrize(("text", "marked"), [
    ("  @override\n  void addSeparator(String text) {\n", True),
    ("  override fun addSeparator(text: String) {\n", True),
    ("  void addSeparator(std::string text) override {\n", True),
    ('  @doc "See `Mint.HTTP.addSeparator/1`."\n  @impl true\n  def addSeparator(conn), do: conn\n', True),
    ("  @impl false\n  def addSeparator(conn), do: conn\n", False),
    ("  @override\n  void other() {}\n\n  void addSeparator(String text) {\n", False),  # another method's marker
    ("  void addSeparator(bool override) {\n", False),
])
def test_override_markers(text, marked):
    assert marked_override(text, "addSeparator") is marked


def test_the_root_module_over_its_submodules():
    root = _row(1, "src/gun.erl", "ws_send(ServerPid, StreamRef, Frames) ->\n\tgen_statem:cast(ServerPid, x).\n")
    ws = _row(2, "src/gun_ws.erl", "ws_send(Frames, State, StreamRef) ->\n\tsend(Frames).\n")
    http2 = _row(3, "src/gun_http2.erl", "ws_send(Frames, State) ->\n\tok.\n")
    rows = {root: "gun.ws_send", ws: "gun_ws.ws_send", http2: "gun_http2.ws_send"}
    assert _shares("ws_send", rows) == {1: 1.0, 2: 0.7, 3: 0.7}
    assert _shares("gun_ws:ws_send", rows) == {1: 0.5, 2: 1.0, 3: 0.5}
    # siblings (no module is the others' ancestor): no canonical one
    assert _shares("ws_send", {ws: "gun_ws.ws_send", http2: "gun_http2.ws_send"}) == {2: 1.0, 3: 1.0}
    # by path when the symbols have no module: clap.zig over clap/parsers.zig
    top = _row(4, "clap.zig", "pub fn parse(comptime Id: type) !void {\n}\n")
    nested = _row(5, "clap/parsers.zig", "        fn parse(in: []const u8) !T {\n        }\n")
    assert _shares("parse", {top: "parse", nested: "int.parse"}) == {4: 1.0, 5: 0.7}


def test_one_modules_several_definitions_rank_its_first():
    """Erlang arities (`await_body/2` ... `/3`): the first in the file; also under a qualifier."""
    rows = [store_mod.ChunkRow("src/gun.erl", line, line + 2, "erlang", "await_body", "function", None,
                               f"await_body(ServerPid, StreamRef{', X' * n}) ->\n\tok.\n", id=n + 1)
            for n, line in enumerate((858, 865, 874))]
    other = _row(9, "src/gun_pool.erl", "await_body(ServerPid, StreamRef) ->\n\tok.\n")
    table = {**{r: "gun.await_body" for r in rows}, other: "gun_pool.await_body"}
    assert _shares("await_body", table) == {1: 1.0, 2: 0.7, 3: 0.7, 9: 0.7}
    assert _shares("gun:await_body", table) == {1: 1.0, 2: 0.7, 3: 0.7, 9: 0.5}


def test_a_wrapper_loses_to_the_definition_it_delegates_to():
    status = _row(1, "lib/HTTP/Status.pm", "sub is_success ($) { $_[0] && $_[0] >= 200 && $_[0] < 300; }\n")
    response = _row(2, "lib/HTTP/Response.pm", "sub is_success  { HTTP::Status::is_success  (shift->{'_rc'}); }\n")
    assert _shares("is_success", {status: "HTTP.Status.is_success", response: "HTTP.Response.is_success"}) == {1: 1.0, 2: 0.7}


PROJECT = {
    "Makefile.PL": "use ExtUtils::MakeMaker;\nWriteMakefile(NAME => 'HTTP::Message');\n",
    "lib/HTTP/Message.pm": (
        "package HTTP::Message;\n\nuse strict;\n\n"
        "sub new\n{\n    my($class, $header, $content) = @_;\n    bless { _headers => $header, _content => $content }, $class;\n}\n\n"
        "sub dump\n{\n    my($self, %opt) = @_;\n    my $content = $self->content;\n"
        "    my $chop = $opt{maxlength} || 512;\n    return $self->headers_as_string . \"\\n\" . substr($content, 0, $chop);\n}\n"
    ),
    "lib/HTTP/Request.pm": (
        "package HTTP::Request;\n\nuse strict;\nuse parent 'HTTP::Message';\n\n"
        "sub method { shift->_elem('_method', @_); }\n\n"
        "sub dump\n{\n    my $self = shift;\n    my @pre = ($self->method || \"-\", $self->uri || \"-\");\n"
        "    return $self->SUPER::dump(preheader => join(\" \", @pre), @_);\n}\n"
    ),
    "lib/HTTP/Response.pm": (
        "package HTTP::Response;\n\nuse strict;\nuse parent 'HTTP::Message';\n\n"
        "sub code { shift->_elem('_rc', @_); }\n\n"
        "sub dump\n{\n    my $self = shift;\n    my $status_line = $self->code . \" \" . ($self->message || '');\n"
        "    return $self->SUPER::dump(preheader => $status_line, @_);\n}\n"
    ),
}


@pytest.fixture(scope="module")
def perl_project(tmp_path_factory, paqad_home):
    root = tmp_path_factory.mktemp("canonical") / "http-message"
    write_files(root, PROJECT)
    paths = ProjectPaths(root)
    settings = load_settings(paths, environ={})
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PAQAD_HOME", str(paqad_home))
        mp.setenv("PAQAD_MODEL_MIRROR", str(MODEL_MIRROR))
        embedder = get_embedder(settings, paths)
        sync_index(paths, settings, embedder)
    return paths, settings, embedder


@pytest.mark.parametrize(("query", "first"), [("dump", "lib/HTTP/Message.pm"),
                                              ("HTTP::Response::dump", "lib/HTTP/Response.pm")])
def test_search_ranks_the_base_definition_first(perl_project, query, first):
    paths, settings, embedder = perl_project
    top = search(paths, settings, query, embedder=embedder).results[0]
    assert (top.path, top.text.count("sub dump")) == (first, 1)
