"""C/C++ chunks and symbols, round 11 (chunker 8): scope macros alone on a line, the Windows
branch of an `#if`/`#else` blanked before the other, function heads of a blanked branch named,
and the incremental re-parse. Each expected value was checked against chunker 7 (main before this
change), whose output is quoted in each test."""

from __future__ import annotations

from paqad.index.chunking import chunk_file
from paqad.index.chunking.code import _parse
from paqad.index.chunking.cpp_branches import blanked_spans, blank_spans, conditionals, windows_first_body
from paqad.index.chunking.cpp_macros import blank_macros

# nlohmann/json's shape (include/nlohmann/adl_serializer.hpp, detail/exceptions.hpp): the
# namespace is opened and closed by macros alone on their line.
JSON_LIKE = """\
#pragma once

#include <nlohmann/detail/abi_macros.hpp>

NLOHMANN_JSON_NAMESPACE_BEGIN

/// @sa https://json.nlohmann.me/api/adl_serializer/
template<typename ValueType, typename>
struct adl_serializer
{
    template<typename BasicJsonType, typename TargetType = ValueType>
    static auto from_json(BasicJsonType && j, TargetType& val) noexcept(
        noexcept(::nlohmann::from_json(std::forward<BasicJsonType>(j), val)))
    -> decltype(::nlohmann::from_json(std::forward<BasicJsonType>(j), val), void())
    {
        ::nlohmann::from_json(std::forward<BasicJsonType>(j), val);
    }

    template<typename BasicJsonType, typename TargetType = ValueType>
    static auto to_json(BasicJsonType& j, TargetType && val) noexcept(
        noexcept(::nlohmann::to_json(j, std::forward<TargetType>(val))))
    -> decltype(::nlohmann::to_json(j, std::forward<TargetType>(val)), void())
    {
        ::nlohmann::to_json(j, std::forward<TargetType>(val));
    }
};

NLOHMANN_JSON_NAMESPACE_END

NLOHMANN_JSON_NAMESPACE_BEGIN
namespace detail
{

/// @brief general exception of the @ref basic_json class
class exception : public std::exception
{
  public:
    /// returns the explanatory string
    const char* what() const noexcept override
    {
        return m.what();
    }

    /// the id of the exception
    const int id;

  private:
    std::runtime_error m;
};

inline std::size_t concat_length()
{
    return 0;
}

}  // namespace detail
NLOHMANN_JSON_NAMESPACE_END
"""

# jq's src/main.c shape: the WIN32 branch opens `umain`, the other `main`, one body after both.
MAIN_LIKE = """\
#include <stdio.h>
#include "jq.h"

static int parse_flags(int argc, char *argv[]);

#ifdef WIN32
int umain(int argc, char* argv[]);

int wmain(int argc, wchar_t* wargv[]) {
  char **argv = to_utf8(argc, wargv);
  return umain(argc, argv);
}

int umain(int argc, char* argv[]) {
#else /*}*/
int main(int argc, char* argv[]) {
#endif
  int ret = JQ_OK_NO_OUTPUT;
  int flags = parse_flags(argc, argv);
  if (flags < 0) {
    ret = JQ_ERROR_SYSTEM;
    goto out;
  }
  ret = jq_run(flags);
out:
  return ret;
}

static int parse_flags(int argc, char *argv[]) {
  return argc > 1 ? 1 : 0;
}
"""

# Each branch opens a variant of the same function (a feature test, not a platform).
READ_LIKE = """\
#include <unistd.h>

#ifdef HAVE_PREAD
static long read_block(int fd, char *buf, long size, long offset) {
  long n = pread(fd, buf, size, offset);
#else
static long read_block_seek(int fd, char *buf, long size, long offset) {
  long n;
  lseek(fd, offset, SEEK_SET);
  n = read(fd, buf, size);
#endif
  if (n < 0)
    return -1;
  return n;
}

long read_all(int fd, char *buf, long size) {
  return read_block(fd, buf, size, 0);
}
"""


def _cut(path: str, text: str, max_chars: int = 800):
    return [(c.start_line, c.end_line, c.kind, c.symbol, c.definitions) for c in chunk_file(path, text, max_chars=max_chars)]


def test_namespace_macros_alone_on_a_line_do_not_name_chunks() -> None:
    # chunker 7: (1, 17) `from_json`, (19, 26) `to_json` (no struct scope), (28, 57) one function
    # named `NLOHMANN_JSON_NAMESPACE_BEGIN` holding the exception class and concat_length
    assert _cut("include/nlohmann/detail/exceptions.hpp", JSON_LIKE) == [
        (1, 17, "method", "adl_serializer.from_json", ("adl_serializer", "adl_serializer.from_json")),
        (19, 30, "method", "adl_serializer.to_json", ("adl_serializer.to_json",)),
        (31, 49, "class", "exception", ("exception", "exception.what")),
        (51, 57, "function", "concat_length", ("concat_length",)),
    ]


def test_only_scope_macros_alone_at_column_zero_are_blanked() -> None:
    source = (
        b"FMT_BEGIN_NAMESPACE\nG_BEGIN_DECLS  /* C linkage */\n__BEGIN_DECLS\n"
        b"enum state {\n    YAML_PARSE_END_STATE\n};\nDEFAULT_BUFFER_SIZE\nYY_IGNORE_MAYBE_UNINITIALIZED_END\n"
    )
    assert blank_macros(source).splitlines() == [
        b" " * 19, b" " * 13 + b"  /* C linkage */", b" " * 13,
        b"enum state {", b"    YAML_PARSE_END_STATE", b"};",  # indented: an enum value, kept
        b"DEFAULT_BUFFER_SIZE",  # no BEGIN/END/NAMESPACE/DECLS word
        b" " * 33,
    ]


def test_the_core_branch_is_parsed_when_the_if_branch_is_windows() -> None:
    # chunker 7: (14, 27) `umain` (the `#else` line `int main(...) {` was blanked)
    assert _cut("src/main.c", MAIN_LIKE) == [
        (1, 7, "module", None, ()),
        (9, 12, "function", "wmain", ("wmain",)),
        (14, 27, "function", "main", ("main",)),
        (29, 31, "function", "parse_flags", ("parse_flags",)),
    ]


def test_windows_first_body_only_for_a_windows_test_with_one_else() -> None:
    def body(text: bytes) -> bytes | None:
        span = windows_first_body(text, conditionals(text)[0])
        return None if span is None else text[span[0] : span[1]]

    assert body(b"#ifdef _WIN32\nint a;\n#else\nint b;\n#endif\n") == b"int a;\n"
    assert body(b"#if defined(_WIN32) || defined( __CYGWIN__ ) /* both */\nint a;\n#else\nint b;\n#endif\n") == b"int a;\n"
    assert body(b"#if defined(_WIN32) && HAVE_X\nint a;\n#else\nint b;\n#endif\n") is None
    assert body(b"#ifndef _WIN32\nint a;\n#else\nint b;\n#endif\n") is None
    assert body(b"#ifdef _WIN32\nint a;\n#elif defined(__APPLE__)\nint c;\n#else\nint b;\n#endif\n") is None
    assert body(b"#ifdef HAVE_PREAD\nint a;\n#else\nint b;\n#endif\n") is None


def test_a_blanked_branch_names_its_function_head() -> None:
    # chunker 7: (1, 15) defined only `read_block`; `read_block_seek` had no symbol
    assert _cut("src/read.c", READ_LIKE) == [
        (1, 15, "function", "read_block", ("read_block", "read_block_seek")),
        (17, 19, "function", "read_all", ("read_all",)),
    ]


def test_the_incremental_reparse_equals_a_fresh_parse() -> None:
    data = READ_LIKE.encode()
    tree = _parse("c", data)
    spans, bodies = blanked_spans(data, conditionals(data))
    assert [data[a:b].decode() for a, b in bodies] == [
        "static long read_block_seek(int fd, char *buf, long size, long offset) {\n  long n;\n"
        "  lseek(fd, offset, SEEK_SET);\n  n = read(fd, buf, size);\n"]
    blanked = blank_spans(data, spans)
    edited = tree.copy()
    for start, end in spans:
        rows = data.count(b"\n", 0, start), data.count(b"\n", 0, end)
        points = (rows[0], start - (data.rfind(b"\n", 0, start) + 1)), (rows[1], end - (data.rfind(b"\n", 0, end) + 1))
        edited.edit(start, end, end, points[0], points[1], points[1])
    assert str(_parse("c", blanked, old_tree=edited).root_node) == str(_parse("c", blanked).root_node)
    assert not _parse("c", blanked).root_node.has_error

