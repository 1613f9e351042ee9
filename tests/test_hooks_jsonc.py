"""Minimal JSONC edits (paqad.hosts.jsonc_edit): exact texts for the edits ``hooks install`` and
``uninstall`` make, comments kept, and every result read back as Gemini CLI reads it."""

from __future__ import annotations

import json

import pytest

from paqad.hosts.jsonc_edit import JsoncEditError, apply
from paqad.hosts.jsonfile import strip_json_comments

TEXT = ('{\n  // my settings\n  "general": {\n    "vimMode": true // I like vim\n  },\n'
        '  "a": [1, 2, 3],\n  "theme": "dark" // last\n}\n')


def read(text: str) -> object:
    return json.loads(strip_json_comments(text))


def edit(text: str, new: dict) -> str:
    out = apply(text, new, "  ", read)
    assert read(out) == new
    return out


def test_unchanged_data_gives_the_same_text() -> None:
    assert edit(TEXT, read(TEXT)) is TEXT


def test_a_member_added_after_the_last_one_and_its_comment() -> None:
    out = edit(TEXT, {**read(TEXT), "mcpServers": {"paqad": {"args": ["mcp"]}}})
    assert out == TEXT.replace('  "theme": "dark" // last\n',
                               '  "theme": "dark", // last\n  "mcpServers": {\n    "paqad": {\n      "args": [\n        "mcp"\n'
                               '      ]\n    }\n  }\n')


def test_removed_members_take_their_comma_and_their_line_comment() -> None:
    assert edit(TEXT, {"general": {"vimMode": True}, "theme": "dark"}) == TEXT.replace('  "a": [1, 2, 3],\n', "")
    assert edit(TEXT, {"general": {"vimMode": True}, "a": [1, 2, 3]}) == TEXT.replace(
        '  "a": [1, 2, 3],\n  "theme": "dark" // last\n', '  "a": [1, 2, 3]\n')
    assert edit(TEXT, {}) == "{\n  // my settings\n}\n"


def test_one_line_arrays_stay_on_one_line() -> None:
    assert edit(TEXT, {**read(TEXT), "a": [1, 3]}) == TEXT.replace("[1, 2, 3]", "[1, 3]")
    assert edit(TEXT, {**read(TEXT), "a": [1, 2, 3, 4]}) == TEXT.replace("[1, 2, 3]", "[1, 2, 3, 4]")
    assert edit(TEXT, {**read(TEXT), "a": [0, 1, 2, 3]}) == TEXT.replace("[1, 2, 3]", "[\n    0,\n    1,\n    2,\n    3\n  ]")


def test_an_empty_object_with_a_comment_and_crlf_lines() -> None:
    assert edit("{\n  // nothing yet\n}\n", {"a": 1, "b": 2}) == '{\n  // nothing yet\n  "a": 1,\n  "b": 2\n}\n'
    crlf = TEXT.replace("\n", "\r\n")
    out = edit(crlf, {**read(TEXT), "general": {"vimMode": True, "k": 2}})
    assert out == crlf.replace('"vimMode": true // I like vim\r\n', '"vimMode": true, // I like vim\r\n    "k": 2\r\n')


def test_strings_holding_comment_marks_are_strings() -> None:
    text = '{\n  "url": "http://x/*y*/", // a link\n  "n": 1\n}\n'
    assert edit(text, {"url": "http://x/*y*/", "n": 2}) == text.replace('"n": 1', '"n": 2')


def test_text_that_is_not_jsonc_is_refused() -> None:
    with pytest.raises((JsoncEditError, ValueError)):
        apply('{"a": 1,, }', {"a": 2}, "  ", read)
