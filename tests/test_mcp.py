"""``paqad-ai mcp``: started as a subprocess and driven with the MCP SDK's own stdio client."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import pytest
import paqad
from conftest import build_index, write_files
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from paqad.config import load_settings
from paqad.hosts.mcp_server import CodeSearch, confine_path_prefix
from paqad.project import ProjectPaths
from paqad.embed.factory import get_embedder
from paqad.search import search

PAQAD_AI = str(Path(sys.executable).parent / "paqad-ai")

FILES = {
    "pyproject.toml": '[project]\nname = "geo"\nversion = "1.0"\n',
    "src/geo/distance.py": (
        "import math\n\nEARTH_RADIUS_KM = 6371.0\n\n\n"
        "def haversine(lat1, lon1, lat2, lon2):\n"
        '    """Great-circle distance in kilometres between two points given in degrees."""\n'
        "    p1, p2 = math.radians(lat1), math.radians(lat2)\n"
        "    dp, dl = p2 - p1, math.radians(lon2 - lon1)\n"
        "    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2\n"
        "    return 2 * EARTH_RADIUS_KM * math.asin(math.sqrt(a))\n"
    ),
    "src/geo/cache.py": (
        "class TileCache:\n"
        '    """Least-recently-used cache of map tiles keyed by (zoom, x, y)."""\n\n'
        "    def __init__(self, capacity=256):\n"
        "        self.capacity = capacity\n"
        "        self.tiles = {}\n\n"
        "    def get(self, zoom, x, y):\n"
        "        return self.tiles.get((zoom, x, y))\n"
    ),
    "tests/test_distance.py": (
        "from geo.distance import haversine\n\n\n"
        "def test_paris_to_london_is_about_344_km():\n"
        "    assert round(haversine(48.8566, 2.3522, 51.5074, -0.1278)) == 344\n"
    ),
    "docs/usage.md": "# Usage\n\nCompute distances between coordinates with `haversine`, and cache map tiles with `TileCache`.\n",
}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, paqad_home: Path) -> Path:
    return build_index(tmp_path_factory.mktemp("mcp") / "geo", FILES, paqad_home)


def _hits(result) -> list[dict]:
    assert result.is_error is False, result.content
    data = result.structured_content
    hits = data["result"] if isinstance(data, dict) else data
    # The text content carries the same results as JSON (one block per result), for clients
    # without structured output.
    assert [json.loads(block.text) for block in result.content] == hits
    return hits


async def _session_calls(root: Path, calls: list[tuple[str, dict]]) -> tuple[list[str], list]:
    params = StdioServerParameters(command=PAQAD_AI, args=["mcp", "--project-root", str(root)], env=dict(os.environ), cwd="/")
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            info = getattr(init, "server_info", None) or getattr(init, "serverInfo")  # SDK 2.x / 1.x names
            assert (info.name, info.version) == ("paqad-ai", paqad.__version__)
            tools = await session.list_tools()
            results = [await session.call_tool(name, args) for name, args in calls]
    return sorted(t.name for t in tools.tools), results


def test_search_code_and_index_status_over_stdio(indexed: Path) -> None:
    paths = ProjectPaths(indexed)
    settings = load_settings(paths)
    query = "great-circle distance between two coordinates"
    expected = search(paths, settings, query, top_n=3, embedder=get_embedder(settings, paths)).results
    calls = [
        ("search_code", {"query": query, "top_k": 3}),
        ("search_code", {"query": "tile cache", "path_prefix": "src/geo/cache.py"}),
        ("search_code", {"query": "distance", "top_k": 2, "path_prefix": str(indexed / "tests")}),
        ("search_code", {"query": "distance", "path_prefix": "../outside"}),
        ("search_code", {"query": "distance", "path_prefix": "/etc"}),
        ("search_code", {"query": "distance", "top_k": 500}),
        ("index_status", {}),
    ]
    names, results = anyio.run(_session_calls, indexed, calls)
    assert names == ["index_status", "search_code"]

    top3 = _hits(results[0])
    assert top3 == [
        {"path": r.path, "start_line": r.start_line, "end_line": r.end_line, "symbol": r.symbol,
         "score": round(r.score, 4), "text": r.text}
        for r in expected
    ]
    assert top3[0]["path"] == "src/geo/distance.py" and top3[0]["symbol"] == "haversine"

    in_cache = _hits(results[1])
    assert in_cache and {h["path"] for h in in_cache} == {"src/geo/cache.py"}
    in_tests = _hits(results[2])
    assert [h["path"] for h in in_tests] == ["tests/test_distance.py"]

    for bad, message in ((results[3], f"path_prefix ../outside: outside the project {indexed}"),
                         (results[4], f"path_prefix /etc: outside the project {indexed}"),
                         (results[5], "top_k=500 must be from 1 to 50")):
        assert bad.is_error is True
        assert message in bad.content[0].text

    status = results[6]
    assert status.is_error is False
    data = status.structured_content
    index = data["index"]  # the same object as `rag status --json`
    assert index["present"] is True and index["valid"] is True and data["retrieval_enabled"] is True
    assert index["provider"] == "local" and index["model"] == "Xenova/all-MiniLM-L6-v2"
    assert (index["files"], index["chunks"], index["languages"]) == (4, 4, {"python": 3, "markdown": 1})
    assert data["project_root"] == str(indexed)
    assert index["size_bytes"] > 0 and index["stale_reasons"] == []


def test_no_index_is_a_tool_error(tmp_path: Path) -> None:
    write_files(tmp_path, {**FILES, ".paqad/.config": "rag_enabled=true\n"})
    _, results = anyio.run(_session_calls, tmp_path, [("search_code", {"query": "distance"}), ("index_status", {})])
    assert results[0].is_error is True
    assert "no index at .paqad/vectors/index.sqlite; run `paqad-ai rag init`" in results[0].content[0].text
    status = results[1].structured_content["index"]
    assert status["present"] is False and status["files"] == 0


def test_model_and_index_stay_loaded_between_calls(indexed: Path) -> None:
    engine = CodeSearch(ProjectPaths(indexed))
    first = engine.search("map tiles cache", 2)
    store, embedder = engine._store, engine._embedder
    second = engine.search("haversine", 2)
    assert engine._store is store and engine._embedder is embedder  # opened once, kept
    assert first[0].path == "src/geo/cache.py" and second[0].symbol == "haversine"
    engine.close()


def test_confine_path_prefix() -> None:
    root = Path("/p/root")
    assert confine_path_prefix(root, None) is None
    assert confine_path_prefix(root, "./") is None
    assert confine_path_prefix(root, "./src/api/") == "src/api"
    assert confine_path_prefix(root, "/p/root/src") == "src"
    assert confine_path_prefix(root, "src\\api") == "src/api"
    for bad in ("../x", "src/../../x", "/p/root/../etc", "/etc/passwd", "/p/rootsibling"):
        with pytest.raises(ValueError):
            confine_path_prefix(root, bad)
