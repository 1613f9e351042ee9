"""Hybrid search: RRF arithmetic, code-aware BM25, prefix filter before the cut, signals."""

from __future__ import annotations

import pytest

from conftest import MODEL_MIRROR, write_files
from paqad.config import load_settings
from paqad.project import ProjectPaths
from paqad.embed.factory import get_embedder
from paqad.build import sync as sync_index
from paqad.index.tokens import identifier_parts, index_tokens, query_terms
from paqad.search import Pools, RankingOptions, ablations, is_code_like, rank, reciprocal_rank_fusion, search
from paqad.search.analysis import analyze
from paqad.store import open_store

FILES = {
    "pyproject.toml": "[project]\nname = 'shop'\nversion = '1.0'\ndescription = 'a shop used by search tests'\n",
    "shop/users.py": (
        '"""User accounts."""\n\n\n'
        "def getUserName(user_id: int) -> str:\n"
        '    """Look up the display name of a user by id."""\n'
        "    return USERS[user_id]['name']\n\n\n"
        "USERS = {1: {'name': 'Ada'}, 2: {'name': 'Grace'}}\n"
    ),
    "shop/cart.py": (
        '"""Shopping cart totals."""\n\n\n'
        "def cart_total(items: list[tuple[int, int]]) -> int:\n"
        '    """Sum price times quantity over the cart, in cents."""\n'
        "    return sum(price * qty for price, qty in items)\n"
    ),
    "shop/greeting.py": (
        '"""Greets people."""\n\nfrom shop.users import getUserName\n\n\n'
        "def greet(user_id: int) -> str:\n"
        '    """Say hello using the stored name."""\n'
        "    return 'Hello ' + getUserName(user_id)\n"
    ),
    "vendor_docs/cart.md": "# Cart\n\nThe cart total sums the price times the quantity of every line item, in cents.\n",
}


@pytest.fixture(scope="module")
def shop(tmp_path_factory, paqad_home):
    root = tmp_path_factory.mktemp("search") / "shop"
    write_files(root, FILES)
    paths = ProjectPaths(root)
    settings = load_settings(paths, environ={})
    with pytest.MonkeyPatch.context() as mp:  # the autouse env fixture is per test; a module fixture needs its own
        mp.setenv("PAQAD_HOME", str(paqad_home))
        mp.setenv("PAQAD_MODEL_MIRROR", str(MODEL_MIRROR))
        embedder = get_embedder(settings, paths)
        sync_index(paths, settings, embedder)
    return paths, settings, embedder


def test_reciprocal_rank_fusion_uses_k_60_and_one_based_ranks():
    scores = reciprocal_rank_fusion([[10, 20, 30], [20, 40]])
    assert scores == pytest.approx({10: 1 / 61, 20: 1 / 62 + 1 / 61, 30: 1 / 63, 40: 1 / 62})
    assert max(scores, key=scores.get) == 20


def test_code_aware_tokens():
    assert identifier_parts("parseHTTPResponse_v2") == ["parse", "http", "response", "v2"]
    assert index_tokens("getUserName") == ["get", "user", "name", "getusername"]
    assert index_tokens("get_user_name") == ["get", "user", "name", "getusername"]
    assert query_terms("where is get user name done") == ["user", "name", "done"]
    assert query_terms("getUserName") == ["get", "user", "name", "getusername"]
    assert is_code_like("getUserName") and is_code_like("cart_total()") and not is_code_like("how is the total summed")


@pytest.mark.parametrize("query", ["getUserName", "get_user_name", "get user name"])
def test_identifier_spellings_all_find_the_definition_first(shop, query):
    paths, settings, embedder = shop
    lexical = search(paths, settings, query, embedder=embedder, options=ablations()["bm25"]).results
    assert ("shop/users.py", "getUserName") in {(r.path, r.symbol) for r in lexical[:2]}
    hybrid = search(paths, settings, query, embedder=embedder).results
    assert (hybrid[0].path, hybrid[0].symbol, hybrid[0].fused_rank) == ("shop/users.py", "getUserName", 1)


def test_every_result_carries_its_cosine(shop):
    paths, settings, embedder = shop
    results = search(paths, settings, "sum of price times quantity", embedder=embedder).results
    q = embedder.embed_query("sum of price times quantity")
    with open_store(paths, readonly=True) as store:
        view = store.dense_view()
    cos = dict(zip(view.ids.tolist(), ((view.vectors.astype("float32") @ q) * view.scales).tolist()))
    assert [r.score for r in results] == pytest.approx([cos[r.chunk_id] for r in results], abs=1e-6)
    assert all(r.semantic for r in results)
    assert results[0].path in {"shop/cart.py", "vendor_docs/cart.md"}
    assert [r.fused_rank for r in results] == list(range(1, len(results) + 1))


def test_weighted_reciprocal_rank_fusion():
    scores = reciprocal_rank_fusion([[10, 20], [20]], weights=[0.5, 2.0])
    assert scores == pytest.approx({10: 0.5 / 61, 20: 0.5 / 62 + 2.0 / 61})
    assert reciprocal_rank_fusion([[10], [20]], weights=[1.0, 0.0]) == pytest.approx({10: 1 / 61})


def test_code_signal_lifts_code_over_prose_only_for_code_like_queries(shop):
    paths, settings, embedder = shop
    plain = RankingOptions(kind_weights=False, symbols=False, named_files=False, priors=False, path_words=False,
                           coherence=0.0, signals=frozenset(), lexical_weight=1.0)
    code = RankingOptions(**{**plain.__dict__, "signals": frozenset({"code"})})
    with open_store(paths, readonly=True) as store:
        ids = dict(store.db.execute("SELECT path, id FROM chunks WHERE path IN ('shop/cart.py', 'vendor_docs/cart.md')"))
        doc, code_id = ids["vendor_docs/cart.md"], ids["shop/cart.py"]

        def pools(query: str) -> Pools:
            return Pools(analyze(query), [doc, code_id], [doc, code_id], {doc: 0.5, code_id: 0.4}, {}, (), ())

        # RRF alone: doc 2/61 > code 2/62. With the code signal: code 1.2 * 2/62 = 0.0387 > 0.0328.
        assert [r.path for r in rank(store, pools("cart_total"), top_n=2, options=plain)] == ["vendor_docs/cart.md", "shop/cart.py"]
        assert [r.path for r in rank(store, pools("cart_total"), top_n=2, options=code)] == ["shop/cart.py", "vendor_docs/cart.md"]
        assert [r.path for r in rank(store, pools("how is the cart summed"), top_n=2, options=code)] == ["vendor_docs/cart.md", "shop/cart.py"]
        lifted = rank(store, pools("cart_total"), top_n=2, options=code)
        assert [(r.score, r.dense_rank, r.lexical_rank) for r in lifted] == [(0.4, 2, 2), (0.5, 1, 1)]


def test_path_prefix_is_applied_before_the_top_k_cut(shop):
    paths, settings, embedder = shop
    results = search(paths, settings, "getUserName", embedder=embedder, top_n=1, path_prefix="vendor_docs").results
    assert [r.path for r in results] == ["vendor_docs/cart.md"]
    results = search(paths, settings, "cart", embedder=embedder, path_prefix="shop/").results
    assert results and all(r.path.startswith("shop/") for r in results)


def test_top_n_cuts_the_fused_list(shop):
    paths, settings, embedder = shop
    assert len(search(paths, settings, "user", embedder=embedder, top_n=2).results) == 2


def test_keyword_expression_leaves_out_common_terms_on_large_indexes(shop, monkeypatch):
    from paqad.search import lexical as search_mod

    paths, _, _ = shop
    with open_store(paths, readonly=True) as store:
        assert store.chunk_count() == 5
        assert search_mod.keyword_expression(store, ["hello", "cart"]) == '"hello" OR "cart"'  # small: untouched
        monkeypatch.setattr(search_mod, "PRUNE_FROM_CHUNKS", 1)
        assert store.document_frequencies(["hello", "cart", "zebra"]) == {"hello": 1, "cart": 2, "zebra": 0}
        # 10% of 5 chunks: every term is common, so the two rarest must co-occur
        assert search_mod.keyword_expression(store, ["cart", "hello", "zebra"]) == '"hello" AND "cart"'
        monkeypatch.setattr(search_mod, "COMMON_TERM_FRACTION", 0.3)  # limit 1.5 chunks
        assert search_mod.keyword_expression(store, ["cart", "hello"]) == '"hello"'


def test_identical_chunks_in_two_files_are_shown_once(tmp_path):
    twin = "export function getISOWeek(date: Date): number {\n  return Math.ceil(dayOfYear(date) / 7);\n}\n"
    write_files(tmp_path, {
        "package.json": '{"name": "dates", "version": "1.0.0", "description": "date helpers for tests"}\n',
        "src/getISOWeek.d.ts": twin, "src/getISOWeek.d.mts": twin,
        "src/format.ts": "export function format(date: Date): string {\n  return date.toISOString().slice(0, 10);\n}\n",
    })  # fmt: skip
    paths = ProjectPaths(tmp_path)
    settings = load_settings(paths, environ={})
    embedder = get_embedder(settings, paths)
    sync_index(paths, settings, embedder)
    results = search(paths, settings, "getISOWeek", embedder=embedder).results
    texts = [r.text for r in results]
    assert len(texts) == len(set(texts))
    assert results[0].symbol == "getISOWeek" and results[0].path in {"src/getISOWeek.d.ts", "src/getISOWeek.d.mts"}
    assert [r.fused_rank for r in results] == list(range(1, len(results) + 1))


def test_a_long_blob_in_a_query_is_cut_to_its_first_256_characters():
    """A pasted base64 blob or minified line (100 kB, no space) took 25 s in the traceback
    patterns; runs over 256 characters keep their head, and the rest of the query still counts."""
    from paqad.search.analysis import MAX_TOKEN_CHARS, analyze

    info = analyze("why does " + "x" * 100_000 + " fail in sessions.py?")
    assert MAX_TOKEN_CHARS == 256 and max(map(len, info.text.split())) == 256
    assert info.paths == ("sessions.py",)
