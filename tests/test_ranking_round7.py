"""Issue 24, round 7: the rules of this round, on hand-made rows with the exact factors they leave
(signals.namespace_symbols, signals.common_path_words, signals.docs_code, signals.crate_roots), and
``docs_code`` on a real index of a tiny C project with the real model (the docs build script first
with the rule off, the C file that implements the behaviour first with it on)."""

from __future__ import annotations

import pytest

from paqad.search import RankingOptions, ablations
from paqad.search.analysis import analyze
from paqad.search.signals import RankingContext, path_words, symbol_words
from paqad.search.signals.common_path_words import common_words
from paqad.search.signals.namespace_symbols import namespace_names, namespace_pattern
from paqad.store import ChunkRow

HEADER = "include/leveldb/db.h"
HEADER_TEXT = "namespace leveldb {\n\n// A DB is a persistent ordered map from keys to values.\nclass DB {\n public:\n"


def _row(cid: int, path: str, language: str, symbol: str | None, text: str) -> ChunkRow:
    return ChunkRow(path=path, start_line=cid * 20, end_line=cid * 20 + 19, language=language, symbol=symbol,
                    kind="function", signature=None, text=text, id=cid)


# leveldb as the index holds it: a `.h` cut with the C grammar names its namespace's pieces `leveldb`
ROWS = {
    1: _row(1, HEADER, "c", "leveldb", HEADER_TEXT),
    2: _row(2, HEADER, "c", "leveldb", "  virtual Status Recover() = 0;\n"),
    3: _row(3, "db/db_impl.cc", "cpp", "DBImpl.Recover", "Status DBImpl::Recover(VersionEdit* edit) {\n"),
    4: _row(4, "db/c.cc", "cpp", "leveldb_open", "leveldb_t* leveldb_open(const leveldb_options_t* options) {\n"),
}


def _context(query: str, options: RankingOptions, rows=ROWS, file_chunks=None) -> RankingContext:
    return RankingContext(info=analyze(query), options=options, rows=rows, best=1.0, definitions=(),
                          named_paths=frozenset(), exempt=frozenset(),
                          file_text=lambda path: HEADER_TEXT if path == HEADER else "",
                          file_chunks=file_chunks or {})


def test_a_namespace_is_found_in_a_candidate_or_its_file_and_only_in_c_family_chunks():
    assert namespace_pattern("leveldb").search("namespace leveldb {")
    assert namespace_pattern("re2").search("inline namespace re2\n{")
    assert not namespace_pattern("leveldb").search("namespace leveldb_internal {")
    context = _context("how does leveldb recover the database after a crash", RankingOptions(namespace_symbols=True))
    assert namespace_names(context, [1, 2, 3, 4]) == frozenset({"leveldb"})
    # row 2 alone holds no `namespace` line: its file's text does
    assert namespace_names(context, [2]) == frozenset({"leveldb"})
    python = {5: _row(5, "leveldb.py", "python", "leveldb", "namespace leveldb {\n")}
    assert namespace_names(_context("leveldb", RankingOptions(), rows=python), [5]) == frozenset()


def test_symbol_words_give_a_namespace_no_share_with_the_rule_on():
    query = "how does leveldb recover the database after a crash"  # 5 words
    scores = {cid: 1.0 for cid in ROWS}
    before = symbol_words.apply(scores, _context(query, RankingOptions()))
    assert before == pytest.approx({1: 1.1, 2: 1.1, 3: 1.1, 4: 1.1})  # 1 + 0.5 x 1/5 each
    after = symbol_words.apply(scores, _context(query, RankingOptions(namespace_symbols=True)))
    assert after == pytest.approx({1: 1.0, 2: 1.0, 3: 1.1, 4: 1.1})
    assert ablations()["with-namespace-symbols"].namespace_symbols
    off = RankingOptions(namespace_symbols=True, off=frozenset({"namespace_symbols"}))
    assert symbol_words.apply(scores, _context(query, off)) == pytest.approx(before)


# ten files, four in include/leveldb/: `leveldb` names 40 % of them
FILES = {HEADER: 5, "include/leveldb/write_batch.h": 4, "include/leveldb/env.h": 6, "include/leveldb/table.h": 3,
         "db/write_batch.cc": 9, "db/db_impl.cc": 80, "db/version_set.cc": 50, "util/env_posix.cc": 30,
         "table/table.cc": 20, "util/coding.cc": 10}
BATCH = {10: _row(10, "include/leveldb/write_batch.h", "c", None, "class WriteBatch {\n"),
         11: _row(11, "db/write_batch.cc", "cpp", None, "void WriteBatch::Put(const Slice& key) {\n")}


def test_a_word_naming_many_files_gives_no_path_word_share_above_the_threshold():
    words = analyze("how does leveldb apply a write batch").words  # leveldb, apply, write, batch
    assert common_words(words, FILES, 0.3) == frozenset({"leveldb"})
    assert common_words(words, FILES, 0.5) == frozenset()
    assert common_words(words, {}, 0.3) == frozenset()
    query = "how does leveldb apply a write batch"
    scores = {10: 1.0, 11: 1.0}
    default = path_words.apply(scores, _context(query, RankingOptions(), rows=BATCH, file_chunks=FILES))
    assert default == pytest.approx({10: 1.75, 11: 1.5})  # 3 of 4 words name the header, 2 the .cc
    rule = RankingOptions(common_path_share=0.3)
    assert path_words.apply(scores, _context(query, rule, rows=BATCH, file_chunks=FILES)) == pytest.approx(
        {10: 1.5, 11: 1.5})
    assert ablations()["with-common-path-words"].common_path_share == 0.1


def _prior_context(query: str, options: RankingOptions, rows, main=frozenset()) -> RankingContext:
    return RankingContext(info=analyze(query), options=options, rows=rows, best=1.0, definitions=(),
                          named_paths=frozenset(), exempt=frozenset(), main_languages=main)


def test_main_languages_are_a_quarter_or_more_of_the_code_files():
    from paqad.search.signals.docs_code import main_languages

    jq = ["src/execute.c", "src/jv.c", "src/jv.h", "src/main.c", "docs/build_website.py", "docs/manual.yml",
          "README.md", "src/parser.y"]
    assert main_languages(jq) == frozenset({"c"})  # 4 of 6 code files; python and yacc 1 each
    assert main_languages(["README.md", "docs/a.yml"]) == frozenset()
    assert main_languages(["a.ts", "b.ts", "website/c.js"]) == frozenset({"typescript", "javascript"})


def test_docs_code_is_prose_only_in_the_roots_docs_folder_and_another_language():
    from paqad.search.signals import path_priors
    from paqad.search.signals.docs_code import is_docs_code

    c = frozenset({"c"})
    assert is_docs_code("docs/build_website.py", "python", c)
    assert is_docs_code("website/gatsby-node.js", "javascript", frozenset({"typescript"}))
    assert not is_docs_code("book/code/flags.cpp", "cpp", frozenset({"cpp"}))  # the project's own language
    assert not is_docs_code("docs/conf.py", "python", frozenset({"python"}))
    assert not is_docs_code("crates/core/flags/doc/man.rs", "python", frozenset({"rust"}))  # not the root's
    assert not is_docs_code("docs/manual.yml", "yaml", c)  # data: docs_data's
    assert not is_docs_code("docs/build_website.py", "python", frozenset())  # unknown languages
    rows = {1: _row(1, "docs/build_website.py", "python", None, "def load_yml_file(fn):\n"),
            2: _row(2, "src/execute.c", "c", None, "case FORK_OPT:\n")}
    scores = {1: 1.0, 2: 1.0}
    query = "how does try catch stop an error raised inside the body"
    assert path_priors.apply(scores, _prior_context(query, RankingOptions(docs_code=False), rows, c)) == {1: 1.0, 2: 1.0}
    assert path_priors.apply(scores, _prior_context(query, RankingOptions(docs_code=True), rows, c)) == {1: 0.5, 2: 1.0}
    # a question about the docs waives the prose prior
    docs = "how is the documentation website built"
    assert path_priors.apply(scores, _prior_context(docs, RankingOptions(docs_code=True), rows, c)) == {1: 1.0, 2: 1.0}


def test_a_crate_root_that_only_declares_and_reexports_is_a_barrel():
    from paqad.search.signals import path_priors
    from paqad.search.signals.crate_roots import is_crate_root_barrel

    facade = "pub extern crate grep_cli as cli;\npub extern crate grep_matcher as matcher;\n"
    roots = "//! Provides abstractions for working with bytes.\n\npub mod buf;\npub use crate::buf::{Buf, BufMut};\nmod bytes;\n"
    code = "fn abort() -> ! {\n    panic!(\"abort\");\n}\n"
    assert is_crate_root_barrel("crates/grep/src/lib.rs", "rust", facade)
    assert is_crate_root_barrel("src/lib.rs", "rust", roots)
    assert not is_crate_root_barrel("src/lib.rs", "rust", code)
    assert not is_crate_root_barrel("src/bytes.rs", "rust", roots)
    rows = {1: _row(1, "src/lib.rs", "rust", None, roots), 2: _row(2, "src/lib.rs", "rust", "abort", code)}
    scores = {1: 1.0, 2: 1.0}
    query = "how does Buf read integers in big endian"
    assert path_priors.apply(scores, _prior_context(query, RankingOptions(), rows)) == {1: 1.0, 2: 1.0}
    assert path_priors.apply(scores, _prior_context(query, RankingOptions(crate_roots=True), rows)) == {1: 0.5, 2: 1.0}
    crate = "how is the crate organised"  # a question about a crate waives the barrel prior
    assert path_priors.apply(scores, _prior_context(crate, RankingOptions(crate_roots=True), rows)) == {1: 1.0, 2: 1.0}


# A C interpreter whose docs folder holds the Python script that builds the manual's pages: the
# script repeats the words of the manual's section on try/catch, the C file implements it.
EXECUTE_C = """#include "execute.h"

/* Run the bytecode of a program. */
jv execute_next(struct state *s) {
  for (;;) {
    switch (*s->pc++) {
    case TRY_BEGIN:
      push_handler(s, s->pc + *s->pc);
      break;
    case ERRORK:
      if (has_handler(s)) {
        jv message = pop_error(s);
        s->pc = pop_handler(s);      /* to the catch */
        push(s, message);
        break;
      }
      return raise_error(s);
    }
  }
}
"""

COMPILE_C = """#include "compile.h"

/* Compile the parsed program into bytecode blocks. */
block gen_const(jv value) {
  return inst_block(LOADK, value);
}

block gen_call(const char *name, block args) {
  return block_join(args, inst_named(CALL_JQ, name));
}
"""

BUILD_MANUAL_PY = '''"""Build the manual's HTML pages from docs/content/manual.yml."""
import yaml


def render_section(section):
    """One section of the manual, e.g. try/catch: how try catch stops an error raised inside the
    body and hands its message to the handler, with the section's examples."""
    title = section["title"]
    body = section.get("body", "")
    examples = "".join(f"<pre>{e['program']}</pre>" for e in section.get("examples", []))
    return f"<h2>{title}</h2>{body}{examples}"


def build(path="docs/content/manual.yml"):
    with open(path) as f:
        manual = yaml.safe_load(f)
    return "".join(render_section(s) for s in manual["sections"])
'''

# five C files and one Python script: C is the project's language (a quarter or more), Python is not
INTERPRETER = {"src/execute.c": EXECUTE_C, "src/compile.c": COMPILE_C,
               "src/main.c": "#include \"execute.h\"\nint main(int argc, char **argv) { return run(argc, argv); }\n",
               "src/jv.c": "#include \"jv.h\"\n\njv jv_number(double x) {\n  jv j = {JV_KIND_NUMBER, x};\n  return j;\n}\n",
               "src/jv_print.c": "#include \"jv.h\"\n\nvoid jv_dump(jv x, int flags) {\n  fputs(jv_string_value(jv_dump_string(x, flags)), stdout);\n}\n",
               "docs/build_manual.py": BUILD_MANUAL_PY}


@pytest.fixture(scope="module")
def interpreter(tmp_path_factory, paqad_home):
    from conftest import build_index

    return build_index(tmp_path_factory.mktemp("round7") / "interpreter", INTERPRETER, paqad_home)


@pytest.mark.model
def test_the_docs_build_script_ranks_below_the_c_code_it_documents(interpreter):
    from conftest import ranked_files

    query = "how does try catch stop an error raised inside the body and hand its message to the handler?"
    with_rule = ranked_files(interpreter, query)
    without = ranked_files(interpreter, query, RankingOptions(docs_code=False))
    assert without.index("docs/build_manual.py") < without.index("src/execute.c")
    assert with_rule.index("src/execute.c") < with_rule.index("docs/build_manual.py")
