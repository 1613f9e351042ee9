"""Chunker: natural boundaries per language, budget, merging, fallbacks (DESIGN §6)."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pytest

from paqad.index import chunking
from paqad.index.chunking import code as chunking_code
from paqad.index.chunking import CHUNKER_VERSION, MAX_CHUNK_CHARS, Chunk, chunk_file, dense_text, keyword_text
from paqad.index.languages import (DATA_FILE_LANGUAGES, LANGUAGES, SOURCE_LANGUAGES, language_for_file, language_for_path,
                                   language_for_shebang)

FIXTURES = Path(__file__).parent / "fixtures" / "chunking"
SMALL = 200  # a budget small enough to open every fixture class into its methods


def read(name: str) -> str:
    return (FIXTURES / name).read_bytes().decode("utf-8")


def file_lines(text: str) -> list[str]:
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def assert_well_formed(text: str, chunks: list[Chunk], max_chars: int = MAX_CHUNK_CHARS) -> None:
    """Ordered, non-overlapping, every non-blank line in exactly one chunk, exact texts."""
    lines = file_lines(text)
    owners = [0] * len(lines)
    previous_end = 0
    for chunk in chunks:
        assert previous_end < chunk.start_line <= chunk.end_line <= len(lines)
        previous_end = chunk.end_line
        assert chunk.text == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
        assert chunk.text.split("\n")[0].strip() and chunk.text.split("\n")[-1].strip()
        first, _, rest = chunk.text.partition("\n")
        # Over the budget only when one line alone is, or when a split class's header line
        # (`impl Foo {`) opens its first member, by at most a quarter of the budget (DESIGN §6).
        assert (len(chunk.text) <= max_chars or chunk.start_line == chunk.end_line
                or len(chunk.definitions) >= 2 and len(rest) <= max_chars
                and len(chunk.text) <= max_chars + min(chunking.HEADER_OVERFLOW_CHARS, max_chars // 4)), chunk
        assert chunk.kind in chunking.KINDS
        for row in range(chunk.start_line - 1, chunk.end_line):
            owners[row] += 1
    for row, line in enumerate(lines):
        if line.strip():
            assert owners[row] == 1, f"line {row + 1} {line!r} is in {owners[row]} chunks"


def table(chunks: list[Chunk]) -> list[tuple[int, int, str, str | None]]:
    return [(c.start_line, c.end_line, c.kind, c.symbol) for c in chunks]


# Per language: fixture, chunks at the default budget, chunks at SMALL (classes opened).
# At the default budget (tiny glue: under 100 characters) a short preamble of imports joins the
# definition below it; at SMALL (under 25) it mostly stays a "module" chunk of its own.
LANGUAGE_CASES = {
    "python": (
        "sample.py",
        [(1, 6, "module", None), (9, 29, "class", "UserService"), (32, 35, "function", "make_service")],
        [
            (1, 6, "module", None),
            (9, 14, "class", "UserService"),
            (16, 20, "method", "UserService.get_user"),
            (21, 23, "method", "UserService.get_user"),
            (25, 27, "method", "UserService.normalize_email"),  # the piece with the def line holds body too
            (28, 29, "method", "UserService.normalize_email"),
            (32, 35, "function", "make_service"),
        ],
    ),
    "javascript": (
        "sample.js",
        [
            (1, 21, "class", "Session"),  # imports and DEFAULT_TIMEOUT (88 characters) join it
            (23, 27, "function", "loadConfig"),
            (29, 31, "function", "helper"),
        ],
        [
            (1, 4, "module", None),
            # the class header (JSDoc + `export class Session ... {`) would hold no body alone: it
            # joins the first member (DESIGN §6: no signature-only chunk)
            (6, 14, "method", "Session.constructor"),
            (16, 21, "method", "Session.request"),
            (23, 27, "function", "loadConfig"),
            (29, 31, "function", "helper"),
        ],
    ),
    "typescript": (
        "sample.ts",
        [
            (1, 6, "class", "UserRepository"),
            (8, 27, "class", "UserService"),
            (29, 31, "function", "formatUser"),
        ],
        [
            (1, 2, "module", None),
            (4, 6, "class", "UserRepository"),
            (8, 10, "class", "UserService"),
            (12, 12, "method", "UserService.constructor"),
            (14, 18, "method", "UserService.getUser"),
            (19, 22, "method", "UserService.getUser"),
            (24, 27, "method", "UserService.clearCache"),
            (29, 31, "function", "formatUser"),
        ],
    ),
    "tsx": (
        "sample.tsx",
        [(1, 4, "module", None), (6, 20, "class", "UserList"), (22, 25, "function", "Counter")],
        [
            (1, 4, "module", None),
            # the one-line class header joins render, a little over the budget (header overflow)
            (6, 15, "method", "UserList.render"),
            (17, 20, "method", "UserList.componentDidMount"),
            (22, 25, "function", "Counter"),
        ],
    ),
    "go": (
        "sample.go",
        [
            (1, 12, "class", "Server"),  # package and imports (45 characters) join the struct
            (14, 18, "method", "Server.Start"),
            (20, 22, "method", "Server.Addr"),
            (24, 27, "function", "NewServer"),
        ],
        [  # Go methods are top-level already; only the preamble is no longer tiny
            (1, 6, "module", None),
            (8, 12, "class", "Server"),
            (14, 18, "method", "Server.Start"),
            (20, 22, "method", "Server.Addr"),
            (24, 27, "function", "NewServer"),
        ],
    ),
    "rust": (
        "sample.rs",
        [
            (1, 8, "class", "UserCache"),
            (10, 19, "impl", "UserCache"),
            (21, 25, "impl", "UserCache"),
            (27, 29, "function", "parse_id"),
        ],
        [
            (1, 2, "module", None),
            (4, 8, "class", "UserCache"),
            (10, 14, "method", "UserCache.new"),  # the one-line `impl UserCache {` joins it
            (16, 19, "method", "UserCache.get"),
            (21, 25, "impl", "UserCache"),
            (27, 29, "function", "parse_id"),
        ],
    ),
    "java": (
        "Sample.java",
        [(1, 23, "class", "UserService")],
        [
            (1, 4, "module", None),
            (6, 10, "class", "UserService"),
            (12, 13, "method", "UserService.UserService"),
            (15, 18, "method", "UserService.toString"),
            (20, 23, "method", "UserService.getUser"),
        ],
    ),
    "kotlin": (
        "sample.kt",
        [(1, 17, "class", "UserService"), (19, 19, "function", "formatUser")],
        [
            (1, 3, "module", None),
            (5, 7, "class", "UserService"),
            (9, 11, "method", "UserService.getUser"),
            (13, 17, "method", "UserService.clear"),
            (19, 19, "function", "formatUser"),
        ],
    ),
    "c": (
        "sample.c",
        [
            (1, 9, "class", "user"),
            (11, 15, "function", "print_user"),
            (17, 22, "function", "main"),
        ],
        [
            (1, 4, "module", None),
            (6, 9, "class", "user"),
            (11, 15, "function", "print_user"),
            (17, 22, "function", "main"),
        ],
    ),
    "cpp": (
        "sample.cpp",
        [
            (1, 19, "class", "UserService"),
            (21, 25, "method", "UserService.capacity"),  # `}  // namespace users` closes above
            (27, 30, "function", "main"),
        ],
        [
            (1, 4, "module", None),
            (6, 8, "class", "UserService"),
            (9, 9, "method", "UserService.UserService"),
            (11, 14, "method", "UserService.getUser"),
            (16, 19, "class", "UserService"),  # private fields after the methods
            (21, 25, "method", "UserService.capacity"),
            (27, 30, "function", "main"),
        ],
    ),
    "csharp": (
        "sample.cs",
        [(1, 21, "class", "UserService"), (23, 27, "class", "Program")],
        [
            (1, 5, "module", None),
            (6, 9, "class", "UserService"),
            (11, 15, "method", "UserService.Find"),
            (17, 21, "method", "UserService.GetUser"),
            (23, 27, "class", "Program"),
        ],
    ),
    "ruby": (
        "sample.rb",
        [(1, 22, "class", "Users"), (24, 26, "function", "format_user")],
        [
            (1, 2, "module", None),
            (4, 7, "class", "Users.UserService"),
            (9, 12, "method", "Users.UserService.initialize"),
            (14, 16, "method", "Users.UserService.get_user"),
            (18, 22, "method", "Users.UserService.default"),
            (24, 26, "function", "format_user"),
        ],
    ),
    "php": (
        "sample.php",
        [(1, 25, "class", "UserService"), (27, 30, "function", "format_user")],
        [
            (1, 6, "module", None),
            (8, 13, "class", "UserService"),
            (15, 18, "method", "UserService.getUser"),
            (20, 25, "method", "UserService.clear"),
            (27, 30, "function", "format_user"),
        ],
    ),
    "swift": (
        "sample.swift",
        # The extension and the free function are both tiny: merged, labelled by neither.
        [(1, 20, "class", "UserService"), (22, 28, "block", None)],
        [
            (1, 2, "module", None),
            (4, 6, "class", "UserService"),
            (8, 8, "method", "UserService.init"),
            (10, 12, "method", "UserService.getUser"),
            (14, 20, "method", "UserService.clear"),
            (22, 24, "impl", "UserService"),
            (26, 28, "function", "formatUser"),
        ],
    ),
    "scala": (
        "sample.scala",
        [(1, 16, "class", "UserService"), (18, 22, "block", None)],
        [
            (1, 4, "module", None),
            (6, 8, "class", "UserService"),
            (10, 11, "method", "UserService.getUser"),
            (13, 16, "method", "UserService.clear"),
            (18, 20, "class", "UserService"),
            (22, 22, "function", "formatUser"),
        ],
    ),
    "bash": (
        "sample.sh",
        # Preamble (86 characters) joins the merged log+build block, `build "$@"` joins it too.
        [(1, 17, "block", None)],
        [
            (1, 5, "module", None),
            (7, 10, "function", "log"),
            (12, 17, "function", "build"),  # the trailing `build "$@"` joins the chunk above
        ],
    ),
    "lua": (
        "sample.lua",
        [
            (1, 6, "module", None),
            (8, 13, "method", "UserService.new"),
            (15, 20, "method", "UserService.get_user"),
            (22, 26, "function", "format_user"),  # the trailing `return UserService` joins it
        ],
        None,
    ),
}


def test_every_source_language_has_a_case():
    # The data-file languages (chunking/queries/*.scm) have their cases in test_languages_long_tail.py.
    assert set(LANGUAGE_CASES) == SOURCE_LANGUAGES - DATA_FILE_LANGUAGES
    assert len(LANGUAGE_CASES) == 17


@pytest.mark.parametrize("language", sorted(LANGUAGE_CASES))
def test_language_fixture_chunks(language):
    name, expected, expected_small = LANGUAGE_CASES[language]
    text = read(name)
    assert language_for_path(f"src/{name}") == language

    chunks = chunk_file(f"src/{name}", text)
    assert table(chunks) == expected
    assert all(c.language == language and c.path == f"src/{name}" for c in chunks)
    assert_well_formed(text, chunks)

    small = chunk_file(f"src/{name}", text, max_chars=SMALL)
    assert table(small) == (expected_small or expected)
    assert_well_formed(text, small, SMALL)


@pytest.mark.parametrize(
    ("name", "symbol", "signature"),
    [
        ("sample.py", "UserService.normalize_email", "def normalize_email(email: str) -> str:"),
        ("sample.go", "Server.Start", "func (s *Server) Start() error {"),
        ("Sample.java", "UserService.toString", "public String toString() {"),
        ("sample.rs", "UserCache.get", "pub fn get(&self, id: u64) -> Option<&String> {"),
        ("sample.c", "print_user", "static void print_user(const struct user *u)"),
        ("sample.cpp", "UserService.capacity", "int UserService::capacity() const {"),
        ("sample.cs", "UserService.Find", "public string Find(long id)"),
        ("sample.kt", "UserService.clear", "fun clear() {"),
        ("sample.lua", "UserService.get_user", "function UserService:get_user(id)"),
    ],
)
def test_signature_is_the_line_that_names_the_definition(name, symbol, signature):
    chunks = chunk_file(name, read(name), max_chars=SMALL)
    assert {c.signature for c in chunks if c.symbol == symbol} == {signature}


def test_decorators_and_doc_comments_belong_to_the_definition():
    lines = file_lines(read("sample.py"))
    chunks = chunk_file("sample.py", read("sample.py"), max_chars=SMALL)
    method = next(c for c in chunks if c.symbol == "UserService.normalize_email")
    assert lines[method.start_line - 1] == "    @staticmethod"
    go = chunk_file("sample.go", read("sample.go"))
    assert go[1].symbol == "Server.Start"
    assert go[1].text.startswith("// Start listens on the configured address.\nfunc (s *Server) Start()")
    java = chunk_file("Sample.java", read("Sample.java"), max_chars=SMALL)
    assert java[1].text.startswith("/**\n * Looks users up with a cache.\n */\npublic class UserService {")
    assert java[3].text.startswith("    @Override\n    public String toString() {")


def test_markdown_sections_by_heading_path():
    text = read("README.md")
    chunks = chunk_file("docs/README.md", text)
    assert chunks[0].language == "markdown"
    # "Demo" has little text of its own, so it takes its subsections while they fit.
    assert table(chunks) == [
        (1, 3, "section", None),
        (5, 28, "section", "Demo"),
        (30, 33, "section", "Configuration"),
    ]
    assert_well_formed(text, chunks)
    small = chunk_file("docs/README.md", text, max_chars=120)
    assert table(small) == [
        (1, 3, "section", None),
        (5, 7, "section", "Demo"),
        (9, 11, "section", "Demo > Install"),
        (13, 18, "section", "Demo > Install > From source"),  # `# this is not a heading` is code
        (20, 22, "section", "Demo > Install > From PyPI"),
        (24, 26, "section", "Demo > Usage"),
        (27, 27, "section", "Demo > Usage"),
        (28, 28, "section", "Demo > Usage"),
        (30, 33, "section", "Configuration"),  # setext heading
    ]
    assert_well_formed(text, small, 120)


def test_yaml_top_level_keys():
    text = read("config.yaml")
    small = chunk_file("config.yaml", text, max_chars=120)
    assert table(small) == [
        (1, 2, "block", None),
        (3, 3, "key", "name"),
        (5, 7, "key", "on"),
        (9, 10, "key", "jobs"),  # its comment line is above it
        (11, 15, "key", "jobs"),  # oversized key cut at its second-level keys
        (16, 19, "key", "jobs"),
        (21, 21, "key", "quoted key"),
    ]
    assert_well_formed(text, small, 120)
    chunks = chunk_file("config.yaml", text)
    # name and on are tiny neighbours: merged into one block that names neither; the tiny
    # preamble (comment and `---`) joins that block. Keys are never folded as glue.
    assert table(chunks) == [
        (1, 7, "block", None),
        (9, 19, "key", "jobs"),
        (21, 21, "key", "quoted key"),
    ]


def test_json_top_level_keys():
    text = read("package.json")
    small = chunk_file("package.json", text, max_chars=120)
    assert table(small) == [
        (1, 2, "key", "name"),  # the lone "{" joins the first key
        (3, 3, "key", "version"),
        (4, 8, "key", "scripts"),
        (9, 13, "key", "dependencies"),  # the closing "}" stays with the last key
    ]
    assert_well_formed(text, small, 120)
    assert table(chunk_file("package.json", text))[1:] == [(4, 8, "key", "scripts"), (9, 13, "key", "dependencies")]
    one_line = '{"a": 1, "b": {"c": [1, 2]}}'
    assert table(chunk_file("x.json", one_line)) == [(1, 1, "block", None)]


def test_toml_tables():
    text = read("settings.toml")
    small = chunk_file("settings.toml", text, max_chars=120)
    assert table(small) == [
        (1, 2, "block", None),
        (4, 9, "key", "server"),  # "[not.a.table]" inside a multi-line string is not a table
        (11, 13, "key", "logging"),
        (15, 16, "key", "plugins"),
    ]
    assert_well_formed(text, small, 120)
    # The tiny tables merge; `title` belongs to the root table, so it is not folded into them.
    assert table(chunk_file("settings.toml", text)) == [(1, 2, "block", None), (4, 16, "block", None)]


def test_text_paragraphs():
    text = read("notes.txt")
    assert table(chunk_file("notes.txt", text)) == [(1, 9, "block", None)]
    small = chunk_file("notes.txt", text, max_chars=120)
    assert table(small) == [(1, 1, "block", None), (3, 4, "block", None), (6, 7, "block", None), (9, 9, "block", None)]
    assert_well_formed(text, small, 120)
    dockerfile = "FROM python:3.12\n\nRUN pip install paqad-ai\nCMD [\"paqad-ai\"]\n"
    chunks = chunk_file("Dockerfile", dockerfile)
    assert [(c.language, c.start_line, c.end_line) for c in chunks] == [("dockerfile", 1, 4)]


def test_oversized_function_is_cut_at_statements_and_keeps_its_symbol():
    body = "\n".join(f"    total += compute_value_{i}(items, offset={i})  # step {i}" for i in range(60))
    text = f'import os\n\n\ndef process(items, offset):\n    """Sum many things."""\n    total = 0\n{body}\n    return total\n'
    chunks = chunk_file("big.py", text)
    assert_well_formed(text, chunks)
    parts = chunks  # the tiny `import os` joins the first part
    assert len(parts) == 5
    assert {(c.symbol, c.kind, c.signature) for c in parts} == {("process", "function", "def process(items, offset):")}
    assert parts[0].start_line == 1 and parts[0].text.startswith("import os\n\n\ndef process(")
    assert parts[-1].end_line == 67
    assert all(len(c.text) <= MAX_CHUNK_CHARS for c in parts)
    assert all(b.start_line == a.end_line + 1 for a, b in zip(parts, parts[1:]))  # no gaps: no blank lines


def test_oversized_class_is_split_into_header_and_methods():
    def method(name: str) -> str:
        lines = "\n".join(f"        self.values.append(self.{name}_{i} * {i})" for i in range(12))
        return f"    def {name}(self):\n{lines}\n        return self.values\n"

    text = (
        "class Report:\n"
        '    """Collects values."""\n'
        "    values: list\n\n" + method("first") + "\n" + method("second") + "\n" + method("third")
    )
    chunks = chunk_file("report.py", text)
    assert_well_formed(text, chunks)
    assert table(chunks) == [
        (1, 3, "class", "Report"),
        (5, 18, "method", "Report.first"),
        (20, 33, "method", "Report.second"),
        (35, 48, "method", "Report.third"),
    ]
    assert chunks[0].signature == "class Report:"


def test_small_neighbours_merge_without_mislabelling():
    text = (
        "def a():\n    return 1\n\n"
        "def b():\n    return 2\n\n"
        "class P:\n    pass\n\n"
        "class Q:\n    pass\n"
    )
    # Four tiny definitions: one block that names none of them.
    assert table(chunk_file("tiny.py", text)) == [(1, 11, "block", None)]

    getters = "\n".join(f"    def get_{n}(self):\n        return self._{n}\n" for n in ("x", "y", "z"))
    work = "\n".join(f"        step_{i} = self.compute(step_{i - 1}, {i})" for i in range(1, 25))
    text = f"class Point:\n    def work(self):\n        step_0 = 0\n{work}\n        return step_24\n\n{getters}"
    chunks = chunk_file("point.py", text)
    assert_well_formed(text, chunks)
    # The class does not fit: its tiny getters merge into one block labelled with the class.
    assert table(chunks)[-1] == (30, 37, "block", "Point")
    assert chunks[-1].signature is None
    assert all(c.symbol in ("Point", "Point.work") for c in chunks)


def test_tiny_glue_joins_its_neighbour():
    # A one-line docstring alone would outrank the function it introduces (BM25 and cosine
    # both favour short texts): it joins the function, which keeps its labels.
    text = '"""Cart totals."""\n\n\ndef cart_total(items):\n    return sum(items)\n'
    chunks = chunk_file("cart.py", text)
    assert table(chunks) == [(1, 5, "function", "cart_total")]
    assert chunks[0].signature == "def cart_total(items):"
    assert chunks[0].text == text.rstrip("\n")

    # An import block of budget // 8 characters or more is not tiny: it stays a module chunk.
    imports = "import collections\nimport functools\nimport itertools\nimport json\nimport subprocess\n"
    function = "\n\ndef cart_total(items):\n    return sum(items)\n"
    size = len(imports.rstrip("\n"))  # 82 characters
    assert table(chunk_file("cart.py", imports + function, max_chars=size * 8)) == [
        (1, 5, "module", None),
        (8, 9, "function", "cart_total"),
    ]
    assert table(chunk_file("cart.py", imports + function, max_chars=size * 8 + 8)) == [
        (1, 9, "function", "cart_total"),  # one character under budget // 8: tiny
    ]

    # Tiny glue at the end of the file joins the chunk above.
    text = 'def main():\n    print("hi")\n\n\nif __name__ == "__main__":\n    main()\n'
    assert table(chunk_file("main.py", text)) == [(1, 6, "function", "main")]


def test_tiny_glue_never_crosses_a_class_boundary():
    def method(name: str) -> str:
        lines = "\n".join(f"        self.values.append(self.{name}_{i} * {i})" for i in range(12))
        return f"    def {name}(self):\n{lines}\n"

    big = "class Big:\n" + method("a") + "\n" + method("b")
    # A class constant after the last method stays in the class (with that method), it does
    # not open the function below.
    text = big + "\n    LIMIT = 3\n\n\ndef f():\n    return 1\n"
    chunks = chunk_file("big.py", text)
    assert_well_formed(text, chunks)
    assert table(chunks) == [(1, 14, "method", "Big.a"), (16, 30, "method", "Big.b"), (33, 34, "function", "f")]
    # A top-level call after a split class is not labelled with the class's last method.
    text = big + "\n\nmain()\n"
    assert table(chunk_file("big.py", text))[-2:] == [(16, 28, "method", "Big.b"), (31, 31, "module", None)]
    # The closing `}` of one class that cannot join its last member does not open the next class.
    small = table(chunk_file("sample.ts", read("sample.ts"), max_chars=80))
    assert (6, 6, "class", "UserRepository") in small and (8, 9, "class", "UserService") in small


def test_nested_brackets_fall_back_to_line_windows():
    text = "x = " + "(\n" * 5000 + "1\n" + ")\n" * 5000
    chunks = chunk_file("deep.py", text)
    assert_well_formed(text, chunks)
    assert {c.kind for c in chunks} == {"window"}
    assert {c.symbol for c in chunks} == {None}
    assert chunks[0].start_line == 1 and chunks[-1].end_line == 10001


@pytest.mark.parametrize("name", [f"garbage.{ext}" for ext in ("py", "js", "c", "rb", "md", "yaml", "json", "toml")])
def test_garbage_never_raises_and_loses_no_line(name):
    rng = random.Random(7)
    text = "".join(chr(rng.randrange(0, 0x2FF)) for _ in range(6000))
    chunks = chunk_file(name, text)
    assert chunks
    assert_well_formed(text, chunks)


def test_parse_timeout_and_size_guard_fall_back_to_windows(monkeypatch):
    text = read("sample.py")
    monkeypatch.setattr(chunking_code, "PARSE_TIMEOUT_SECONDS", 0.0)
    chunks = chunk_file("sample.py", text)
    assert {c.kind for c in chunks} == {"window"}
    assert_well_formed(text, chunks)
    monkeypatch.setattr(chunking_code, "PARSE_TIMEOUT_SECONDS", 5.0)
    assert table(chunk_file("sample.py", text))[1] == (9, 29, "class", "UserService")  # parser reusable
    monkeypatch.setattr(chunking_code, "MAX_PARSE_BYTES", 100)
    assert {c.kind for c in chunk_file("sample.py", text)} == {"window"}


def test_parse_errors_still_yield_definitions():
    text = "function ok() {\n  return 1;\n}\n\nfunction bad( {\n  let x = ;\n}\n\nclass K {\n  m() { return 2; }\n}\n"
    chunks = chunk_file("broken.js", text)
    assert_well_formed(text, chunks)
    assert table(chunks)[0] == (1, 3, "function", "ok")
    # The broken function is glue; tiny, it joins the class below.
    assert table(chunks) == [(1, 3, "function", "ok"), (5, 11, "class", "K")]


def test_crlf_file_chunks_like_lf():
    text = read("sample.py")
    crlf = text.replace("\n", "\r\n")
    assert chunk_file("sample.py", crlf) == chunk_file("sample.py", text)
    assert not any("\r" in c.text for c in chunk_file("sample.py", crlf))
    assert_well_formed(crlf, chunk_file("sample.py", crlf))
    md = read("README.md").replace("\n", "\r\n")
    assert chunk_file("README.md", md) == chunk_file("README.md", read("README.md"))


def test_empty_and_blank_files():
    assert chunk_file("empty.py", "") == []
    assert chunk_file("blank.md", "\n \n\t\n") == []


def test_fixtures_keep_the_properties_at_every_budget():
    for path in sorted(FIXTURES.iterdir()):
        text = path.read_bytes().decode("utf-8")
        for budget in (30, 80, SMALL, MAX_CHUNK_CHARS):
            assert_well_formed(text, chunk_file(path.name, text, max_chars=budget), budget)


def test_output_is_deterministic():
    text = read("sample.ts")
    assert chunk_file("a.ts", text) == chunk_file("a.ts", text)


def test_dense_and_keyword_text_and_content_hash():
    chunks = chunk_file("src/sample.go", read("sample.go"))
    start = chunks[1]
    assert start.text.startswith("func (s *Server) Start() error {") or "func (s *Server) Start() error {" in start.text[:300]
    assert dense_text(start) == "symbol: Server.Start\n" + start.text  # signature already visible
    assert keyword_text(start) == "path: src/sample.go\nsymbol: Server.Start\n" + start.text
    assert dense_text(start) == dense_text(chunk_file("src/moved/other.go", read("sample.go"))[1])  # no path
    module = chunk_file("src/sample.go", read("sample.go"), max_chars=SMALL)[0]
    assert (module.kind, module.symbol, module.signature) == ("module", None, None)
    assert dense_text(module) == module.text  # no symbol, no signature
    part = Chunk("a.py", 40, 60, "python", "Big.run", "method", "def run(self):", "    x = 1\n    return x")
    assert dense_text(part) == "symbol: Big.run\nsignature: def run(self):\n    x = 1\n    return x"
    assert start.content_hash == hashlib.sha256(start.text.encode()).hexdigest()
    assert CHUNKER_VERSION == "8"


def test_language_for_path():
    expected = {
        "src/a.py": "python",
        "x.h": "c",
        "x.hpp": "cpp",
        "x.cc": "cpp",
        "src/parser.y": "yacc",
        "calc.yy": "yacc",
        "src/lexer.l": "lex",
        "scan.ll": "lex",
        "x.cxx": "cpp",
        "x.ts": "typescript",
        "x.tsx": "tsx",
        "x.jsx": "javascript",
        "x.mjs": "javascript",
        "x.cjs": "javascript",
        "build.gradle.kts": "kotlin",
        "A.KT": "kotlin",
        "ci.yml": "yaml",
        "ci.yaml": "yaml",
        "README.md": "markdown",
        "doc.markdown": "markdown",
        "page.mdx": "markdown",
        "run.sh": "bash",
        "run.bash": "bash",
        "Dockerfile": "dockerfile",
        "docker/Dockerfile.dev": "dockerfile",
        "Makefile": "make",
        "Justfile": "just",
        "Procfile": "procfile",
        "x.cs": "csharp",
        "x.rs": "rust",
        "x.go": "go",
        "x.rb": "ruby",
        "x.php": "php",
        "x.swift": "swift",
        "x.scala": "scala",
        "x.lua": "lua",
        "x.json": "json",
        "pyproject.toml": "toml",
        "notes.txt": "text",
        "LICENSE": "text",
        ".gitignore": "text",
        "weird.unknownext": "text",
    }
    assert {path: language_for_path(path) for path in expected} == expected
    assert {"markdown", "yaml", "json", "toml", "text"} <= set(LANGUAGES)
    assert language_for_shebang("#!/usr/bin/env python3") == "python"
    assert language_for_shebang("#!/bin/sh -e") == "bash"
    assert language_for_shebang("#!/usr/bin/perl") is None
    script = chunk_file("bin/tool", "#!/usr/bin/env python3\nimport sys\n\n\ndef main():\n    print(sys.argv)\n")
    # The shebang and `import sys` are tiny glue: they join main.
    assert [(c.language, c.start_line, c.kind, c.symbol) for c in script] == [("python", 1, "function", "main")]


def test_javascript_assignment_definitions_and_separated_jsdoc():
    """CommonJS/prototype definitions get symbols; a JSDoc one blank line above joins them."""
    chunks = chunk_file("lib/response.js", read("express_style.js"))
    assert [(c.start_line, c.end_line, c.kind, c.symbol) for c in chunks] == [
        (1, 4, "module", None),
        (6, 22, "method", "res.redirect"),
        (24, 28, "method", "View.lookup"),
        (30, 31, "function", "parse"),
    ]
    assert chunks[1].signature == "res.redirect = function redirect(url) {"
    assert chunks[1].text.startswith("/**\n * Redirect to the given `url`")


# yaml-cpp's include/yaml-cpp/node/detail/node.h, shortened: a C++ header named .h
CPP_HEADER = """#include <set>

namespace YAML {
namespace detail {
class node {
 public:
  node() : m_pRef(std::make_shared<node_ref>()) {}
  bool is_defined() const { return m_pRef->is_defined(); }

  void mark_defined() {
    if (is_defined())
      return;
    m_pRef->mark_defined();
  }

 private:
  shared_node_ref m_pRef;
};
}  // namespace detail
}  // namespace YAML
"""
# a C header with the usual C++ guard (libyaml's yaml.h keeps it)
C_HEADER = """#ifdef __cplusplus
extern "C" {
#endif

typedef struct yaml_mark_s {
    size_t index;
    size_t line;
} yaml_mark_t;

int yaml_parser_initialize(yaml_parser_t *parser);

#ifdef __cplusplus
}
#endif
"""


def test_a_cpp_header_named_h_can_be_cut_as_cpp():
    # measured, left off by default (CPP_HEADERS_BY_CONTENT; bench/README.md, round 6)
    assert language_for_file("include/yaml-cpp/node/detail/node.h", CPP_HEADER) == "c"
    assert language_for_file("include/yaml-cpp/node/detail/node.h", CPP_HEADER, cpp_headers=True) == "cpp"
    assert language_for_file("include/yaml.h", C_HEADER, cpp_headers=True) == "c"
    assert language_for_file("src/node.cpp", C_HEADER) == "cpp"
    assert language_for_file("src/parser.y", CPP_HEADER, cpp_headers=True) == "yacc"
    chunks = chunk_file("include/yaml-cpp/node/detail/node.h", CPP_HEADER, "cpp")
    assert {c.language for c in chunks} == {"cpp"}
    # the methods defined in the class body are symbols of the one class chunk (round 10)
    assert [(c.start_line, c.end_line, c.symbol, c.definitions) for c in chunks] == [
        (1, 20, "node", ("node", "node.node", "node.is_defined", "node.mark_defined"))]
    # the C grammar read `namespace YAML {` as a function named YAML
    assert [(c.symbol, c.definitions) for c in chunk_file("x.h", CPP_HEADER, "c")] == [("YAML", ("YAML",))]


def test_a_forward_declaration_defines_nothing():
    text = ("namespace YAML {\nclass Node;\nstruct Mark;\n\n/** Loads one document. */\nNode Load(const std::string& input);\n\n"
            "class Parser {\n public:\n  Parser();\n};\n}\n")
    assert [(c.symbol, c.definitions) for c in chunk_file("include/parse.hpp", text)] == [(None, ()), ("Parser", ("Parser",))]
    c_text = "struct yaml_parser_s;\n\nstruct yaml_mark_s {\n    size_t index;\n};\n"
    assert [c.definitions for c in chunk_file("include/yaml.h", c_text)] == [("yaml_mark_s",)]
