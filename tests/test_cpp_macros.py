"""C/C++ export and annotation macros: the chunker names the class or function, not the macro."""

from __future__ import annotations

import re

from paqad.index.chunking import chunk_file
from paqad.index.chunking.cpp_macros import blank_macros

# A library header in the glog/leveldb style: an export macro between `class` and the name, a
# thread-safety annotation after a method's parameters. Methods are long enough that the class
# is over the chunk budget and is cut into one chunk per member.
EXPORTED = """\
#include <mutex>

namespace store {

class STORE_EXPORT Table : public Base {
 public:
  // Looks up `key` and copies its value into `*value`; false when absent.
  bool Get(const std::string& key, std::string* value) LOCKS_EXCLUDED(mu_) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = rows_.find(key);
    if (it == rows_.end()) {
      return false;
    }
    *value = it->second;
    return true;
  }

  // Stores `value` under `key`, replacing what was there, and counts the write.
  void Put(const std::string& key, const std::string& value) LOCKS_EXCLUDED(mu_) {
    std::lock_guard<std::mutex> lock(mu_);
    rows_[key] = value;
    writes_ += 1;
    if (writes_ % kFlushEvery == 0) {
      FlushLocked();
    }
  }

 private:
  void FlushLocked() EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::mutex mu_;
  std::map<std::string, std::string> rows_ GUARDED_BY(mu_);
  long writes_ GUARDED_BY(mu_) = 0;
};

void Table::FlushLocked() EXCLUSIVE_LOCKS_REQUIRED(mu_) {
  journal_.Sync();
}

}  // namespace store
"""


def _chunks(text: str, path: str = "src/table.cc", max_chars: int = 800):
    return [(c.symbol, c.kind, c.start_line, c.end_line) for c in chunk_file(path, text, max_chars=max_chars)]


def test_blanking_keeps_length_and_lines() -> None:
    data = EXPORTED.encode()
    blanked = blank_macros(data)
    assert len(blanked) == len(data)
    assert blanked.count(b"\n") == data.count(b"\n")
    assert b"class              Table : public Base {" in blanked
    assert re.search(rb"std::string\* value\) {21}\{", blanked)  # ` LOCKS_EXCLUDED(mu_) `: 21 bytes
    assert re.search(rb"void FlushLocked\(\) {30};", blanked)
    assert b"LOCKS" not in blanked and b"EXPORT" not in blanked


def test_exported_class_and_annotated_methods_are_named_by_their_names() -> None:
    chunks = _chunks(EXPORTED)
    symbols = [symbol for symbol, _, _, _ in chunks]
    assert "STORE_EXPORT" not in symbols and "LOCKS_EXCLUDED" not in symbols
    assert "EXCLUSIVE_LOCKS_REQUIRED" not in symbols
    assert ("Table.Get", "method", 7, 16) in chunks
    assert ("Table.Put", "method", 18, 26) in chunks
    assert ("Table.FlushLocked", "method", 35, 39) in chunks  # with the closing `}  // namespace store`
    assert chunks[0] == ("Table", "class", 1, 6)  # the class header, with the lines above it


def test_chunk_text_is_the_original_text() -> None:
    get = next(c for c in chunk_file("src/table.cc", EXPORTED) if c.symbol == "Table.Get")
    assert "LOCKS_EXCLUDED(mu_) {" in get.text
    assert get.signature == "bool Get(const std::string& key, std::string* value) LOCKS_EXCLUDED(mu_) {"


def test_small_exported_class_is_one_chunk_named_by_the_class() -> None:
    text = "class GLOG_EXPORT LogSink {\n public:\n  virtual ~LogSink();\n  virtual void send() = 0;\n};\n"
    assert _chunks(text, "src/sink.cc") == [("LogSink", "class", 1, 5)]


def test_plain_class_and_function_unchanged() -> None:
    text = (
        "class Plain final : public Base {\n public:\n  int size() const { return n_; }\n};\n\n"
        "int Twice(int x) {\n  return (int) MAX_VALUE + 2 * x;\n}\n"
    )
    assert blank_macros(text.encode()) == text.encode()
    assert _chunks(text, "src/plain.cc", max_chars=80) == [("Plain", "class", 1, 4), ("Twice", "function", 6, 8)]


def test_casts_and_calls_are_not_blanked() -> None:
    text = b"int f(int x) {\n  return (int) INT_MAX;\n}\nstruct TREE_NODE node;\nint y = g(x) ? A_B : C_D;\n"
    assert blank_macros(text) == text


def test_annotation_on_a_continuation_line_is_blanked() -> None:
    text = b"  const char* Name() const\n      GTEST_LOCK_EXCLUDED_(g_gmock_mutex);\n"
    blanked = blank_macros(text)
    assert blanked == b"  const char* Name() const\n      " + b" " * 35 + b";\n"
    top_level = b"DECLARE_ONE(a)\nDEFINE_TWO(b);\n"  # a macro at a line's start is a statement of its own
    assert blank_macros(top_level) == top_level
