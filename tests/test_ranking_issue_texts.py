"""Issue 24's issue-text signals on hand-made chunk rows (``named_frames``, ``title_names``); the
benchmark on real issues is bench/issues/run.py."""

from __future__ import annotations

from paqad.search import RankingOptions
from paqad.search.analysis import analyze
from paqad.search.signals import RankingContext, named_frames, title_names
from paqad.search.symbols import DefinitionMatch
from paqad.store import ChunkRow

REPORT = """`kw_only` with `default` breaks `__attrs_pre_init__` call

The following code raises SyntaxError
```python
from attrs import define, field
```
```python
Traceback (most recent call last):
  File "/home/user/attrs_pre_init.py", line 4, in <module>
    @define
  File "/home/user/.venv/lib/python3.12/site-packages/attr/_make.py", line 2181, in _make_init
    init = _make_method(
  File "/home/user/.venv/lib/python3.12/site-packages/attr/utils.py", line 12, in helper
"""


def _row(cid: int, path: str, text: str) -> ChunkRow:
    return ChunkRow(path=path, start_line=1, end_line=10, language="python", symbol=None, kind="block",
                    signature=None, text=text, id=cid)


ON = RankingOptions(named_file_boost=2.0, frame_function_share=1.0, title_share=0.6)  # "with-issue-texts"


def _context(query: str, rows: dict[int, ChunkRow], options: RankingOptions = ON,
             table: dict[int, str] | None = None) -> RankingContext:
    """``table``: chunk id -> the query identifier the symbol table says it defines."""
    info = analyze(query)
    by_name = {i.name: i for i in info.identifiers}
    definitions = tuple(DefinitionMatch(cid, by_name[name], True, True) for cid, name in (table or {}).items())
    return RankingContext(info=info, options=options, rows=rows, best=1.0, definitions=definitions,
                          named_paths=frozenset(), exempt=frozenset())


ROWS = {
    1: _row(1, "src/attr/_make.py", "def _make_init(cls, attrs):\n    return _make_method('__init__')\n"),
    2: _row(2, "src/attr/_make.py", "class _ClassBuilder:\n    pass\n"),
    3: _row(3, "src/attr/_next_gen.py", "def define(maybe_cls=None):\n    return attrs(maybe_cls)\n"),
    4: _row(4, "attrs_pre_init.py", "def helper():\n    pass\n"),  # the reporter's script's name
    5: _row(5, "src/attr/_funcs.py", "def __attrs_pre_init__(self):\n    pass\n"),
}


def test_a_frame_lifts_its_file_and_its_function_more():
    scores = {1: 0.1, 2: 0.1, 3: 0.1, 4: 0.1, 5: 0.1}
    out = named_frames.apply(scores, _context(REPORT, ROWS))
    # _make.py is named by a frame: x2; its chunk defining the frame's function _make_init: + 1.0 x best
    assert out[1] == 0.1 * 2.0 + 1.0 and out[2] == 0.1 * 2.0
    # a file no frame names, and a one-component name (the reporter's script) are left as they were
    assert out[3] == 0.1 and out[4] == 0.1 and out[5] == 0.1


def test_named_files_need_a_long_prompt_and_a_two_part_path():
    scores = {1: 0.1, 2: 0.1}
    assert named_frames.apply(scores, _context("what does src/attr/_make.py do", ROWS)) == scores  # short
    long_text = "Something breaks in _make.py when I pass kw_only.\n" * 8
    assert named_frames.apply(scores, _context(long_text, ROWS)) == scores  # one component only
    named = named_frames.named_files(_context("see src/attr/_make.py#L2181\n" + long_text, ROWS))
    assert named == {"src/attr/_make.py": set()}


def test_a_title_name_gives_its_definition_a_share():
    assert title_names.title_identifiers(REPORT) == ("kw_only", "__attrs_pre_init__")  # not the plain `default`
    scores = {1: 0.1, 5: 0.1}
    table = {5: "__attrs_pre_init__", 1: "_make_init"}  # _make_init is named in a frame, not the title
    out = title_names.apply(scores, _context(REPORT, ROWS, table=table))
    assert out[5] == 0.1 + 0.6 * 5.0 * 1.0 and out[1] == 0.1
    test_row = {6: _row(6, "tests/test_hooks.py", "def __attrs_pre_init__(self):\n    pass\n")}
    out = title_names.apply({6: 0.1}, _context(REPORT, test_row, table={6: "__attrs_pre_init__"}))
    assert abs(out[6] - (0.1 + 0.6 * 5.0 * 0.1)) < 1e-9  # x the tests prior
    assert title_names.title_identifiers("x" * 200 + "\nmake_class() breaks") == ()  # no title line


def test_both_are_off_by_default_and_by_name():
    from dataclasses import replace

    from paqad.search.signals import in_force

    off = replace(ON, off=frozenset({"named_frames", "title_names"}))
    assert "named_frames" in in_force(ON) and "title_names" in in_force(ON)
    assert "named_frames" not in in_force(off) and "title_names" not in in_force(off)
    assert "named_frames" not in in_force(RankingOptions()) and "title_names" not in in_force(RankingOptions())
