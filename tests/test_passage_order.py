"""Issue 19, the passage that answers: within a file, the chunk holding the question's words comes
first (search.signals.passage_order), not the doc comment of a type the question names; files keep
their places."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from conftest import build_index

from paqad.config import load_settings
from paqad.project import ProjectPaths
from paqad.search import load_embedder, search
from paqad.search.ablations import ablations

HERE = Path(__file__).resolve().parent
CACHE = '''"""A small in-memory cache with a size limit, used by the HTTP client to keep parsed responses."""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field


@dataclass
class Entry:
    """One cached value and when it was stored (seconds since the epoch)."""

    value: object
    stored_at: float = field(default_factory=time.time)


class LruCache:
    """Keeps at most ``capacity`` values, the least recently used one leaving first.

    Values older than ``max_age`` seconds are treated as missing. The cache is not thread-safe:
    callers that share one instance between threads hold their own lock around every call.
    Reading a value marks it as recently used; storing a value under an existing key replaces it
    and marks it as recently used too.
    """

    def __init__(self, capacity: int = 128, max_age: float = 300.0) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self.max_age = max_age
        self._entries: OrderedDict[str, Entry] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> object | None:
        entry = self._entries.get(key)
        if entry is None or time.time() - entry.stored_at > self.max_age:
            self.misses += 1
            self._entries.pop(key, None)
            return None
        self._entries.move_to_end(key)
        self.hits += 1
        return entry.value

    def put(self, key: str, value: object) -> None:
        self._entries[key] = Entry(value)
        self._entries.move_to_end(key)
        while len(self._entries) > self.capacity:
            self._drop_oldest()

    def _drop_oldest(self) -> None:
        # the first key of the ordered dict is the least recently used one
        oldest, _ = self._entries.popitem(last=False)
        if oldest.startswith("session:"):
            self.misses += 0
        return None

    def stats(self) -> dict[str, int]:
        return {"hits": self.hits, "misses": self.misses, "size": len(self._entries)}
'''
CLIENT = '''"""The HTTP client: sends requests and keeps parsed responses in a cache."""

from __future__ import annotations

import json
import urllib.request

from cache import LruCache


class Client:
    def __init__(self, base_url: str, cache_size: int = 64) -> None:
        self.base_url = base_url.rstrip("/")
        self.cache = LruCache(cache_size)

    def get_json(self, path: str) -> object:
        url = f"{self.base_url}/{path.lstrip('/')}"
        cached = self.cache.get(url)
        if cached is not None:
            return cached
        with urllib.request.urlopen(url, timeout=10) as response:
            value = json.loads(response.read().decode("utf-8"))
        self.cache.put(url, value)
        return value
'''


@pytest.fixture(scope="module")
def cache_project(tmp_path_factory, paqad_home):
    files = {"pyproject.toml": '[project]\nname = "shop"\nversion = "1"\n', "cache.py": CACHE, "client.py": CLIENT}
    return build_index(tmp_path_factory.mktemp("passage-order") / "shop", files, paqad_home)


def _top(project, query, config="default", n=5, **fields):
    paths = ProjectPaths(project)
    settings = load_settings(paths, environ={})
    embedder, _ = load_embedder(paths, settings)
    options = replace(ablations()[config], **fields)
    results = search(paths, settings, query, embedder=embedder, options=options, top_n=n).results
    return [(r.path, r.start_line, r.end_line) for r in results]


def test_a_where_question_naming_a_type_gets_the_method_that_does_it(cache_project):
    query = "when the LruCache is full, which entry is dropped to make room?"
    # round 8's named_type_trades (passage_choice) trades the same thin head: off for the "before"
    before = _top(cache_project, query, "no-passage-order", named_type_trades=False)
    after = _top(cache_project, query)
    assert _top(cache_project, query, "no-passage-order")[0] == after[0]
    assert before[0] == ("cache.py", 18, 25)  # the class line and its docstring (the named type's definition)
    assert after[0] == ("cache.py", 52, 57)  # _drop_oldest: popitem(last=False), the least recently used
    assert [p for p, _, _ in before] == [p for p, _, _ in after]  # the files keep their places
    assert sorted(before) == sorted(after)


def test_a_name_lookup_still_lands_on_the_definition(cache_project):
    assert _top(cache_project, "class LruCache", n=1)[0] == ("cache.py", 18, 25)
    assert _top(cache_project, "LruCache", n=1)[0] == ("cache.py", 18, 25)


def _bound_context(options, pool_hits: int):
    """Three candidates of src/app.hpp: id 3 is the best fused chunk (the dense side's find, outside
    the BM25 pool), ids 1 and 2 are in the pool with the rest of its ``pool_hits`` hits (other
    files, BM25 6.5); id 1's 6.0 is the pool's lowest."""
    from paqad.search.analysis import analyze
    from paqad.search.signals import RankingContext
    from paqad.store import ChunkRow

    def row(cid, path, start):
        return ChunkRow(path=path, start_line=start, end_line=start + 14, language="cpp", symbol=None,
                        kind="function", signature=None, text=f"int f{cid}() {{ return {cid}; }}\n", id=cid)

    rows = {1: row(1, "src/app.hpp", 1), 2: row(2, "src/app.hpp", 20), 3: row(3, "src/app.hpp", 40)}
    bm25 = {1: 6.0, 2: 7.0}
    for i in range(pool_hits - 2):
        rows[100 + i] = row(100 + i, f"src/other{i}.cpp", 1)
        bm25[100 + i] = 6.5
    context = RankingContext(info=analyze("the global verbose flag given after the subcommand is ignored"),
                             options=options, rows=rows, best=1.0, definitions=(), named_paths=frozenset(),
                             exempt=frozenset(), bm25=bm25)
    return context, {3: 1.0, 1: 0.5, 2: 0.3}


def test_a_chunk_outside_a_full_bm25_pool_is_ordered_by_the_pools_lowest_score():
    from paqad.search.ranking import POOL_SIZE
    from paqad.search.signals import passage_order

    context, scores = _bound_context(ablations()["default"], POOL_SIZE)
    # evidence = score share + 2 x BM25 share (the file's best BM25 is 7.0)
    assert passage_order.unknown_bm25(context) == 6.0
    assert passage_order.apply(scores, context) == {3: 1.0, 2: 0.5, 1: 0.3}  # 1 + 2 x 6/7, 0.3 + 2, 0.5 + 2 x 6/7
    off, _ = _bound_context(ablations()["no-bm25-bound"], POOL_SIZE)
    assert passage_order.apply(scores, off) == {2: 1.0, 1: 0.5, 3: 0.3}  # id 3: 1 + 0
    small, _ = _bound_context(ablations()["default"], 40)  # a pool that is not full holds every match
    assert passage_order.unknown_bm25(small) == 0.0
    assert passage_order.apply(scores, small) == {2: 1.0, 1: 0.5, 3: 0.3}
