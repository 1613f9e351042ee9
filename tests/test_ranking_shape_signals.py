"""The issue-24 round-4 signals on hand-made chunk rows: re-export and prototype recognition, the
query's shape (``Foo.bar``, ``Type member``, macro or function), platform variants, version
copies and issue-style prompts. The end-to-end cases on real indexes are in
tests/test_ranking_across_packages.py."""

from __future__ import annotations

from paqad.search import RankingOptions
from paqad.search.analysis import analyze
from paqad.search.signals import RankingContext, name_shape
from paqad.search.signals import issue_prompts, platform_variants, version_copies
from paqad.search.signals.error_literals import apply as error_literals_apply
from paqad.search.signals.header_declarations import declares
from paqad.search.signals.platform_variants import platform_words
from paqad.search.signals.reexports import reexported_names
from paqad.search.symbols import DefinitionMatch
from paqad.store import ChunkRow


def _row(cid: int, path: str, text: str, symbol: str | None = None, kind: str = "block") -> ChunkRow:
    return ChunkRow(path=path, start_line=1, end_line=10, language="c", symbol=symbol, kind=kind, signature=None,
                    text=text, id=cid)


def _context(query: str, rows: dict[int, ChunkRow], options: RankingOptions = RankingOptions(),
             table: tuple[int, ...] = ()) -> RankingContext:
    """A query's context over ``rows``; ``table``: chunk ids the symbol table says define its name."""
    info = analyze(query)
    definitions = tuple(DefinitionMatch(cid, info.identifiers[0], True) for cid in table)
    return RankingContext(info=info, options=options, rows=rows, best=1.0, definitions=definitions,
                          named_paths=frozenset(), exempt=frozenset())


def test_re_exports_are_read_per_language_with_the_module_they_come_from():
    assert reexported_names("crates/app/src/lib.rs", "pub use wire_core::Codec;\npub use crate::buf::{Buf, BufMut};\n") == (
        ("Codec", ("wire_core",)), ("Buf", ("buf",)), ("BufMut", ("buf",)))
    assert reexported_names("src/index.ts", 'export { produce, Immer as Engine } from "./core/immerClass"\n'
                                            'export * from "./plugins/mapset"\n') == (
        ("produce", ("core", "immerclass")), ("Engine", ("core", "immerclass")), ("*", ("plugins", "mapset")))
    assert reexported_names("src/pkg/__init__.py", "from .schema import (\n    Schema,\n    SchemaOpts,\n)\n") == (
        ("Schema", ("schema",)), ("SchemaOpts", ("schema",)))
    assert reexported_names("src/pkg/schema.py", "from .fields import Field\n") == ()  # not a package's __init__


def test_a_prototype_is_a_declaration_and_a_call_or_a_body_is_not():
    assert declares("int buffer_append(buffer *buf, const char *data, size_t len);\n", "buffer_append")
    assert declares("YAML_DECLARE(int)\nyaml_parser_initialize(yaml_parser_t *parser);\n", "yaml_parser_initialize")
    assert declares("  virtual Status Put(const WriteOptions& o,\n      const Slice& key) = 0;\n", "Put")
    assert not declares("    return buffer_append(out, text, len);\n", "buffer_append")
    assert not declares("static int buffer_append(buffer *b) {\n    return 0;\n}\n", "buffer_append")


def test_foo_dot_bar_gives_the_member_inside_foo_a_full_share():
    rows = {1: _row(1, "src/core/immerClass.ts", "class Immer {\n  produce: IProduce = (base) => {\n", "Immer", "class"),
            2: _row(2, "src/immer.ts", "export const produce: IProduce = immer.produce\n")}
    scores = {1: 0.02, 2: 0.03}
    context = _context("Immer.produce", rows)
    assert context.definition_shares == {1: 0.5, 2: 0.5}  # both bare matches of a qualified name
    out = name_shape.qualified_members(scores, context)
    assert out[1] == 0.02 + 5.0 * 0.5 and out[2] == 0.03


def test_a_type_name_then_a_word_asks_for_that_member():
    rows = {1: _row(1, "src/Handler/CurlMultiHandler.php", "class CurlMultiHandler\n{\n", "CurlMultiHandler", "class"),
            2: _row(2, "src/Handler/CurlMultiHandler.php", "    public function tick(): void\n", "CurlMultiHandler.tick",
                    "method")}
    out = name_shape.type_members({1: 0.05, 2: 0.04}, _context("CurlMultiHandler tick", rows))
    # the member gains a full share; the type's chunk loses the half share it had for the type's
    # name (here all of its made-up score: never below 0)
    assert out == {1: 0.0, 2: 0.04 + 5.0}
    assert name_shape.type_members({1: 0.05, 2: 0.04}, _context("CurlMultiHandler ticks often", rows)) == {1: 0.05, 2: 0.04}


def test_a_name_shared_by_a_macro_and_a_function_ranks_the_function_unless_macro_is_asked():
    rows = {1: _row(1, "include/sds.h", "#define sds_len(s) ((s)->len)\n"),
            2: _row(2, "src/sds.c", "size_t sds_len(const sds s) {\n    return s->len;\n}\n", "sds_len", "function")}
    scores = {1: 1.0, 2: 1.0}
    assert name_shape.macro_or_function(scores, _context("sds_len", rows, table=(2,))) == {1: 0.5, 2: 1.0}
    # round 8 (asked_macros): a query saying "macro" puts the function below the macro
    asked = RankingOptions(asked_macros=True)  # measured, left off
    assert name_shape.macro_or_function(scores, _context("the sds_len macro", rows, asked, table=(2,))) == {1: 1.0, 2: 0.5}
    assert name_shape.macro_or_function(scores, _context("the sds_len macro", rows, table=(2,))) == scores


def test_platform_variants_by_folder_and_file_name_and_the_query_naming_one():
    assert platform_words("util/env_posix.cc") == {"unix"} and platform_words("src/win/core.c") == {"windows"}
    assert platform_words("ae_kqueue.c") == {"kqueue"} and platform_words("port/port_stdcxx.h") == frozenset()
    assert platform_words("util/env.cc") is None and platform_words("src/main/java/org/jsoup/select/Selector.java") is None
    rows = {1: _row(1, "src/loop.c", "x"), 2: _row(2, "src/unix/loop.c", "x"), 3: _row(3, "src/win/loop.c", "x")}
    on = RankingOptions(platform_prior=0.5)
    scores = {1: 1.0, 2: 1.0, 3: 1.0}
    assert platform_variants.platform_variants(scores, _context("how does the event loop poll", rows, on)) == {
        1: 1.0, 2: 0.5, 3: 0.5}
    assert platform_variants.platform_variants(scores, _context("the event loop on windows", rows, on)) == {
        1: 1.0, 2: 0.5, 3: 1.0}
    assert platform_variants.platform_variants(scores, _context("which platforms does it support", rows, on)) == scores


def test_an_older_version_folder_is_below_a_newer_one_unless_named():
    rows = {1: _row(1, "packages/zod/src/v3/types.ts", "x"), 2: _row(2, "packages/zod/src/v4/core/schemas.ts", "x")}
    scores = {1: 1.0, 2: 1.0}
    assert version_copies.apply(scores, _context("how are string schemas checked", rows)) == {1: 0.3, 2: 1.0}
    assert version_copies.apply(scores, _context("string schemas in v3", rows)) == scores
    # with release_copies (on) dotted releases, with or without the v, share one parent folder
    rows = {1: _row(1, "docs/manual/v1.7/manual.yml", "x"), 2: _row(2, "docs/manual/1.8/manual.yml", "x"),
            3: _row(3, "docs/manual/v1/manual.yml", "x"), 4: _row(4, "docs/2/manual.yml", "x")}
    scores = {1: 1.0, 2: 1.0, 3: 1.0, 4: 1.0}
    assert version_copies.apply(scores, _context("how are filters run", rows)) == {1: 0.3, 2: 1.0, 3: 0.3, 4: 1.0}
    assert version_copies.apply(scores, _context("how are filters run in 1.7", rows)) == {1: 1.0, 2: 1.0, 3: 0.3, 4: 1.0}
    off = RankingOptions(release_copies=False)
    assert version_copies.apply(scores, _context("how are filters run", rows, off)) == scores


REPORT = """After upgrading, parsing a nested schema fails. I tested it with the minimal script below
and the same test passes on the previous release.

    Traceback (most recent call last):
      File "app.py", line 3, in <module>
        load(data)
    ValueError: bad nested field

Environment: Python 3.12, Linux. Any idea what changed?
"""


def test_a_pasted_report_puts_templates_and_tests_below_the_code():
    rows = {1: _row(1, "src/pkg/schema.py", "x"), 2: _row(2, ".github/ISSUE_TEMPLATE/bug_report.md", "x"),
            3: _row(3, "tests/test_schema.py", "x"), 4: _row(4, "docs/conf.py", "x")}
    scores = {1: 1.0, 2: 1.0, 3: 1.0, 4: 1.0}
    assert analyze(REPORT).long and analyze(REPORT).mentions_tests
    assert issue_prompts.apply(scores, _context(REPORT, rows)) == {1: 1.0, 2: 0.3, 3: 0.1, 4: 0.3}
    named = REPORT + "\nIt fails in tests/test_schema.py too.\n"
    assert issue_prompts.apply(scores, _context(named, rows))[3] == 1.0
    assert issue_prompts.apply(scores, _context("where are nested schemas tested?", rows)) == scores  # not long


def test_the_literal_words_of_a_quoted_error_line_and_the_chunk_holding_them():
    from paqad.search.signals.error_literals import error_literals

    report = REPORT + "\n    Error: Unexpected server response: 502\n"
    assert error_literals(report) == ("Unexpected server response", "bad nested field")  # "502": a value
    rows = {1: _row(1, "lib/websocket.js", "abortHandshake(this, req, `Unexpected server response: ${res.statusCode}`)"),
            2: _row(2, "lib/websocket-server.js", "x")}
    out = error_literals_apply({1: 1.0, 2: 1.0}, _context(report, rows, RankingOptions(error_literal_boost=3.0)))
    assert out == {1: 3.0, 2: 1.0}
