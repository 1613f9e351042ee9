"""``paqad-ai mcp``: started as a subprocess and driven with the MCP SDK's own stdio client."""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
import paqad
from conftest import build_index, write_files
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from paqad.config import load_settings
from paqad.embed.factory import get_embedder
from paqad.hosts import HOSTS, mcp_server, tomltext
from paqad.hosts.installers import install_host
from paqad.hosts.mcp_server import CodeSearch, confine_path_prefix
from paqad.hosts.mcp_tools import Hit, SearchOutput, search_markdown
from paqad.project import ProjectPaths
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
    "notes/big.bin": b"\x00\x01binary",  # on disk, not indexed
}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, paqad_home: Path) -> Path:
    return build_index(tmp_path_factory.mktemp("mcp") / "geo", FILES, paqad_home)


def _ok(result) -> dict:
    assert result.is_error is False, result.content
    assert len(result.content) == 1 and result.content[0].type == "text"
    return result.structured_content


def _error(result) -> str:
    assert result.is_error is True
    return result.content[0].text


async def _session(root: Path, steps, env: dict | None = None, command: str = PAQAD_AI, args: list[str] | None = None):
    """Run ``steps(session)`` against ``paqad-ai mcp`` over stdio and return what it returns."""
    params = StdioServerParameters(command=command, args=args or ["mcp", "--project-root", str(root)],
                                   env=env or dict(os.environ), cwd=str(root) if args else "/")
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            info = getattr(init, "server_info", None) or getattr(init, "serverInfo")
            assert (info.name, info.version) == ("paqad-ai", paqad.__version__)
            return await steps(session)


def _calls(root: Path, calls: list[tuple[str, dict]], env: dict | None = None) -> tuple[list, list]:
    async def steps(session):
        tools = await session.list_tools()
        return tools.tools, [await session.call_tool(name, args) for name, args in calls]

    return anyio.run(_session, root, steps, env)


def test_tools_are_read_only_and_strict(indexed: Path) -> None:
    tools, _ = _calls(indexed, [])
    assert sorted(t.name for t in tools) == ["find_symbol", "grep_code", "index_status", "search_code"]
    for tool in tools:
        a = tool.annotations
        assert (a.read_only_hint, a.destructive_hint, a.idempotent_hint, a.open_world_hint) == (True, False, True, False)
        assert tool.input_schema["additionalProperties"] is False
    search_tool = next(t for t in tools if t.name == "search_code")
    assert set(search_tool.input_schema["properties"]) == {"query", "top_k", "path_prefix", "include", "exclude"}
    assert search_tool.output_schema["properties"]["results"]["type"] == "array"


def test_search_code_hits_carry_lines_scores_and_text(indexed: Path) -> None:
    paths = ProjectPaths(indexed)
    query = "great-circle distance between two coordinates"
    expected = search(paths, load_settings(paths), query, top_n=20, embedder=get_embedder(load_settings(paths), paths)).results[:3]
    _, results = _calls(indexed, [
        ("search_code", {"query": query, "top_k": 3}),
        ("search_code", {"query": "tile cache", "path_prefix": "src/geo/cache.py"}),
        ("search_code", {"query": "distance", "top_k": 2, "path_prefix": str(indexed / "tests")}),
        ("search_code", {"query": "distance", "include": ["*.md"]}),
        ("search_code", {"query": "distance", "exclude": ["tests/**", "docs/**"]}),
    ])
    data = _ok(results[0])
    assert data["degraded"] is None and data["index"].startswith("index up to date")
    assert [(h["path"], h["start_line"], h["end_line"], h["symbol"]) for h in data["results"]] == [
        (r.path, r.start_line, r.end_line, r.symbol) for r in expected]
    top = data["results"][0]
    assert (top["path"], top["symbol"], top["location"]) == ("src/geo/distance.py", "haversine", f"src/geo/distance.py:L{expected[0].start_line}-{expected[0].end_line}")
    assert top["cosine"] == round(expected[0].score, 4) and top["text"] == expected[0].text
    text = results[0].content[0].text
    assert text.startswith(f"3 results for {query!r}.\nIndex: index up to date")
    # Every hit: its lines, its symbol, its score (the confidence when calibrated, else the cosine, named so), the passage.
    for hit in data["results"]:
        label = f"match {int(hit['confidence'] * 100 + 0.5)}%" if hit["confidence"] is not None else \
            f"cosine {hit['cosine']:.2f} (similarity, not a calibrated confidence)"
        assert f"### {hit['location']}" + (f" · {hit['symbol']}" if hit["symbol"] else "") + f" · {label}\n" in text
    assert "def haversine(lat1, lon1, lat2, lon2):" in text and "```python\n" in text
    assert "\\n" not in text and '"path"' not in text  # Markdown, not escaped JSON

    assert {h["path"] for h in _ok(results[1])["results"]} == {"src/geo/cache.py"}
    assert [h["path"] for h in _ok(results[2])["results"]] == ["tests/test_distance.py"]
    assert {h["path"] for h in _ok(results[3])["results"]} == {"docs/usage.md"}
    assert {h["path"] for h in _ok(results[4])["results"]} <= {"src/geo/distance.py", "src/geo/cache.py", "pyproject.toml"}


def test_bad_arguments_are_rejected_with_one_clear_line(indexed: Path) -> None:
    _, results = _calls(indexed, [
        ("search_code", {"query": "distance", "topk": 3}),
        ("search_code", {"query": "distance", "top_k": "many"}),
        ("search_code", {"top_k": 3}),
        ("search_code", {"query": "distance", "path_prefix": "../outside"}),
        ("search_code", {"query": "distance", "path_prefix": "/etc"}),
        ("search_code", {"query": "distance", "top_k": 500}),
        ("search_code", {"query": "distance", "path_prefix": "src/missing"}),
        ("search_code", {"query": "distance", "path_prefix": "notes"}),
        ("search_code", {"query": "distance", "include": ["*.rs"]}),
        ("grep_code", {"pattern": "(unclosed", "regex": True}),
        ("grep_code", {"pattern": "x" * 100_000}),  # round 11: was echoed back whole (100 kB to the agent)
        ("index_status", {"verbose": True}),
        ("search_code", {"query": "   "}),
    ])
    messages = [_error(r) for r in results]
    assert messages == [
        "search_code: unknown argument 'topk'; it takes exclude, include, path_prefix, query, top_k",
        "search_code: bad arguments: top_k: Input should be a valid integer, unable to parse string as an integer",
        "search_code: bad arguments: query: Field required",
        f"search_code: path_prefix ../outside: outside the project {indexed}",
        f"search_code: path_prefix /etc: outside the project {indexed}",
        "search_code: top_k=500 must be from 1 to 50",
        "search_code: path_prefix 'src/missing' does not exist in the project",
        "search_code: path_prefix 'notes' exists but holds no indexed file (see `paqad-ai rag status --explain notes`)",
        "search_code: include ['*.rs'] / exclude [] leave no indexed file",
        "grep_code: pattern '(unclosed' is not a valid regular expression: missing ), unterminated subpattern at position 0",
        "grep_code: pattern is 100,000 characters; at most 1,000: grep for a distinctive part of it",
        "index_status: unknown argument 'verbose'; it takes no arguments",
        "search_code: query is empty",
    ]


def test_find_symbol_and_grep_code(indexed: Path) -> None:
    _, results = _calls(indexed, [
        ("find_symbol", {"name": "TileCache.get"}),
        ("find_symbol", {"name": "haversine"}),
        ("find_symbol", {"name": "tilecache"}),
        ("find_symbol", {"name": "NoSuchThing"}),
        ("grep_code", {"pattern": "haversine("}),
        ("grep_code", {"pattern": r"def \w+\(self", "regex": True, "include": ["src/**"]}),
        ("grep_code", {"pattern": "HAVERSINE", "case_sensitive": False, "max_results": 1}),
    ])
    get = _ok(results[0])
    assert get["exact"] is True and [(h["path"], h["symbol"]) for h in get["results"]] == [("src/geo/cache.py", "TileCache.get")]
    assert "### src/geo/cache.py:L" in results[0].content[0].text and "def get(self, zoom, x, y):" in results[0].content[0].text
    assert [(h["path"], h["symbol"]) for h in _ok(results[1])["results"]] == [("src/geo/distance.py", "haversine")]
    loose = _ok(results[2])
    assert loose["exact"] is False and [h["symbol"] for h in loose["results"]] == ["TileCache"]
    assert "(case-insensitive: no exact match)" in results[2].content[0].text
    assert _ok(results[3])["results"] == []
    grep = _ok(results[4])
    assert [(m["path"], m["line"]) for m in grep["matches"]] == [("src/geo/distance.py", 6), ("tests/test_distance.py", 5)]
    assert "src/geo/distance.py:\n  6: def haversine(lat1, lon1, lat2, lon2):" in results[4].content[0].text
    assert [m["text"] for m in _ok(results[5])["matches"]] == ["    def __init__(self, capacity=256):", "    def get(self, zoom, x, y):"]  # indentation kept
    capped = _ok(results[6])
    assert len(capped["matches"]) == 1 and capped["truncated"] is True


def test_fresh_results_after_an_edit_without_any_other_command(tmp_path: Path, paqad_home: Path) -> None:
    root = build_index(tmp_path / "geo", FILES, paqad_home)

    async def steps(session):
        before = await session.call_tool("find_symbol", {"name": "bearing"})
        (root / "src" / "geo" / "bearing.py").write_text(
            "import math\n\n\ndef bearing(lat1, lon1, lat2, lon2):\n"
            '    """Initial compass bearing in degrees from the first point towards the second."""\n'
            "    y = math.sin(math.radians(lon2 - lon1)) * math.cos(math.radians(lat2))\n"
            "    return math.degrees(math.atan2(y, 1.0)) % 360\n", encoding="utf-8")
        (root / "src" / "geo" / "cache.py").unlink()
        query = {"query": "initial compass bearing between two points", "top_k": 3}
        after = await session.call_tool("search_code", query)
        if _ok(after)["index"].startswith("sync of changed files still running"):  # a loaded machine: over 2 s
            await anyio.sleep(5)
            after = await session.call_tool("search_code", query)
        grep = await session.call_tool("grep_code", {"pattern": "TileCache"})
        return before, after, grep

    before, after, grep = anyio.run(_session, root, steps)
    assert _ok(before)["results"] == []
    data = _ok(after)
    assert data["index"].startswith(("synced 1 changed, 1 removed", "index up to date"))
    assert data["results"][0]["path"] == "src/geo/bearing.py" and data["results"][0]["symbol"] == "bearing"
    assert {m["path"] for m in _ok(grep)["matches"]} == {"docs/usage.md"}  # the deleted file is gone


def test_degraded_mode_is_stated_in_every_result(tmp_path: Path, paqad_home: Path) -> None:
    root = build_index(tmp_path / "geo", FILES, paqad_home)
    empty_home = tmp_path / "no-models"
    empty_home.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PAQAD_MODEL_MIRROR"}
    env["PAQAD_HOME"] = str(empty_home)  # no model in the store, none to fetch offline
    _, results = _calls(root, [("search_code", {"query": "haversine distance"}), ("search_code", {"query": "tile cache"}),
                               ("index_status", {})], env=env)
    for result in results[:2]:
        data = _ok(result)
        assert data["degraded"].startswith("semantic search unavailable (") and data["degraded"].endswith("keyword search only")
        assert data["index"] == "not synced (no embedding model to embed changed files); searched the index as last built"
        assert data["results"] and all(h["cosine"] is None for h in data["results"])
        text = result.content[0].text
        assert "\nDegraded: keyword search only, no semantic ranking (semantic search unavailable (" in text
        # the keyword-only calibration still gives each hit a confidence (no cosine without the model)
        assert all(h["confidence"] is not None for h in data["results"])
        assert text.count("· match ") == len(data["results"])
    assert _ok(results[0])["results"][0]["path"] == "src/geo/distance.py"
    assert results[2].structured_content["semantic_search"].startswith("unavailable: semantic search unavailable")


def test_a_sync_over_budget_goes_on_in_the_background(indexed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import paqad.build as build

    real = build.sync

    def slow_sync(*args, **kwargs):
        time.sleep(0.6)
        return real(*args, **kwargs)

    monkeypatch.setattr(build, "sync", slow_sync)
    engine = CodeSearch(ProjectPaths(indexed), sync_budget_s=0.05)
    first = engine.search("map tiles cache", 2)
    assert first.index.startswith("sync of changed files still running after 0.05s (it goes on in the background)")
    assert first.results[0].path == "src/geo/cache.py"  # answered from the last committed index
    time.sleep(0.8)
    engine.sync_budget_s = 5.0
    assert engine.search("haversine", 1).index.startswith("index up to date")
    engine.close()


def test_confidence_is_shown_when_calibrated() -> None:
    hit = dict(path="a.py", start_line=1, end_line=3, location="a.py:L1-3", symbol="f", language="python", text="def f():\n    pass\n")
    out = SearchOutput(query="q", degraded=None, index="index up to date", results=[
        Hit(**hit, confidence=0.8123, cosine=0.51), Hit(**{**hit, "symbol": None}, confidence=None, cosine=0.42)])
    text = search_markdown(out)
    assert "### a.py:L1-3 · f · match 81%\n```python\ndef f():\n    pass\n```" in text
    assert "### a.py:L1-3 · cosine 0.42 (similarity, not a calibrated confidence)\n" in text

    from paqad.search.results import SearchResult

    result = SearchResult("a.py", 1, 3, "f", "python", "x", 0.5, 1, 1, 1, confidence=0.9)
    assert mcp_server._hit(result, keyword_only=False).confidence == 0.9


def test_no_index_is_a_tool_error(tmp_path: Path) -> None:
    write_files(tmp_path, {**FILES, ".paqad/.config": "rag_enabled=true\n"})
    _, results = _calls(tmp_path, [("search_code", {"query": "distance"}), ("grep_code", {"pattern": "x"}), ("index_status", {})])
    assert _error(results[0]) == "search_code: no index at .paqad/vectors/index.sqlite; run `paqad-ai rag init` first"
    assert _error(results[1]) == "grep_code: no index at .paqad/vectors/index.sqlite; run `paqad-ai rag init` first"
    status = results[2].structured_content["index"]
    assert status["present"] is False and status["files"] == 0


def test_index_status(indexed: Path) -> None:
    _, results = _calls(indexed, [("index_status", {})])
    data = _ok(results[0])
    index = data["index"]  # the same object as `rag status --json`
    assert index["present"] is True and index["valid"] is True and data["retrieval_enabled"] is True
    assert (index["files"], index["chunks"], index["languages"]) == (4, 4, {"python": 3, "markdown": 1})
    assert data["project_root"] == str(indexed) and data["semantic_search"] == "available"


def test_the_mcp_entries_hooks_install_writes_start_the_server(tmp_path: Path, paqad_home: Path) -> None:
    root = build_index(tmp_path / "geo", FILES, paqad_home)
    for name in ("claude", "codex"):
        install_host(HOSTS[name], root, 1500, mcp=True)
    entry = json.loads((root / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["paqad"]
    toml_entry = tomltext.loads((root / ".codex" / "config.toml").read_text(encoding="utf-8"))["mcp_servers"]["paqad"]
    assert entry.pop("alwaysLoad") is True  # Claude Code only: wait for the server before the first turn
    assert toml_entry == {**entry, "env_vars": ["PAQAD_HOME", "PAQAD_MODEL_MIRROR", "HF_HUB_OFFLINE"]}
    assert entry["args"][-1].endswith("exec paqad-ai mcp --text-only")
    env = dict(os.environ, PATH="/usr/bin:/bin")  # not on PATH: found through the launcher, from the project folder

    async def steps(session):
        return await session.call_tool("search_code", {"query": "tile cache", "top_k": 1})

    result = anyio.run(lambda: _session(root, steps, env=env, command=shutil.which(entry["command"]) or entry["command"], args=entry["args"]))
    # --text-only: the Markdown alone (hosts such as Claude Code show the model the structured content when there is one).
    assert result.is_error is False and result.structured_content is None
    text = result.content[0].text
    assert text.startswith("1 result for 'tile cache'.") and "### src/geo/cache.py:L1-9 · TileCache · " in text


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


# --- the transport: malformed messages get a JSON-RPC error, and the server goes on ----------------


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}


def _reply(proc: subprocess.Popen, timeout: float = 60.0) -> dict:
    """The server's next line on stdout, parsed (fails instead of hanging when none comes)."""
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "no reply from paqad-ai mcp"
    line = proc.stdout.readline()
    assert line, "paqad-ai mcp closed its output"
    return json.loads(line)


def test_malformed_messages_get_json_rpc_errors_and_the_server_keeps_serving(indexed: Path) -> None:
    proc = subprocess.Popen([PAQAD_AI, "mcp", "--project-root", str(indexed)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, bufsize=1)
    try:
        def send(line: str) -> None:
            proc.stdin.write(line + "\n")
            proc.stdin.flush()

        send(json.dumps(INITIALIZE))
        assert _reply(proc)["id"] == 1
        send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        cases = [
            ("this is not json", -32700, None),
            ('{"jsonrpc": "2.0", "id": 7, "method": "tools/li', -32700, None),  # a truncated line
            (json.dumps({"jsonrpc": "2.0", "id": 8}), -32600, 8),  # no method
            (json.dumps({"jsonrpc": "2.0", "id": None, "method": "tools/list"}), -32600, None),
            (json.dumps([{"jsonrpc": "2.0", "id": 9, "method": "ping"}]), -32600, None),  # a batch
            (json.dumps({"jsonrpc": "1.0", "id": 10, "method": "ping"}), -32600, 10),
            (json.dumps({"jsonrpc": "2.0", "id": 11, "method": "ping", "params": 3}), -32600, 11),
        ]
        for line, code, request_id in cases:
            send(line)
            reply = _reply(proc)
            assert (reply["jsonrpc"], reply["id"], reply["error"]["code"]) == ("2.0", request_id, code), (line, reply)
            assert "result" not in reply
        send("")  # a blank line is skipped, not answered
        send(json.dumps({"jsonrpc": "2.0", "id": 12, "method": "tools/list"}))
        reply = _reply(proc)
        assert reply["id"] == 12 and "search_code" in {t["name"] for t in reply["result"]["tools"]}
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    stderr = proc.stderr.read()
    assert stderr.count("paqad-ai mcp: answered a malformed message with error") == len(cases), stderr
    assert "error -32700: Parse error: not JSON" in stderr and 'error -32600: Invalid Request: no "method"' in stderr
    assert proc.returncode == 0


def test_a_lone_surrogate_in_a_tool_argument_gets_an_answer(indexed: Path) -> None:
    # Valid JSON (`\ud800`, half an emoji): the SDK could not write the reply that echoes the query
    # and dropped it without a word; the client waited for ever.
    proc = subprocess.Popen([PAQAD_AI, "mcp", "--project-root", str(indexed)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, bufsize=1)
    try:
        for message in (INITIALIZE, {"jsonrpc": "2.0", "method": "notifications/initialized"}):
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
        assert _reply(proc)["id"] == 1
        proc.stdin.write('{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search_code", '
                         '"arguments": {"query": "\\ud800 retry with backoff"}}}\n')
        proc.stdin.flush()
        reply = _reply(proc)
        assert reply["id"] == 2 and reply["result"]["isError"] is False
        text = reply["result"]["content"][0]["text"]
        assert "for '\ufffd retry with backoff'." in text.splitlines()[0], text
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    assert proc.returncode == 0


def test_a_query_longer_than_a_prompt_is_searched_as_the_hook_searches_a_pasted_log(indexed: Path) -> None:
    # Round 10 (newcomer): a 400,000-character query of distinct words took `rag probe` 149 s; the
    # MCP server searched any length too. It searches what the hook would: head, tail, error lines.
    from paqad.deliver.query import MAX_PROMPT_CHARS

    words = " ".join(f"w{n:06x}" for n in range(60_000))
    query = "great-circle distance between two coordinates\n" + words + "\nValueError: haversine() got a str\n" + words
    _, results = _calls(indexed, [("search_code", {"query": query, "top_k": 1})])
    data = _ok(results[0])
    assert len(data["query"]) <= MAX_PROMPT_CHARS and "ValueError: haversine() got a str" in data["query"].splitlines()
    assert data["results"][0]["path"] == "src/geo/distance.py"


def test_a_project_folder_not_named_in_utf8_gets_every_answer(tmp_path: Path, paqad_home: Path) -> None:
    # Seen as a new user (round 11): in /work/tmp/proj_caf\xe9 (Latin-1 bytes), the answer naming
    # the project root (path_prefix outside it) never came (the SDK's writer could not serialise the
    # lone surrogate and the client waited for ever), and index_status said "Error executing tool".
    root = build_index(tmp_path / os.fsdecode(b"proj_caf\xe9"), FILES, paqad_home)
    _, results = _calls(root, [("search_code", {"query": "distance", "path_prefix": "../outside"}), ("index_status", {})])
    shown = str(tmp_path) + "/proj_caf\\xe9"
    assert _error(results[0]) == f"search_code: path_prefix ../outside: outside the project {shown}"
    assert results[1].is_error is False
    assert json.loads(results[1].content[0].text)["project_root"] == shown
