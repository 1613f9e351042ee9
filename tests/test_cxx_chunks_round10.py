"""C/C++ chunks and symbols, round 10 (chunker 7): preprocessor branches, prefix macros, typedef
tags, methods defined in a class body. Every expected value was checked against chunker 6 (main
before this change), whose output is quoted in each test."""

from __future__ import annotations

from paqad.index.chunking import chunk_file
from paqad.index.chunking.cpp_branches import blamed_conditionals, blank_conditionals, conditionals
from paqad.index.chunking.cpp_macros import blank_macros

# Each branch of the `#ifdef` opens the same `if (...) {` (a feature test: with a Windows test the
# first branch is the one blanked, chunker 8, tests/test_cxx_chunks_round11.py): to the grammar the whole function is
# one ERROR stretch (chunker 6: lines 1-18 a `module` chunk, no symbol `stream_open`).
BRACE_SPLIT = """\
#include <fcntl.h>

/* Opens `path` for reading; -1 when it cannot. */
static int stream_open(const char *path, int flags)
{
    int fd = -1;
#ifdef STREAM_WIDE_PATHS
    if (flags & STREAM_WIDE) {
        fd = _wopen((const wchar_t *)path, _O_RDONLY);
#else
    if (flags & STREAM_CLOEXEC) {
        fd = open(path, O_RDONLY | O_CLOEXEC);
#endif
        if (fd < 0)
            return -1;
    }
    return fd;
}

/* Closes what stream_open opened. */
static int stream_close(int fd)
{
    return close(fd);
}

int stream_copy(int from, int to)
{
    char buffer[4096];
    long n;
    while ((n = read(from, buffer, sizeof buffer)) > 0)
        write(to, buffer, n);
    return n < 0 ? -1 : 0;
}
"""

# cli11's style: prefix macros before methods in the class body and before an out-of-class
# definition, a typedef'd struct with a tag. Chunker 6: the out-of-class method was named
# `std.stringApp.help`, the class chunk defined only `App`, the typedef only `option_t`.
CLASS_SOURCE = """\
#include <string>

namespace cli {

typedef struct option_s {
  const char* name;
  int flags;
} option_t;

class App {
 public:
  explicit App(std::string name) : name_(std::move(name)) {}
  CLI11_NODISCARD const std::string& get_name() const { return name_; }
  CLI11_NODISCARD bool empty() const { return name_.empty(); }
  std::string help() const;

 private:
  std::string name_;
};

CLI11_INLINE std::string App::help() const {
  std::string out = "Usage: " + name_;
  if (empty()) {
    out += " (no name)";
  }
  return out;
}

}  // namespace cli
"""


def _cut(path: str, text: str, max_chars: int = 800):
    return [(c.start_line, c.end_line, c.kind, c.symbol, c.definitions) for c in chunk_file(path, text, max_chars=max_chars)]


def test_a_function_whose_ifdef_branches_each_open_a_brace_is_found() -> None:
    assert _cut("src/stream.c", BRACE_SPLIT) == [
        (1, 18, "function", "stream_open", ("stream_open",)),  # the include and comment above join it
        (20, 24, "function", "stream_close", ("stream_close",)),
        (26, 33, "function", "stream_copy", ("stream_copy",)),
    ]


def test_a_split_function_cut_into_parts_keeps_its_symbol_on_every_part() -> None:
    # chunker 6 at this budget: (1, 8) and (9, 16) `module` pieces, then stream_close from line 17
    assert _cut("src/stream.c", BRACE_SPLIT, max_chars=200) == [
        (1, 8, "function", "stream_open", ("stream_open",)),
        (9, 15, "function", "stream_open", ()),
        (16, 18, "function", "stream_open", ()),
        (20, 24, "function", "stream_close", ("stream_close",)),
        (26, 33, "function", "stream_copy", ("stream_copy",)),
    ]


def test_the_blanked_branch_keeps_offsets_and_the_first_branch() -> None:
    data = BRACE_SPLIT.encode()
    groups = conditionals(data)
    assert len(groups) == 1 and len(groups[0].directives) == 3 and len(groups[0].branches) == 1
    blanked = blank_conditionals(data, blamed_conditionals(data, groups, [(data.index(b"static int stream_open"), data.index(b"/* Closes"))]))
    assert len(blanked) == len(data) and blanked.count(b"\n") == data.count(b"\n")
    assert b"STREAM_WIDE" in blanked and b"STREAM_CLOEXEC" not in blanked and b"#" not in blanked[100:400]
    assert [line.strip() for line in blanked.splitlines()[9:13]] == [b""] * 4  # `#else`, its 2 lines, `#endif`
    assert blanked.splitlines()[7] == b"    if (flags & STREAM_WIDE) {"


def test_a_long_else_branch_is_not_blanked() -> None:
    body = "".join(f"int variant_{n}(void) {{ return {n}; }}\n" for n in range(25))
    data = f"#ifdef _WIN32\nint variant(void) {{ return 0; }}\n#else\n{body}#endif\n".encode()
    group = conditionals(data)[0]
    blanked = blank_conditionals(data, [group])
    assert b"variant_24" in blanked and b"#" not in blanked  # directives gone, the 25 lines stay


def test_a_file_that_parses_is_not_reparsed() -> None:
    # both branches define the function: the grammar reads them as two definitions (chunker 6 too)
    text = "#ifdef _WIN32\nint page_size(void) { return 4096; }\n#else\nint page_size(void) { return getpagesize(); }\n#endif\n"
    assert _cut("src/page.c", text) == [(1, 2, "function", "page_size", ("page_size",)),
                                        (3, 5, "function", "page_size", ("page_size",))]


def test_prefix_macros_before_methods_and_an_out_of_class_definition() -> None:
    blanked = blank_macros(CLASS_SOURCE.encode())
    assert b"CLI11" not in blanked and len(blanked) == len(CLASS_SOURCE.encode())
    assert _cut("include/CLI/App.cc", CLASS_SOURCE) == [
        (1, 8, "class", "option_t", ("option_s", "option_t")),
        (10, 19, "class", "App", ("App", "App.App", "App.get_name", "App.empty")),
        (21, 29, "method", "App.help", ("App.help",)),  # chunker 6: `std.stringApp.help`
    ]


def test_a_prefix_macro_is_blanked_only_before_a_type_and_a_name() -> None:
    source = (
        b"LZ4_FORCE_INLINE U32 LZ4_hash4(U32 sequence)\n{\n    return sequence * 2654435761U;\n}\n"
        b"LZ4_FORCE_INLINE\nvoid LZ4_wildCopy8(void* d)\n{\n    return;\n}\n"
        b"LUA_API int lua_gettop (lua_State *L) {\n  return 1;\n}\n"
        b"BYTE_TYPE lz4_first(const BYTE* p) { return p[0]; }\n"
        b"YAML_DECLARE(int)\nyaml_parser_initialize(yaml_parser_t *parser)\n{\n    return 0;\n}\n"
    )
    blanked = blank_macros(source)
    assert blanked.splitlines() == [
        b"                 U32 LZ4_hash4(U32 sequence)", b"{", b"    return sequence * 2654435761U;", b"}",
        b"LZ4_FORCE_INLINE", b"void LZ4_wildCopy8(void* d)", b"{", b"    return;", b"}",  # alone on its line: kept
        b"        int lua_gettop (lua_State *L) {", b"  return 1;", b"}",
        b"BYTE_TYPE lz4_first(const BYTE* p) { return p[0]; }",  # one word before the name: maybe a type
        b"YAML_DECLARE(int)", b"yaml_parser_initialize(yaml_parser_t *parser)", b"{", b"    return 0;", b"}",
    ]
    assert [c.definitions for c in chunk_file("lib/lz4.c", source.decode())] == [
        ("LZ4_hash4", "LZ4_wildCopy8", "lua_gettop", "lz4_first", "yaml_parser_initialize")]


def test_typedef_struct_tag_and_alias_are_both_symbols_in_c() -> None:
    text = (
        "typedef struct yaml_parser_s {\n    int error;\n    size_t offset;\n} yaml_parser_t;\n\n"
        "typedef struct gz_state {\n    int mode;\n} gz_state;\n\n"
        "typedef struct {\n    int x;\n} point_t;\n"
    )
    # chunker 6: ("yaml_parser_t", "gz_state", "point_t"); a tag equal to its alias is named once
    assert _cut("src/yaml_private.h", text) == [
        (1, 12, "block", None, ("yaml_parser_s", "yaml_parser_t", "gz_state", "point_t"))]


def test_methods_defined_in_a_namespaced_class_body_are_qualified() -> None:
    text = (
        "namespace store {\n\nclass Table {\n public:\n  int size() const { return n_; }\n"
        "  class Iterator {\n   public:\n    bool Valid() const { return pos_ < 8; }\n   private:\n    int pos_;\n  };\n"
        "  void Put(int key);  // declared only: defines nothing here\n private:\n  int n_;\n};\n\n}  // namespace store\n"
    )
    # chunker 6: ("Table",) only. A class nested in a class body is a field declaration to the
    # grammar and names nothing, as when the class is cut per member.
    assert _cut("src/table.cc", text) == [(1, 17, "class", "Table", ("Table", "Table.size"))]
