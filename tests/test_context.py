"""Delivery (DESIGN §9): exact text of every form, truncation, and section replacement in place."""

from __future__ import annotations

import os
from pathlib import Path

from paqad.project import ProjectPaths
from paqad.deliver.render import SECTION_HEADING, render_section
from paqad.deliver.session_file import DRIFT_HEADING, replace_section, write_section
from paqad.search.floor import FloorOutcome, apply_floor
from paqad.search.results import SearchResult

PROMPT_LABEL = "last prompt (recorded 2026-11-30 07:40 UTC)"
NOTE = "Hints from a search index, possibly stale: the live files are the truth; read them before relying on these."

LOGIN = SearchResult(
    path="src/app/auth.py", start_line=12, end_line=15, symbol="AuthService.login", language="python",
    text="def login(self, user, password):\n    if not self.check(user, password):\n        raise AuthError(user)\n    return Session(user)\n",
    score=0.8249, fused_rank=1, dense_rank=1, lexical_rank=3,
)
# A Markdown chunk holding its own fence and level-2 headings, starting with blank lines.
SETUP = SearchResult(
    path="docs/setup.md", start_line=7, end_line=14, symbol=None, language="markdown",
    text="\n\n## Install\n\n```sh\npip install paqad-ai\n```\n## Retrieved context\n",
    score=0.7512, fused_rank=2, dense_rank=None, lexical_rank=1,
)


def result(rank: int, score: float, **fields) -> SearchResult:
    base = dict(path=f"src/mod{rank}.py", start_line=rank * 10, end_line=rank * 10 + 4, symbol=f"handler{rank}",
                language="python", text=f"def handler{rank}(request):\n    return {rank}\n", score=score,
                fused_rank=rank, dense_rank=rank, lexical_rank=rank)
    base.update(fields)
    return SearchResult(**base)


# --- render: the four forms ---------------------------------------------------------------------


def test_confident_passages_exact_text():
    section = render_section(apply_floor([LOGIN, SETUP]), PROMPT_LABEL)
    assert section == (
        "## Retrieved context\n"
        "\n"
        "Query: last prompt (recorded 2026-11-30 07:40 UTC)\n"
        "2 matches at or above the 75% confidence floor.\n"
        f"{NOTE}\n"
        "\n"
        "### src/app/auth.py:L12-15 · AuthService.login · match 82%\n"
        "```python\n"
        "def login(self, user, password):\n"
        "    if not self.check(user, password):\n"
        "        raise AuthError(user)\n"
        "    return Session(user)\n"
        "```\n"
        "\n"
        "### docs/setup.md:L9-14 · match 75%\n"
        "````markdown\n"
        "## Install\n"
        "\n"
        "```sh\n"
        "pip install paqad-ai\n"
        "```\n"
        "## Retrieved context\n"
        "````\n"
    )


def test_one_passage_and_query_label_already_prefixed():
    section = render_section(apply_floor([LOGIN]), "Query: changed files (2)")
    assert section.splitlines()[2:5] == [
        "Query: changed files (2)",
        "1 match at or above the 75% confidence floor.",
        NOTE,
    ]
    assert section.splitlines()[6] == "### src/app/auth.py:L12-15 · AuthService.login · match 82%"


def test_five_confident_are_passages_six_are_pointers():
    five = render_section(apply_floor([result(i, 0.9) for i in range(1, 6)]), "changed files (1)")
    assert five.count("\n### ") == 5 and "- `" not in five
    six = render_section(apply_floor([result(i, 0.9) for i in range(1, 7)]), "changed files (1)")
    assert "\n### " not in six and six.count("\n- `") == 6


def test_pointers_exact_text():
    long_sig = "def " + "very_long_name_" * 8 + "(argument_one, argument_two, argument_three):"
    results = [
        result(1, 0.91, text="@dataclass(frozen=True)\n@total_ordering\nclass Token:\n    kind: str\n", symbol="Token",
               path="src/lexer.py", start_line=3, end_line=6),
        result(2, 0.90, text="\n\n   ## Configuration   keys\n\nSome text.\n", symbol=None, language="markdown",
               path="docs/config.md", start_line=1, end_line=5),
        result(3, 0.88, text=long_sig + "\n    pass\n", symbol="very_long"),
        result(4, 0.8),
        result(5, 0.79),
        result(6, 0.755),
        result(7, 0.2),  # below the floor: not listed
    ]
    section = render_section(apply_floor(results), PROMPT_LABEL)
    hint3 = long_sig[:99] + "…"
    assert len(hint3) == 100
    assert section == (
        "## Retrieved context\n"
        "\n"
        "Query: last prompt (recorded 2026-11-30 07:40 UTC)\n"
        "6 matches at or above the 75% confidence floor, too many to quote; pointers only, open the files for the text.\n"
        f"{NOTE}\n"
        "\n"
        "- `src/lexer.py:L3-6` Token · 91% — class Token:\n"
        "- `docs/config.md:L1-5` · 90% — ## Configuration keys\n"
        f"- `src/mod3.py:L30-34` very_long · 88% — {hint3}\n"
        "- `src/mod4.py:L40-44` handler4 · 80% — def handler4(request):\n"
        "- `src/mod5.py:L50-54` handler5 · 79% — def handler5(request):\n"
        "- `src/mod6.py:L60-64` handler6 · 76% — def handler6(request):\n"
    )


def test_pointers_capped_at_twelve_with_count_of_the_rest():
    section = render_section(apply_floor([result(i, 0.95 - i / 100) for i in range(1, 16)]), "changed files (4)")
    lines = section.splitlines()
    assert lines[3] == "15 matches at or above the 75% confidence floor, too many to quote; pointers only, open the files for the text."
    pointers = [line for line in lines if line.startswith("- ")]
    assert pointers[0] == "- `src/mod1.py:L10-14` handler1 · 94% — def handler1(request):"
    assert pointers[11] == "- `src/mod12.py:L120-124` handler12 · 83% — def handler12(request):"
    assert pointers[12:] == ["- … 3 more not listed."]


def test_low_confidence_two_passages_exact_text():
    # monotone bands: rank 4's 0.6 is capped at rank 3's 0.30 and stays out
    results = [result(1, 0.52), result(2, 0.3951), result(3, 0.30), result(4, 0.6)]
    section = render_section(apply_floor(results), "changed files (3)")
    assert section == (
        "## Retrieved context\n"
        "\n"
        "Query: changed files (3)\n"
        "Low confidence: no match reached the 75% floor; the best 2 follow (at or above the 35% relief floor) and may be unrelated.\n"
        f"{NOTE}\n"
        "\n"
        "### src/mod1.py:L10-11 · handler1 · match 52% · low confidence\n"
        "```python\n"
        "def handler1(request):\n"
        "    return 1\n"
        "```\n"
        "\n"
        "### src/mod2.py:L20-21 · handler2 · match 40% · low confidence\n"
        "```python\n"
        "def handler2(request):\n"
        "    return 2\n"
        "```\n"
    )


def test_low_confidence_single_passage_wording_and_custom_floors():
    outcome = apply_floor([result(1, 0.45)], threshold=0.755, relief_floor=0.4)
    assert render_section(outcome, "changed files (1)").splitlines()[3] == (
        # whole percentages, as compared (0.755 rounds half up to 76%)
        "Low confidence: no match reached the 76% floor; the best match follows (at or above the 40% relief floor) and may be unrelated."
    )


def test_nothing_above_floor_exact_text():
    section = render_section(apply_floor([result(1, 0.3449), result(2, 0.2)]), PROMPT_LABEL)
    assert section == (
        "## Retrieved context\n"
        "\n"
        "Query: last prompt (recorded 2026-11-30 07:40 UTC)\n"
        "Nothing above the confidence floor (best match 34%).\n"
        "No hints this time; the index may be stale and the live files are the truth: search and read them directly.\n"
    )


def test_no_results_at_all_exact_text():
    section = render_section(FloorOutcome("nothing", (), None, 0.75, 0.35), "changed files (2)")
    assert section == (
        "## Retrieved context\n"
        "\n"
        "Query: changed files (2)\n"
        "Nothing above the confidence floor (no matches in the index).\n"
        "No hints this time; the index may be stale and the live files are the truth: search and read them directly.\n"
    )


# --- truncation at 1,200 characters ---------------------------------------------------------------


def body_of(section: str) -> str:
    """The text between the first fence pair of a rendered section."""
    lines = section.split("\n")
    open_at = next(i for i, line in enumerate(lines) if line.startswith("```"))
    fence = lines[open_at][: len(lines[open_at]) - len(lines[open_at].lstrip("`"))]
    close_at = next(i for i in range(open_at + 1, len(lines)) if lines[i] == fence)
    return "\n".join(lines[open_at + 1 : close_at])


def test_truncation_cuts_at_a_line_boundary_with_marker():
    line = "x" * 59  # 60 characters with its newline
    chunk = result(1, 0.9, start_line=101, end_line=130, text="\n".join([line] * 30) + "\n")
    section = render_section(apply_floor([chunk]), "changed files (1)")
    body = body_of(section)
    # 19 lines = 1,139 characters, + newline + 40-character marker = 1,180; a 20th line would make 1,240.
    assert body == "\n".join([line] * 19) + "\n… (truncated; read L120-130 in the file)"
    assert len(body) == 1180
    assert "### src/mod1.py:L101-130 · handler1 · match 90%" in section


def test_exactly_1200_characters_is_not_truncated_1201_is():
    exact = "a" * 599 + "\n" + "b" * 600  # 1,200 characters, two lines
    section = render_section(apply_floor([result(1, 0.9, start_line=1, end_line=2, text=exact)]), "q")
    assert body_of(section) == exact
    over = "a" * 599 + "\n" + "b" * 601
    section = render_section(apply_floor([result(1, 0.9, start_line=1, end_line=2, text=over)]), "q")
    assert body_of(section) == "a" * 599 + "\n… (truncated; read L2-2 in the file)"


def test_single_overlong_line_is_cut_inside_the_line():
    minified = "var a=1;" * 400  # 3,200 characters on one line
    section = render_section(apply_floor([result(1, 0.9, start_line=1, end_line=1, text=minified, language="javascript")]), "q")
    body = body_of(section)
    marker = "… (truncated; read L1-1 in the file)"
    assert body == minified[: 1200 - 1 - len(marker)] + "\n" + marker
    assert len(body) == 1200


# --- writing the section into the file --------------------------------------------------------------

OTHER_BEFORE = "# Session context\n\nIntro line.\n\n## Plan\r\n- step one\r\n- step two\r\n\n"
OTHER_AFTER = "## Notes\nkeep me \xe9\n\n```md\n## not a heading\n```\n"


def test_write_creates_file_and_folder(tmp_path: Path):
    target = ProjectPaths(tmp_path).session_context
    section = render_section(FloorOutcome("nothing", (), 0.2, 0.75, 0.35), "changed files (1)")
    write_section(target, section)
    assert target.read_bytes().decode() == section
    assert sorted(p.name for p in target.parent.iterdir()) == ["session-context.md"]


def test_replace_keeps_other_sections_byte_for_byte(tmp_path: Path):
    target = tmp_path / "ctx" / "session-context.md"
    target.parent.mkdir()
    # The old section holds a fenced "## " line and ends with blank lines; non-UTF-8 byte elsewhere.
    old_section = "## Retrieved context\n\nold\n````markdown\n## Install\n````\n\n\n"
    before = OTHER_BEFORE.encode() + b"raw \xff byte\n\n"
    target.write_bytes(before + old_section.encode() + OTHER_AFTER.encode())
    new_section = render_section(apply_floor([LOGIN]), PROMPT_LABEL)
    write_section(target, new_section)
    assert target.read_bytes() == before + new_section.encode() + b"\n" + OTHER_AFTER.encode()
    # Writing the same again is a no-op (same inode: not rewritten); a new section replaces in place.
    inode = target.stat().st_ino
    write_section(target, new_section)
    assert target.stat().st_ino == inode
    other = render_section(apply_floor([SETUP]), PROMPT_LABEL)
    write_section(target, other)
    assert target.read_bytes() == before + other.encode() + b"\n" + OTHER_AFTER.encode()
    assert [p.name for p in target.parent.iterdir()] == ["session-context.md"]  # no temp file left


def test_our_fenced_heading_lines_do_not_split_the_section(tmp_path: Path):
    # SETUP's text holds "## Install" and "## Retrieved context" inside the passage's fence.
    target = tmp_path / "session-context.md"
    target.write_text(OTHER_BEFORE + OTHER_AFTER, encoding="utf-8")
    section = render_section(apply_floor([SETUP]), PROMPT_LABEL)
    write_section(target, section)
    write_section(target, section.replace("match 75%", "match 76%"))
    text = target.read_bytes().decode()
    assert text == OTHER_BEFORE + OTHER_AFTER + "\n" + section.replace("match 75%", "match 76%")
    assert text.count("\n## Retrieved context\n") == 2  # the heading and the fenced line, no copy


def test_append_then_remove_restores_the_original(tmp_path: Path):
    target = tmp_path / "session-context.md"
    original = OTHER_BEFORE + OTHER_AFTER
    target.write_text(original, encoding="utf-8")
    section = render_section(apply_floor([LOGIN]), PROMPT_LABEL)
    write_section(target, section)
    assert target.read_bytes().decode() == original + "\n" + section
    write_section(target, None)
    assert target.read_bytes().decode() == original


def test_remove_from_the_middle_and_missing_file(tmp_path: Path):
    text = "## A\na\n\n## Retrieved context\nold\n\n## B\nb\n"
    assert replace_section(text, SECTION_HEADING, None) == "## A\na\n\n## B\nb\n"
    target = tmp_path / "none" / "session-context.md"
    write_section(target, None)
    assert not target.parent.exists()


def test_base_drift_section_is_handled_alongside(tmp_path: Path):
    target = tmp_path / "session-context.md"
    retrieved = render_section(apply_floor([]), "changed files (1)")
    write_section(target, retrieved)
    write_section(target, "## Base drift\n\norigin/main is 3 commits ahead of the merge-base.\n", heading=DRIFT_HEADING)
    drift = "## Base drift\n\norigin/main is 3 commits ahead of the merge-base.\n"
    assert target.read_bytes().decode() == retrieved + "\n" + drift
    retrieved2 = render_section(apply_floor([result(1, 0.1)]), "changed files (1)")
    write_section(target, retrieved2)
    assert target.read_bytes().decode() == retrieved2 + "\n" + drift
    write_section(target, "origin/main is 5 commits ahead of the merge-base.", heading=DRIFT_HEADING)
    assert target.read_bytes().decode() == retrieved2 + "\n## Base drift\n\norigin/main is 5 commits ahead of the merge-base.\n"
    write_section(target, None, heading=DRIFT_HEADING)
    assert target.read_bytes().decode() == retrieved2


def test_replace_section_text_rules():
    # Missing final newline is completed before appending; duplicates collapse into the first.
    assert replace_section("# T\nbody", "## X", "## X\nnew") == "# T\nbody\n\n## X\nnew\n"
    assert replace_section("", "## X", "## X\nnew\n\n\n") == "## X\nnew\n"
    dup = "## X\none\n\n## Y\ny\n\n## X\ntwo\n"
    assert replace_section(dup, "## X", "## X\nnew\n") == "## X\nnew\n\n## Y\ny\n\n"
    # A level-1 heading ends the section too; "### " does not.
    assert replace_section("## X\nold\n### sub\nold\n# Top\nt\n", "## X", "## X\nn\n") == "## X\nn\n\n# Top\nt\n"
    # An unclosed fence above our heading does not make us append a second copy.
    broken = "## A\n```\nunclosed\n\n## X\nold\n"
    assert replace_section(broken, "## X", "## X\nnew\n") == "## A\n```\nunclosed\n\n## X\nnew\n"
    assert replace_section("## A\na\n", "## X", None) == "## A\na\n"


def test_atomic_write_keeps_mode(tmp_path: Path):
    target = tmp_path / "session-context.md"
    target.write_text("## A\n", encoding="utf-8")
    os.chmod(target, 0o640)
    write_section(target, "## Retrieved context\nx\n")
    assert target.stat().st_mode & 0o777 == 0o640
    assert target.read_bytes().decode() == "## A\n\n## Retrieved context\nx\n"
