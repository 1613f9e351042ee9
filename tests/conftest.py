"""Shared fixtures: the offline model mirror, an isolated PAQAD_HOME, real git repositories, no
warm process unless a test asks for one, and no process left running when the session ends.

The tests run the real local model offline from a mirror (``DIR/<repo id>/...``) and assert exact
values measured with specific model files (``fixtures/model/MANIFEST.json``). The mirror is
``PAQAD_MODEL_MIRROR`` when set, else ``../shared/models`` (this repository's dev layout), else the
model store ``PAQAD_HOME/models`` when ``paqad-ai rag model pull`` filled it with those files.
Without one, the run stops before collection with one message saying what to set.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
MODEL_REPO = "Xenova/all-MiniLM-L6-v2"
MODEL_FIXTURES = Path(__file__).resolve().parent / "fixtures" / "model"
# rag_hook_budget_ms for a hook run whose answer (not its speed) a test asserts: on a CI machine
# shared with other jobs (load 8 on 2 cores was seen) the interpreter start and the model load
# alone passed 1.5 s and even 5 s. Latency against the budget is measured by bench/hook_latency.py.
ANSWER_BUDGET_MS = "30000"
MODEL_FILES: dict[str, dict] = json.loads((MODEL_FIXTURES / "MANIFEST.json").read_text(encoding="utf-8"))["files"]


def _recorded_sha256(folder: Path) -> dict[str, dict]:
    """sha256 and size per file as the folder records them: a mirror's MANIFEST.json, or the
    model store's marker (written by `rag model pull` / `import`), so no file is hashed."""
    for name in ("MANIFEST.json", ".paqad-verified.json"):
        try:
            files = json.loads((folder / name).read_text(encoding="utf-8"))["files"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if isinstance(files, dict):
            return files
    return {}


def mirror_problem(mirror: Path) -> str | None:
    """Why ``mirror`` cannot run the tests (a file missing or not the pinned one), or None."""
    folder = mirror / MODEL_REPO
    recorded = _recorded_sha256(folder)
    for rel, want in MODEL_FILES.items():
        path = folder / rel
        if not path.is_file():
            return f"{path} is missing"
        size = path.stat().st_size
        record = recorded.get(rel) or {}
        sha = record.get("sha256") if record.get("size") == size else None
        if not sha:
            digest = hashlib.sha256()
            with open(path, "rb") as handle:
                while block := handle.read(1 << 20):
                    digest.update(block)
            sha = digest.hexdigest()
        if (sha, size) != (want["sha256"], want["size"]):
            return (f"{path} is not the file the tests' exact values were measured with (sha256 {sha[:12]}…, "
                    f"{size} bytes; expected {want['sha256'][:12]}…, {want['size']} bytes)")
    return None


def _find_mirror() -> tuple[Path, str | None]:
    """The mirror to use, and None or the one message to stop the run with."""
    wanted = ", ".join(MODEL_FILES)
    what_to_set = (
        f"set PAQAD_MODEL_MIRROR=DIR where DIR/{MODEL_REPO}/ holds {wanted.rsplit(', ', 1)[0]} and "
        f"{wanted.rsplit(', ', 1)[1]} with the sha256 listed in tests/fixtures/model/MANIFEST.json: this repository's "
        "../shared/models, or a model store filled with `paqad-ai rag model pull` and `paqad-ai rag model pull "
        "--precision fp32` from such a mirror (then PAQAD_MODEL_MIRROR=~/.paqad/models)"
    )
    if os.environ.get("PAQAD_MODEL_MIRROR"):
        value = os.environ["PAQAD_MODEL_MIRROR"]
        candidates = [(f"PAQAD_MODEL_MIRROR={value}", Path(value).expanduser().resolve())]
    else:
        home = Path(os.environ.get("PAQAD_HOME") or Path.home() / ".paqad").expanduser()
        candidates = [("../shared/models", REPO_ROOT.parent / "shared" / "models"),
                      (f"model store {home / 'models'}", home / "models")]
    problems = []
    for label, mirror in candidates:
        problem = mirror_problem(mirror)
        if problem is None:
            return mirror, None
        problems.append(f"{label}: {problem}")
    return candidates[0][1], f"paqad-ai tests: no usable model mirror: {'; '.join(problems)}; {what_to_set}"


MODEL_MIRROR, MIRROR_PROBLEM = _find_mirror()


# The fast tier, `pytest -m "not model"`: modules whose tests never load the embedding model
# (no index build, no embedder, no hook or CLI run that searches). Every other test is marked
# `model` at collection; the fast tier needs no mirror, so the mirror check does not stop it.
NO_MODEL_MODULES = frozenset({
    "test_layout", "test_config", "test_chunking", "test_discover", "test_ignore_rules", "test_secrets",
    "test_floor", "test_intent", "test_evaldata", "test_bench_ranking_cli",
})
MODEL_TESTS_IN_THOSE = frozenset({"test_refresh_gives_a_session_command_the_nothing_form"})


def _fast_tier(config: pytest.Config) -> bool:
    return "not model" in (config.getoption("markexpr", "") or "")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "model: needs the embedding model (the mirror); deselect with -m 'not model'")
    if MIRROR_PROBLEM and not _fast_tier(config):
        pytest.exit(MIRROR_PROBLEM, returncode=pytest.ExitCode.USAGE_ERROR)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.stem not in NO_MODEL_MODULES or item.originalname in MODEL_TESTS_IN_THOSE:
            item.add_marker(pytest.mark.model)


def processes_under(folder: Path) -> list[int]:
    """This user's processes (not this one) started for ``folder``: the command line names a
    path in it, or the working directory is in it (warm processes, refreshes, MCP servers,
    host CLIs of the tests)."""
    found, me, prefix = [], os.getpid(), str(folder)
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            if os.stat(f"/proc/{entry}").st_uid != os.getuid():
                continue
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            cwd = os.readlink(f"/proc/{entry}/cwd")
        except OSError:
            continue  # gone, or not ours to read
        words = cmdline + " "
        if prefix + "/" in words or prefix + " " in words or cwd == prefix or cwd.startswith(prefix + "/"):
            found.append(int(entry))
    return found


@pytest.fixture(scope="session", autouse=True)
def _nothing_left_running(tmp_path_factory: pytest.TempPathFactory):
    """At the end of the session, stop every process a test started and left behind (a warm
    process idles 10 minutes; a host CLI's MCP server or a refresh may outlive its test)."""
    yield
    base = tmp_path_factory.getbasetemp()
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 2.0)):
        pids = processes_under(base)
        for pid in pids:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        end = time.monotonic() + wait
        while pids and time.monotonic() < end and processes_under(base):
            time.sleep(0.1)


@pytest.fixture(scope="session")
def paqad_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One model store for the whole session, so the model is copied from the mirror once."""
    return tmp_path_factory.mktemp("paqad-home")


# Variables by which the host CLIs (and our checks of them) find their user-level files, or that
# change whether they run hooks: never inherited by a test.
HOST_ENV = (
    "CODEX_HOME", "CLAUDE_CONFIG_DIR", "CLAUDE_PROJECT_DIR", "CLAUDE_CODE_SIMPLE", "CLAUDE_CODE_SAFE_MODE", "MCP_CONNECT_TIMEOUT_MS",
    "GEMINI_CLI_HOME", "GEMINI_CLI_TRUSTED_FOLDERS_PATH", "GEMINI_CLI_TRUST_WORKSPACE", "GEMINI_RESTRICTED_MODE",
    "GEMINI_PROJECT_DIR", "COPILOT_HOME", "COPILOT_ALLOW_ALL", "GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS",
)


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, paqad_home: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Point the product at the mirror and a temp home; drop any PAQAD_* or API keys the caller has.

    ``HOME`` is a fresh empty folder for every test, so nothing reads or writes the real ``~``
    (host settings, trust files, the hook launcher); system-wide host files are pointed away too.
    """
    for name in list(os.environ):
        if name.startswith("PAQAD_") or name in ("OPENAI_API_KEY", "VOYAGE_API_KEY", "OPENAI_BASE_URL", "VOYAGE_BASE_URL", *HOST_ENV):
            monkeypatch.delenv(name, raising=False)
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(home / "system-gemini-settings.json"))
    from paqad.hosts import checks

    monkeypatch.setattr(checks, "CLAUDE_MANAGED_DIR", home / "managed-claude-code")
    monkeypatch.setenv("PAQAD_HOME", str(paqad_home))
    monkeypatch.setenv("PAQAD_MODEL_MIRROR", str(MODEL_MIRROR))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # No warm process outliving a test (it idles 10 minutes); tests/test_warm.py turns it on and stops it.
    monkeypatch.setenv("PAQAD_RAG_WARM_PROCESS", "false")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "test@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "test@example.com")


@pytest.fixture
def fresh_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty PAQAD_HOME of this test's own, for tests that watch or break the model store
    (the session's shared one must stay intact)."""
    home = tmp_path / "home"
    monkeypatch.setenv("PAQAD_HOME", str(home))
    return home


def run_cli(*args: str, project: Path | None = None) -> tuple[int, str, str]:
    """Run the CLI in-process (``--project-root project`` appended when given): (exit code, stdout, stderr)."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from paqad.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([*args, *(["--project-root", str(project)] if project is not None else [])])
    return code, out.getvalue(), err.getvalue()


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` and return stdout (raises on failure)."""
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def write_files(root: Path, files: dict[str, str | bytes]) -> None:
    """Create ``files`` (project-relative path -> content) under ``root``."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


@pytest.fixture
def git_repo(tmp_path: Path):
    """A factory: ``git_repo({"a.py": "..."})`` makes a real git repository with one commit on main."""

    def make(files: dict[str, str | bytes], commit: bool = True, name: str = "proj") -> Path:
        root = tmp_path / name
        root.mkdir()
        git(root, "init", "-q", "-b", "main")
        write_files(root, files)
        if commit:
            git(root, "add", "-A")
            git(root, "commit", "-q", "-m", "initial")
        return root

    return make


@contextlib.contextmanager
def model_environment(paqad_home: Path):
    """The per-test environment (no caller's PAQAD_* variables, this PAQAD_HOME, the offline model
    mirror) for code that runs outside it: module-scoped fixtures."""
    with pytest.MonkeyPatch.context() as mp:
        for name in list(os.environ):
            if name.startswith("PAQAD_"):
                mp.delenv(name)
        mp.setenv("PAQAD_HOME", str(paqad_home))
        mp.setenv("PAQAD_MODEL_MIRROR", str(MODEL_MIRROR))
        mp.setenv("HF_HUB_OFFLINE", "1")
        yield mp


def build_index(root: Path, files: dict[str, str | bytes], paqad_home: Path) -> Path:
    """Make ``root`` a git repository holding ``files`` and build its index with ``rag init``.

    For module-scoped fixtures, which run outside the per-test environment above: sets the same
    environment for the duration of the build only.
    """
    from paqad.cli.main import main

    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    write_files(root, files)
    with model_environment(paqad_home):
        assert main(["rag", "init", "--provider", "local", "--yes", "--project-root", str(root)]) == 0
    return root


def ranked_files(root: Path, query: str, options=None) -> list[str]:
    """The distinct files of ``search``'s results for ``query`` in the index at ``root``, best
    first (``options``: a ``RankingOptions``, the default when None); the model must load."""
    from paqad.config import load_settings
    from paqad.project import ProjectPaths
    from paqad.search import RankingOptions, load_embedder, search

    paths = ProjectPaths(root)
    settings = load_settings(paths, environ={})
    embedder, why = load_embedder(paths, settings)
    assert why is None
    results = search(paths, settings, query, embedder=embedder, options=options or RankingOptions()).results
    return list(dict.fromkeys(r.path for r in results))


def first_result(root: Path, query: str, options=None) -> tuple[str, int, int]:
    """``(path, start line, end line)`` of ``search``'s first result for ``query`` in the index at
    ``root`` (``options``: a ``RankingOptions``, the default when None); the model must load."""
    from paqad.config import load_settings
    from paqad.project import ProjectPaths
    from paqad.search import RankingOptions, load_embedder, search

    paths = ProjectPaths(root)
    settings = load_settings(paths, environ={})
    embedder, why = load_embedder(paths, settings)
    assert why is None
    first = search(paths, settings, query, embedder=embedder, options=options or RankingOptions()).results[0]
    return first.path, first.start_line, first.end_line


def line_starting(text: str, prefix: str) -> int:
    """1-based number of the first line of ``text`` that starts with ``prefix``."""
    return next(i for i, line in enumerate(text.split("\n"), 1) if line.startswith(prefix))


def holds(found: tuple[str, int, int], path: str, line: int) -> bool:
    """Whether ``found`` (path, start, end) is ``path`` and its lines hold ``line``."""
    return found[0] == path and found[1] <= line <= found[2]


def wait_for_warm(paths, timeout: float = 90.0) -> None:
    """Until the project's warm process answers a prompt (it loads the model first); AssertionError after ``timeout`` s."""
    import time

    from paqad.hosts import warm

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            warm.ask(paths, "ping", time.monotonic() + 5.0)
            return
        except warm.Miss:
            time.sleep(0.1)
    raise AssertionError("no warm process came up")


# The prompt the shop project answers with src/shop/retry.py:L1-13 (with_retries).
SHOP_PROMPT = "how are failed calls retried with exponential backoff?"

# A small shop project (retry helper, login, cart, README): the prompt hook and dense-cost tests.
SHOP_FILES = {
    "pyproject.toml": '[project]\nname = "shop"\nversion = "1.0"\n',
    "src/shop/retry.py": (
        "import time\n\nMAX_RETRIES = 5\n\n\n"
        "def with_retries(fn, attempts=MAX_RETRIES, backoff=0.5):\n"
        '    """Call fn and retry it with exponential backoff when it raises TimeoutError."""\n'
        "    for attempt in range(attempts):\n"
        "        try:\n"
        "            return fn()\n"
        "        except TimeoutError:\n"
        "            time.sleep(backoff * 2 ** attempt)\n"
        '    raise TimeoutError("gave up after retries")\n'
    ),
    "src/shop/auth.py": (
        "def login(user, password):\n"
        '    """Check the password against the stored hash and start a session."""\n'
        "    if not verify_password(user, password):\n"
        '        raise PermissionError("bad credentials")\n'
        "    return start_session(user)\n\n\n"
        "def verify_password(user, password):\n"
        '    """Compare the hash of the given password with the user\'s stored hash."""\n'
        "    return hash_password(password) == user.password_hash\n"
    ),
    "src/shop/cart.py": (
        "class Cart:\n"
        '    """A shopping cart: items with quantities and a total price in cents."""\n\n'
        "    def __init__(self):\n"
        "        self.items = {}\n\n"
        "    def add(self, sku, quantity=1):\n"
        "        self.items[sku] = self.items.get(sku, 0) + quantity\n\n"
        "    def total(self, prices):\n"
        "        return sum(prices[sku] * n for sku, n in self.items.items())\n"
    ),
    "README.md": "# Shop\n\nA small web shop: carts, login and a retry helper for flaky payment calls.\n",
}


@pytest.fixture(scope="session")
def requests_project(tmp_path_factory: pytest.TempPathFactory, paqad_home: Path) -> Path:
    """An index of the installed ``requests`` package's ``.py`` files under ``src/requests/`` (a
    real project we did not write; skipped when requests is not installed), built once per session
    for the confidence tests that ask it questions (read only)."""
    requests = pytest.importorskip("requests")
    folder = Path(requests.__file__).parent
    files = {f"src/requests/{p.relative_to(folder).as_posix()}": p.read_text(encoding="utf-8")
             for p in sorted(folder.rglob("*.py"))}
    files["pyproject.toml"] = "[project]\nname = 'requests-copy'\nversion = '0'\n"
    return build_index(tmp_path_factory.mktemp("requests-copy") / "requests", files, paqad_home)
