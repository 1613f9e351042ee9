"""Issue 24, round 7: a pasted report led by a Python facade (``delegates``): the sibling module
the facade forwards to, or whose code its documented function calls, is raised over it; on
hand-made chunk rows and file lines (the benchmark is bench/issues/run.py)."""

from __future__ import annotations

from paqad.search import RankingOptions
from paqad.search.analysis import analyze
from paqad.search.signals import RankingContext, delegates, in_force
from paqad.search.signals.docstring_chunks import docstring_lines
from paqad.store import ChunkRow

REPORT = """field(alias=...) is ignored by __attrs_pre_init__

When a class defines __attrs_pre_init__ and a field has an alias, the generated __init__
passes the attribute name instead of the alias:

    @attrs.define
    class C:
        x: int = attrs.field(alias="y")
"""

# attrs' facade: field() documents the argument and returns _make.attrib(...)
NEXT_GEN = [
    "def field(",  # 1
    "    *,",  # 2
    "    default=NOTHING,",  # 3
    "    alias=None,",  # 4
    "):",  # 5
    '    """',  # 6
    "    Create a new field on a class.",  # 7
    "",  # 8
    "    alias: override this attribute's own name in the generated __init__.",  # 9
    '    """',  # 10
    "    return attrib(",  # 11
    "        default=default,",  # 12
    "        alias=alias,",  # 13
    "    )",  # 14
    "",  # 15
    "def define(maybe_cls=None):",  # 16
    "    return attrs(maybe_cls)",  # 17
]
MAKE = "class _ClassBuilder:\n    pass\n\n\ndef attrib(default=NOTHING, alias=None):\n    return _CountingAttr(default, alias)\n"
FILES = {"src/attr/_next_gen.py": "\n".join(NEXT_GEN), "src/attr/_make.py": MAKE,
         "src/attr/_funcs.py": "def evolve(inst, **changes):\n    return inst\n",
         "tests/test_make.py": "def attrib():\n    pass\n"}


def _row(cid: int, path: str, start: int, end: int, text: str, symbol: str | None = None) -> ChunkRow:
    return ChunkRow(path=path, start_line=start, end_line=end, language="python", symbol=symbol, kind="block",
                    signature=None, text=text, defines=symbol is not None, id=cid)


ROWS = {1: _row(1, "src/attr/_next_gen.py", 1, 14, "\n".join(NEXT_GEN[:14]), "field"),
        2: _row(2, "src/attr/_make.py", 1, 2, "class _ClassBuilder:\n    pass", "_ClassBuilder"),
        3: _row(3, "tests/test_make.py", 1, 2, FILES["tests/test_make.py"], "attrib"),
        4: _row(4, "src/attr/_funcs.py", 1, 2, FILES["src/attr/_funcs.py"], "evolve")}
SCORES = {1: 1.0, 3: 0.9, 4: 0.8, 2: 0.6}


def _lines(path: str) -> dict[int, str]:
    return {i + 1: line for i, line in enumerate(FILES[path].split("\n"))}


def _context(rows=ROWS, named: frozenset[str] = frozenset(), share: float = 1.05,
             query: str = REPORT) -> RankingContext:
    return RankingContext(info=analyze(query), options=RankingOptions(delegate_share=share), rows=rows, best=1.0,
                          definitions=(), named_paths=named, exempt=frozenset(),
                          file_text=lambda path: FILES[path], file_lines=_lines)


def test_the_enclosing_function_and_its_calls_are_read_from_the_file_lines():
    lines = _lines("src/attr/_next_gen.py")
    assert delegates.enclosing_function(lines, 1) == (1, 14, "field")
    assert delegates.enclosing_function(lines, 9) == (1, 14, "field")  # a line of its docstring
    assert delegates.enclosing_function(lines, 17) == (16, 17, "define")
    # one statement (the multi-line return of attrib(...)); the docstring's words are not code
    assert delegates.body_calls(lines, 1, 14, docstring_lines(lines)) == (frozenset({"attrib"}),
                                                                          frozenset({"attrib"}), 1)
    assert delegates.defines(MAKE, frozenset({"attrib"}))
    assert not delegates.defines(MAKE, frozenset({"attr"}))


def test_a_forwarding_facade_yields_to_the_sibling_module_it_returns_a_call_of():
    # _make.py defines attrib (its candidate is another chunk of it): raised to 1.05 x the facade's
    # score; the test module defining attrib and _funcs.py (defines nothing field calls) stay
    assert delegates.apply(SCORES, _context()) == {1: 1.0, 3: 0.9, 4: 0.8, 2: 1.05}
    assert "delegates" in in_force(RankingOptions())  # on by default (1.05)
    assert "delegates" not in in_force(RankingOptions(delegate_share=0.0))  # ablation no-delegates


def test_a_named_facade_a_short_prompt_or_a_long_implementation_keep_their_order():
    assert delegates.apply(SCORES, _context(named=frozenset({"src/attr/_next_gen.py"}))) == SCORES
    assert delegates.apply(SCORES, _context(query="where is field defined")) == SCORES
    body = ["def field(alias=None):"] + [f"    step_{i}(alias)" for i in range(9)] + ["    return attrib(alias)"]
    FILES["src/attr/_next_gen.py"] = "\n".join(body)
    try:
        rows = {**ROWS, 1: _row(1, "src/attr/_next_gen.py", 1, 11, "\n".join(body), "field")}
        assert delegates.apply(SCORES, _context(rows)) == SCORES  # 10 statements: it implements, not forwards
    finally:
        FILES["src/attr/_next_gen.py"] = "\n".join(NEXT_GEN)


def test_a_leading_piece_of_a_docstring_raises_any_sibling_its_function_calls():
    # loguru's Logger.add: a long function whose docstring explains rotation; it builds a FileSink
    logger = ["class Logger:", "    def add(self, sink, rotation=None):", '        """Add a sink.', "",
              "        rotation: when the current file is closed and a new one started.", "",
              "        The file is renamed with the date of its creation.", '        """']
    logger += [f"        step_{i}()" for i in range(12)] + ["        handler = FileSink(sink, rotation=rotation)"]
    files = {"loguru/_logger.py": "\n".join(logger),
             "loguru/_file_sink.py": "class FileSink:\n    def write(self, message):\n        pass\n",
             "loguru/_datetime.py": "def aware_now():\n    pass\n"}
    rows = {1: ChunkRow(path="loguru/_logger.py", start_line=5, end_line=7, language="python", symbol="Logger.add",
                        kind="block", signature=None, text="\n".join(logger[4:7]), id=1),
            2: ChunkRow(path="loguru/_datetime.py", start_line=1, end_line=2, language="python", symbol="aware_now",
                        kind="block", signature=None, text=files["loguru/_datetime.py"], defines=True, id=2),
            3: ChunkRow(path="loguru/_file_sink.py", start_line=2, end_line=3, language="python",
                        symbol="FileSink.write", kind="block", signature=None, text="def write(self, message):",
                        defines=True, id=3)}
    context = RankingContext(info=analyze("Rotation creates many files\n\n" + REPORT), rows=rows, best=1.0,
                             options=RankingOptions(delegate_share=1.05), definitions=(), named_paths=frozenset(),
                             exempt=frozenset(), file_text=lambda path: files[path],
                             file_lines=lambda path: {i + 1: s for i, s in enumerate(files[path].split("\n"))})
    # _datetime.py scores higher but add() never calls aware_now: the FileSink module is raised
    assert delegates.apply({1: 1.0, 2: 0.7, 3: 0.5}, context) == {1: 1.0, 2: 0.7, 3: 1.05}
