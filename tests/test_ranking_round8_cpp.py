"""Issue 24, round 8: C and C++ structure. The rules of this round on hand-made rows with the
exact factors they leave (signals.c_tests, signals.c_header_pairs, ``c_signatures`` on export
macros), and all three on a real index of a tiny C library with the real model: a public
header, its implementation with an export macro between the return type and the name, and a
googletest file."""

from __future__ import annotations

from dataclasses import replace

import pytest

from paqad.search import RankingOptions, ablations
from paqad.search.ablations import ROUND_10_OFF, ROUND_11_OFF, ROUND_8_OFF, ROUND_9_OFF
from paqad.search.analysis import analyze
from paqad.search.signals import RankingContext, c_header_pairs, in_force, path_priors
from paqad.search.signals.c_tests import c_test_kinds
from paqad.search.symbols import defines_signature_in_text
from paqad.store import ChunkRow


def _row(cid: int, path: str, language: str, text: str, kind: str = "module") -> ChunkRow:
    return ChunkRow(path=path, start_line=cid * 20, end_line=cid * 20 + 19, language=language, symbol=None,
                    kind=kind, signature=None, text=text, id=cid)


def _context(query: str, options: RankingOptions, rows) -> RankingContext:
    return RankingContext(info=analyze(query), options=options, rows=rows, best=1.0, definitions=(),
                          named_paths=frozenset(), exempt=frozenset())


def test_c_test_files_is_on_by_default_and_round_7_default_has_it_off():
    assert RankingOptions().c_test_files
    assert not ablations()["round-7-default"].c_test_files
    assert not ablations()["no-c-test-files"].c_test_files


def test_c_test_and_benchmark_sources_by_stem_or_googletest_macro():
    assert c_test_kinds("snappy_unittest.cc", "cpp", "int x;") == frozenset({"tests"})
    assert c_test_kinds("src/crc32c_extend_unittests.h", "c", "") == frozenset({"tests"})
    assert c_test_kinds("snappy-test.cc", "cpp", "") == frozenset({"tests"})
    assert c_test_kinds("snappy_benchmark.cc", "cpp", "") == frozenset({"examples"})
    assert c_test_kinds("snappy_compress_fuzzer.cc", "cpp", "") == frozenset({"examples"})
    # a googletest body in a file whose name says nothing
    assert c_test_kinds("src/checks.cc", "cpp", "TEST(Crc32CTest, Crc32c) {\n  EXPECT_EQ(1, 1);\n}\n") == frozenset({"tests"})
    assert c_test_kinds("src/crc32c.cc", "cpp", "uint32_t Extend(uint32_t crc) {\n") == frozenset()
    assert c_test_kinds("latest.c", "c", "") == frozenset()  # "test" inside a word is no suffix
    assert c_test_kinds("snappy_unittest.py", "python", "TEST(a, b)") == frozenset()  # C and C++ only


UNITTEST = "TEST(Snappy, FindMatchLength) {\n  EXPECT_EQ(6, TestFindMatchLength(\"012345\", \"012345\", 6));\n}\n"
ROWS = {1: _row(1, "snappy.cc", "cpp", "char* CompressFragment(const char* input, size_t input_size) {\n"),
        2: _row(2, "snappy_unittest.cc", "cpp", UNITTEST),
        3: _row(3, "snappy_benchmark.cc", "cpp", "void BM_Flat(benchmark::State& state) {\n")}


def test_path_priors_discount_c_tests_and_benchmarks_with_the_rule_on_unless_tests_are_asked():
    query = "how is the length of a match found?"
    scores = {1: 1.0, 2: 1.0, 3: 1.0}
    off = RankingOptions(c_test_files=False)
    assert path_priors.apply(scores, _context(query, off, ROWS)) == pytest.approx({1: 1.0, 2: 1.0, 3: 1.0})
    on = RankingOptions()  # c_test_files is on by default
    assert path_priors.apply(scores, _context(query, on, ROWS)) == pytest.approx({1: 1.0, 2: 0.1, 3: 0.3})
    asked = path_priors.apply(scores, _context("which test checks the length of a match?", on, ROWS))
    assert asked == pytest.approx({1: 1.0, 2: 1.0, 3: 0.3})


DEFLATE_H = ("/* deflate_state: the state of one compression stream, the window, the hash chains\n"
             "   and the pending output buffer flushed to next_out. */\n"
             "typedef struct internal_state {\n    z_streamp strm;\n    Bytef *pending_buf;\n} deflate_state;\n"
             "void ZLIB_INTERNAL _tr_flush_block(deflate_state *s, charf *buf, ulg stored_len, int last);\n")
INLINE_H = "static inline void put_byte(deflate_state *s, Bytef c)\n{\n    s->pending_buf[s->pending++] = c;\n}\n"
PAIRS = {1: _row(1, "deflate.h", "c", DEFLATE_H),
         2: _row(2, "deflate.c", "c", "local void flush_pending(z_streamp strm) {\n    unsigned len;\n"),
         3: _row(3, "deflate.h", "c", INLINE_H),
         4: _row(4, "snappy-sinksource.h", "c", "class Sink {\n public:\n  virtual void Append(const char* b, size_t n) = 0;\n"),
         5: _row(5, "snappy-sinksource.cc", "cpp", "void Sink::AppendAndTakeOwnership(char* bytes, size_t n) {\n")}


def test_a_c_header_without_a_body_beside_its_candidate_c_file_is_discounted_for_questions():
    query = "how is the pending output flushed to the stream?"
    scores = {cid: 1.0 for cid in PAIRS}
    out = c_header_pairs.apply(scores, _context(query, RankingOptions(c_header_pair_prior=0.7), PAIRS))
    # the header's declarations x 0.7; its inline helper (a body) and the C++ pair are left alone
    assert out == pytest.approx({1: 0.7, 2: 1.0, 3: 1.0, 4: 1.0, 5: 1.0})
    # no .c candidate: nothing to pair with
    alone = {1: 1.0, 4: 1.0, 5: 1.0}
    assert c_header_pairs.apply(alone, _context(query, RankingOptions(c_header_pair_prior=0.7), PAIRS)) == alone
    # a question asking for the declaration, and a symbol query, keep the header
    for asked in ("where is the deflate state struct declared?", "deflate_state"):
        assert c_header_pairs.apply(scores, _context(asked, RankingOptions(c_header_pair_prior=0.7), PAIRS)) == scores
    # a pasted report (a long prompt) quotes the API it calls: left alone
    report = ("deflate() never returns Z_STREAM_END\n\nWe call deflate(&strm, Z_FINISH) in a loop with a 4 KB\n"
              "output buffer and the pending output is never flushed:\n\n    rc = deflate(&strm, Z_FINISH);\n"
              "    assert(rc == Z_STREAM_END);  // fails, rc == Z_OK, avail_out == 0\n\nzlib 1.3 on Linux.\n")
    assert analyze(report).long
    assert c_header_pairs.apply(scores, _context(report, RankingOptions(c_header_pair_prior=0.7), PAIRS)) == scores


def test_an_export_macro_between_return_type_and_name_or_before_the_type_is_a_definition_head():
    assert defines_signature_in_text("int ZEXPORT inflate(z_streamp strm, int flush) {\n", "inflate")
    assert defines_signature_in_text("void ZLIB_INTERNAL _tr_flush_block(deflate_state *s, charf *buf,\n"
                                     "                                   ulg stored_len, int last) {\n", "_tr_flush_block")
    assert defines_signature_in_text("LEVELDB_EXPORT Status DestroyDB(const std::string& name,\n"
                                     "                                const Options& options) {\n", "DestroyDB")
    assert defines_signature_in_text("LUA_API int lua_gettop (lua_State *L) {\n", "lua_gettop")
    # the header's prototype and a call are not definitions
    assert not defines_signature_in_text("ZEXTERN int ZEXPORT inflate(z_streamp strm, int flush);\n", "inflate")
    assert not defines_signature_in_text("    return inflate(strm, Z_NO_FLUSH);\n", "inflate")


def test_round_8_configs_and_signal_order():
    assert ablations()["round-7-default"] == replace(RankingOptions(), **ROUND_8_OFF, **ROUND_9_OFF, **ROUND_10_OFF,
                                                       **ROUND_11_OFF)
    names = in_force(ablations()["with-c-header-pairs"])
    assert names[names.index("c_header_pairs") + 1] == "interface_pairs"
    assert "c_header_pairs" not in in_force(ablations()["round-7-default"])


# A tiny compression library as C projects ship one: the public header (prototypes under a long
# usage comment that repeats a question's words), the implementation (an export macro between
# the return type and the name, a preprocessor-split body), and a googletest file calling it.
ZP_H = """#ifndef ZPACK_H
#define ZPACK_H

/*
     zp_deflate compresses as much data as possible, and stops when the input buffer becomes
   empty or the output buffer becomes full. If the parameter flush is set to ZP_FINISH, pending
   input is processed, pending output is flushed and zp_deflate returns ZP_STREAM_END when
   there was enough output space. The pending output of the stream is flushed at the end.
*/
ZEXTERN int ZEXPORT zp_deflate(zp_stream *strm, int flush);

/* zp_deflate_end frees the stream's state; pending output is discarded. */
ZEXTERN int ZEXPORT zp_deflate_end(zp_stream *strm);

#endif
"""
ZP_C = """#include "zpack.h"

/* Copy as much pending output as fits into next_out. */
local void flush_pending(zp_stream *strm) {
    unsigned len = strm->state->pending;
    if (len > strm->avail_out) len = strm->avail_out;
    memcpy(strm->next_out, strm->state->pending_out, len);
    strm->next_out += len;
    strm->avail_out -= len;
    strm->state->pending -= len;
}

int ZEXPORT zp_deflate(zp_stream *strm, int flush) {
    zp_state *s = strm->state;
#ifdef ZP_DEBUG
    if (s->status == BUSY_STATE) {
#else
    if (s->status == BUSY_STATE && flush != ZP_NO_FLUSH) {
#endif
        compress_block(s, flush);
    }
    if (flush == ZP_FINISH) {
        flush_pending(strm);
        if (s->pending == 0) return ZP_STREAM_END;
    }
    return ZP_OK;
}

int ZEXPORT zp_deflate_end(zp_stream *strm) {
    free(strm->state);
    return ZP_OK;
}
"""
ZP_TEST = """#include "gtest/gtest.h"
#include "zpack.h"

TEST(Deflate, FinishFlushesPendingOutput) {
  zp_stream strm = MakeStream();
  ASSERT_EQ(ZP_STREAM_END, zp_deflate(&strm, ZP_FINISH));
  EXPECT_EQ(0u, strm.state->pending);  // the pending output was flushed
}

TEST(Deflate, EndFreesTheState) {
  zp_stream strm = MakeStream();
  EXPECT_EQ(ZP_OK, zp_deflate_end(&strm));
}
"""
ZPACK = {"zpack.h": ZP_H, "zpack.c": ZP_C, "zpack_unittest.cc": ZP_TEST}
ROUND_8 = RankingOptions(c_header_pair_prior=0.7, c_signatures=True)  # with-round-8: every rule of the round


@pytest.fixture(scope="module")
def zpack(tmp_path_factory, paqad_home):
    from conftest import build_index

    return build_index(tmp_path_factory.mktemp("round8") / "zpack", ZPACK, paqad_home)


@pytest.mark.model
def test_the_implementation_ranks_above_its_header_and_the_tests_for_a_question(zpack):
    from conftest import ranked_files

    query = "how is the pending output flushed when deflate finishes the stream?"
    # the header pair alone puts the googletest file (its TEST bodies call zp_deflate) above the header
    alone = RankingOptions(c_header_pair_prior=0.7, c_test_files=False)
    assert ranked_files(zpack, query, alone) == ["zpack.c", "zpack_unittest.cc", "zpack.h"]
    # round 8: the implementation, the header next, the tests last
    assert ranked_files(zpack, query, ROUND_8) == ["zpack.c", "zpack.h", "zpack_unittest.cc"]


@pytest.mark.model
def test_the_export_macro_definition_is_first_for_its_bare_name(zpack):
    from conftest import ranked_files

    # `int ZEXPORT zp_deflate(...) {`: without c_signatures the header's prototype wins
    assert ranked_files(zpack, "zp_deflate")[:2] == ["zpack.h", "zpack.c"]
    assert ranked_files(zpack, "zp_deflate", ROUND_8)[:2] == ["zpack.c", "zpack.h"]


