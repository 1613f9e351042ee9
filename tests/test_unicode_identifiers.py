"""Identifiers in any script (paqad.index.tokens.NAME): `café_total`, `Größe`, `über_count`, `用户名`
are read as names by the query analysis and as whole tokens by the keyword index, on both sides
the same; ASCII text tokenizes exactly as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import build_index, first_result, holds, line_starting

from paqad.index.tokens import case_shape, identifier_parts, index_tokens, query_terms
from paqad.search.analysis import analyze
from paqad.search.priors import path_parts


def test_index_tokens_keep_non_ascii_letters_and_ascii_text_is_unchanged():
    assert index_tokens("def größe_berechnen(): café_total = 用户名") == [
        "def", "größe", "berechnen", "größeberechnen", "café", "total", "cafétotal", "用户名"]
    assert index_tokens("straßeÖffnen ÜberCount Élan") == [
        "straße", "öffnen", "straßeöffnen", "über", "count", "übercount", "élan"]
    # the ASCII rules, unchanged
    assert index_tokens("parseHTTPResponse_v2 x2 123abc _private") == [
        "parse", "http", "response", "v2", "parsehttpresponsev2", "x2", "123", "abc", "private"]
    assert identifier_parts("HTTPServerError") == ["http", "server", "error"]
    # a script written without spaces is a token of its own beside a Latin name, "_" joins nothing
    assert index_tokens("def get用户名(): 用户_名称 = 1") == ["def", "get", "用户名", "用户", "名称", "1"]


def test_case_shape_keeps_length_and_ascii():
    assert case_shape("GrößeBerechnen") == "GraaeBerechnen"
    assert case_shape("用户_名2") == "aa_a2"
    assert case_shape("a—b") == "a b"
    assert case_shape("plain_ascii") == "plain_ascii"


def test_query_terms_of_non_ascii_identifiers():
    assert query_terms("where is café_total computed") == ["café", "total", "cafétotal", "computed"]
    assert query_terms("Größe") == ["größe"]
    assert query_terms("über_count") == ["über", "count", "übercount"]
    assert query_terms("用户名在哪里") == ["用户名在哪里"]
    # written against CJK without a space: the Latin name is still its own term (it became
    # "安全cookie在哪里签名" when \w took every script, and "cookie" alone before)
    assert query_terms("安全cookie在哪里签名") == ["安全", "cookie", "在哪里签名"]


@pytest.mark.parametrize("query, kind, identifiers, words", [
    ("café_total", "symbol", ["café_total"], ("café", "total")),
    ("Größe", "symbol", ["Größe"], ("größe",)),
    ("über_count", "symbol", ["über_count"], ("über", "count")),
    ("Élan", "symbol", ["Élan"], ("élan",)),
    ("用户_名称", "symbol", ["用户_名称"], ()),
    ("wie wird straßeÖffnen aufgerufen", "prose", ["straßeÖffnen"], ("wie", "wird", "straßeöffnen", "aufgerufen")),
    ("where is `用户名` defined", "prose", ["用户名"], ("用户名", "defined")),
    ("how does mergeOptions treat arrays", "prose", ["mergeOptions"], ("mergeoptions", "treat", "arrays")),
    # a name written against Japanese: the name, not the whole run (main read it all as one symbol)
    ("IOLoop.call_laterはどこで定義されていますか", "prose", ["IOLoop.call_later"],
     ("ioloop", "call", "later", "はどこで定義されていますか")),
    ("get_signed_cookieの実装", "prose", ["get_signed_cookie"], ("signed", "cookie", "の実装")),
])
def test_analysis_reads_names_in_any_script(query, kind, identifiers, words):
    info = analyze(query)
    assert (info.kind, [i.text for i in info.identifiers], info.words) == (kind, identifiers, words)


def test_path_parts_in_any_script():
    assert path_parts("src/größe_rechner/StraßeÖffnen.py") == ("straße", "öffnen", "größe", "rechner")


KASSE = '''"""Die Kasse des Cafés."""


def café_total(bestellungen):
    """Die Summe aller Bestellungen eines Tisches."""
    return sum(b.preis * b.menge for b in bestellungen)


def größe_berechnen(breite, höhe):
    """Die Fläche eines Tisches aus Breite und Höhe."""
    return breite * höhe


def über_count(liste, grenze):
    """Wie viele Werte über der Grenze liegen."""
    return len([w for w in liste if w > grenze])
'''

USERS = '''def 用户名(用户):
    """返回用户的显示名称。"""
    return 用户.名字 or 用户.邮箱


def 注册(邮箱, 密码):
    """创建一个新用户并保存。"""
    return 保存(用户(邮箱=邮箱, 密码=密码))
'''

UTIL = '''def total(items):
    """The sum of the items' prices."""
    return sum(item.price for item in items)


def size(width, height):
    """The area of a rectangle."""
    return width * height


def count(values, limit):
    """How many values are over the limit."""
    return len([v for v in values if v > limit])
'''


@pytest.fixture(scope="module")
def unicode_project(tmp_path_factory: pytest.TempPathFactory, paqad_home: Path) -> Path:
    return build_index(tmp_path_factory.mktemp("unicode") / "p",
                       {"src/kasse.py": KASSE, "src/用户.py": USERS, "src/util.py": UTIL}, paqad_home)


@pytest.mark.parametrize("query, path, text, first_line", [
    ("café_total", "src/kasse.py", KASSE, "def café_total"),
    ("where is größe_berechnen defined", "src/kasse.py", KASSE, "def größe_berechnen"),
    ("über_count", "src/kasse.py", KASSE, "def über_count"),
    ("用户名", "src/用户.py", USERS, "def 用户名"),
    ("größe_berechnenはどこで定義されていますか", "src/kasse.py", KASSE, "def größe_berechnen"),
])
def test_non_ascii_names_find_their_definition(unicode_project: Path, query, path, text, first_line):
    assert holds(first_result(unicode_project, query), path, line_starting(text, first_line))


@pytest.mark.parametrize("query, found", [
    # before: no BM25 term at all (CJK was not a token)
    ("用户名", [("src/用户.py", None)]),  # the file is one chunk defining 用户名 and 注册
    # before: "ber", "count" and "bercount": util.count tied with it
    ("über_count", [("src/kasse.py", "über_count"), ("src/util.py", "count")]),
    ("größe_berechnen", [("src/kasse.py", "größe_berechnen")]),
])
def test_bm25_alone_finds_non_ascii_names(unicode_project: Path, query, found):
    from paqad.project import ProjectPaths
    from paqad.search.lexical import lexical_hits
    from paqad.store import open_store

    store = open_store(ProjectPaths(unicode_project), readonly=True)
    try:
        rows = [tuple(store.db.execute("SELECT path, symbol FROM chunks WHERE id = ?", (cid,)).fetchone())
                for cid, _ in lexical_hits(store, query, 5)]
    finally:
        store.close()
    assert rows == found
