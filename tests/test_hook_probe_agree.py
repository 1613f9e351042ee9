"""Issue 19: one prompt, one answer. The hook (a real process) and `rag probe` give the same
passages with the same match % in one index, in a project folder whose files shadow the standard
library (flask's package folder holds `typing.py`, `logging.py` and `json/`: the warm process and
the refresh, started there with `python -m`, died at import, so every prompt was answered by the
hook's cold process with keyword-only ratings). A keyword answer of a timing miss shows no match %.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ANSWER_BUDGET_MS, build_index, wait_for_warm

from paqad.config import load_settings
from paqad.deliver.answer import section_for_prompt
from paqad.hosts import warm
from paqad.hosts.prompt_hook import spawn_refresh
from paqad.project import ProjectPaths

PAQAD_AI = str(Path(sys.executable).parent / "paqad-ai")
# Written like flask's own: importing the standard library's `typing` from here fails.
SHADOWS = {
    "typing.py": "from __future__ import annotations\n\nimport typing as t\n\nif t.TYPE_CHECKING:  # pragma: no cover\n"
                 "    from .app import App\n\nResponseValue = t.Union[str, bytes, dict]\n",
    "logging.py": "from __future__ import annotations\n\nimport logging\nimport sys\n\n\ndef create_logger(app):\n"
                  '    """Get the app\'s logger and configure it if needed."""\n'
                  "    logger = logging.getLogger(app.name)\n    return logger\n",
}
FILES = {
    **SHADOWS,
    "pyproject.toml": '[project]\nname = "tinyweb"\nversion = "1.0"\n',
    "config.py": (
        "import os\n\n\nclass Config(dict):\n"
        '    """Settings of the app, loaded from files, objects or the environment."""\n\n'
        "    def from_envvar(self, variable_name):\n"
        '        """Load the settings from the file an environment variable names."""\n'
        "        path = os.environ.get(variable_name)\n"
        "        if not path:\n"
        '            raise RuntimeError(f"The environment variable {variable_name!r} is not set")\n'
        "        return self.from_pyfile(path)\n\n"
        "    def from_pyfile(self, filename):\n"
        "        namespace = {}\n"
        "        with open(filename, encoding='utf-8') as handle:\n"
        "            exec(compile(handle.read(), filename, 'exec'), namespace)\n"
        "        self.update({k: v for k, v in namespace.items() if k.isupper()})\n"
        "        return True\n"
    ),
    "sessions.py": (
        "import hashlib\nimport hmac\n\n\ndef sign_cookie(value, secret_key):\n"
        '    """Sign the session cookie value with HMAC-SHA256 so the client cannot change it."""\n'
        "    mac = hmac.new(secret_key.encode(), value.encode(), hashlib.sha256).hexdigest()\n"
        '    return f"{value}.{mac}"\n\n\ndef unsign_cookie(signed, secret_key):\n'
        '    value, _, mac = signed.rpartition(".")\n'
        "    if not hmac.compare_digest(sign_cookie(value, secret_key), signed):\n"
        '        raise ValueError("bad signature")\n    return value\n'
    ),
}
PROMPTS = ("where is the config loaded from an environment variable", "how is the session cookie signed")
HEADING = re.compile(r"^### (\S+?):L(\d+)-(\d+) .*?· match (\d+)%", re.M)


@pytest.fixture(scope="module")
def shadowing_project(tmp_path_factory, paqad_home):
    return ProjectPaths(build_index(tmp_path_factory.mktemp("agree") / "tinyweb", FILES, paqad_home))


def _wait_for_warm(paths: ProjectPaths, timeout: float = 90.0) -> None:
    wait_for_warm(paths, timeout)


def _hook_section(paths: ProjectPaths, prompt: str) -> str:
    payload = {"session_id": "s", "cwd": str(paths.root), "hook_event_name": "UserPromptSubmit", "prompt": prompt}
    env = {k: v for k, v in os.environ.items() if k != "PAQAD_RAG_WARM_PROCESS"}  # the default: on
    proc = subprocess.run([PAQAD_AI, "hook", "prompt", "--host", "claude"], input=json.dumps(payload).encode(),
                          capture_output=True, timeout=60, cwd=paths.root, env=dict(env, PAQAD_RAG_HOOK_BUDGET_MS=ANSWER_BUDGET_MS))
    assert proc.returncode == 0
    return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]


def _probe_rows(paths: ProjectPaths, prompt: str) -> list[dict]:
    proc = subprocess.run([PAQAD_AI, "rag", "probe", "--json", "--no-sync", "-n", "10", prompt],
                          capture_output=True, timeout=60, cwd=paths.root)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["results"]


def test_the_warm_process_and_the_refresh_start_in_a_folder_that_shadows_the_standard_library(shadowing_project):
    paths = shadowing_project
    refresh = spawn_refresh(paths.root)
    assert refresh.wait(timeout=120) == 0  # was 1: `import typing` found ./typing.py
    warm.start(paths)
    try:
        _wait_for_warm(paths)
    finally:
        warm.stop(paths)


def test_the_hook_and_probe_give_the_same_passages_with_the_same_match(shadowing_project):
    paths = shadowing_project
    warm.start(paths)
    try:
        _wait_for_warm(paths)
        for prompt in PROMPTS:
            hook = [(p, int(a), int(b), int(m)) for p, a, b, m in HEADING.findall(_hook_section(paths, prompt))]
            rows = _probe_rows(paths, prompt)
            assert hook, prompt
            for (path, start, end, match), row in zip(hook, rows):  # delivered = probe's first rows, in order
                assert path == row["path"] and row["start_line"] <= start <= end <= row["end_line"], (prompt, hook, rows)
                assert match == int(row["confidence"] * 100 + 0.5), (prompt, hook, rows)
        assert hook[0][0] == "sessions.py"
    finally:
        warm.stop(paths)


def test_a_keyword_answer_of_a_timing_miss_states_no_match(shadowing_project):
    """The dense side is out of time (deadline now): the keyword-only fit's rating, which the full
    search contradicts for 45 % of such passages on the benchmark's dev half, is not shown."""
    paths = shadowing_project
    section = section_for_prompt(paths, load_settings(paths), PROMPTS[1], time.monotonic())
    assert "Search degraded: semantic search did not finish within the hook's budget; keyword search only.\n" in section
    assert "Not rated: the best 2 keyword matches follow, without a match %" in section
    assert "### sessions.py:L1-8 · sign_cookie · keyword match, not rated\n" in section
    assert not re.search(r"\d%", section)  # no rating, no floor, anywhere in the section


def test_both_forms_of_the_module_command_ignore_the_working_folder(shadowing_project, monkeypatch):
    """-P (3.11+) and the -c stub (3.10) run our module in a folder whose typing.py would break it."""
    from paqad.hosts import module_command

    forms = [module_command.python_module_command("paqad.cli.main", "--help")]
    monkeypatch.setattr(module_command.sys, "version_info", (3, 10, 14))
    forms.append(module_command.python_module_command("paqad.cli.main", "--help"))
    assert forms[1][1] == "-c"
    for argv in forms:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=60, cwd=shadowing_project.root)
        assert proc.returncode == 0 and "Usage:" in proc.stdout, proc.stderr[-500:]
    plain = subprocess.run([sys.executable, "-m", "paqad.cli.main", "--help"], capture_output=True, text=True,
                           timeout=60, cwd=shadowing_project.root)
    assert plain.returncode == 1 and "typing" in plain.stderr  # what the hook used to start
