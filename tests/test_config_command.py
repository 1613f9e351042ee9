"""`paqad-ai config list|get|set|unset` (round 8, a new user): every key's help text was written
in config.py and shown by no command; a key could be changed only by editing .paqad/.config."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli

from paqad.config import KEYS


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "proj ü"  # a path with a space and non-ASCII, as a user's may be
    (root / ".git").mkdir(parents=True)
    return root


def test_config_help_lists_every_key_with_its_default_and_help(tmp_path: Path) -> None:
    code, out, err = run_cli("config", "--help")
    assert (code, err) == (0, "")
    joined = " ".join(out.split())
    for key in KEYS.values():
        assert " ".join(key.help.split()) in joined, key.name
    assert "rag_top_n (20): fused results considered per query" in joined
    assert "rag_embedding_model (the provider's):" in joined
    assert "rag_enabled (false):" in joined


def test_config_list_shows_value_source_allowed_values_and_help(tmp_path: Path, monkeypatch) -> None:
    root = _project(tmp_path)
    monkeypatch.setenv("PAQAD_RAG_HOOK_BUDGET_MS", "900")
    code, out, err = run_cli("config", "list", project=root)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert len(lines) == 3 * len(KEYS)
    at = lines.index("rag_hook_budget_ms = 900   [env PAQAD_RAG_HOOK_BUDGET_MS]")
    assert lines[at + 1] == f"    {KEYS['rag_hook_budget_ms'].help}"
    assert lines[at + 2] == "    allowed: an integer from 50 to 60000; default: 1500"
    assert "rag_team_store = (empty)   [default]" in lines
    code, out, _ = run_cli("config", "list", "--json", project=root)
    data = {item["name"]: item for item in json.loads(out)}
    assert list(data) == list(KEYS)
    assert data["rag_max_file_size"] == {"name": "rag_max_file_size", "value": "1048576", "source": "default",
                                         "default": "1048576", "allowed": "an integer from 1 to 104857600",
                                         "help": KEYS["rag_max_file_size"].help}


def test_config_set_checks_the_value_and_writes_the_local_file(tmp_path: Path) -> None:
    root = _project(tmp_path)
    config = root / ".paqad" / ".config"
    assert run_cli("config", "set", "rag_top_n", "7", project=root) == (0, "rag_top_n=7 written to .paqad/.config\n", "")
    assert run_cli("config", "get", "rag_top_n", project=root) == (0, "7\n", "")
    assert "rag_top_n=7" in config.read_text(encoding="utf-8").splitlines()
    before = config.read_text(encoding="utf-8")
    assert run_cli("config", "set", "rag_topn", "5", project=root) == (
        2, "", "paqad-ai: error: rag_topn: no such config key; did you mean rag_top_n?\n")
    assert run_cli("config", "set", "rag_top_n", "0", project=root) == (
        2, "", "paqad-ai: error: rag_top_n='0' is not valid; allowed: an integer from 1 to 200\n")
    # a value the other settings refuse is not written: the file stays as it was
    assert run_cli("config", "set", "rag_relief_floor", "0.9", project=root) == (
        2, "", "paqad-ai: error: .paqad/.config: rag_relief_floor=0.9 is above rag_similarity_threshold=0.75; "
               "allowed: at most the threshold\n")
    assert config.read_text(encoding="utf-8") == before


def test_config_set_warns_when_the_environment_wins(tmp_path: Path, monkeypatch) -> None:
    root = _project(tmp_path)
    monkeypatch.setenv("PAQAD_RAG_TOP_N", "3")
    assert run_cli("config", "set", "rag_top_n", "8", project=root) == (
        0, "rag_top_n=8 written to .paqad/.config\n",
        "paqad-ai: warning: PAQAD_RAG_TOP_N is set and wins over .paqad/.config (now rag_top_n=3)\n")


def test_config_unset_removes_only_that_key(tmp_path: Path) -> None:
    root = _project(tmp_path)
    config = root / ".paqad" / ".config"
    config.parent.mkdir()
    config.write_text("# mine\nrag_top_n=9\nrag_hook_budget_ms=900\n", encoding="utf-8")
    assert run_cli("config", "unset", "rag_top_n", project=root) == (
        0, "rag_top_n: removed from .paqad/.config; now 20 [default]\n", "")
    assert config.read_text(encoding="utf-8") == "# mine\nrag_hook_budget_ms=900\n"
    assert run_cli("config", "unset", "rag_top_n", project=root) == (
        0, "rag_top_n: not set in .paqad/.config; now 20 [default]\n", "")
    assert run_cli("config", "get", "rag_nope", project=root) == (
        2, "", "paqad-ai: error: rag_nope: no such config key; did you mean rag_top_n?\n")


def test_config_set_never_writes_a_team_store_password(tmp_path: Path) -> None:
    root = _project(tmp_path)
    assert run_cli("config", "set", "rag_team_store", "postgresql://dev:s3cret@db:5432/paqad", project=root) == (
        2, "", "paqad-ai: error: .paqad/.config: rag_team_store holds a password; remove it from the URL and put "
               "PAQAD_TEAM_STORE_PASSWORD=... in .paqad/secrets.env (mode 0600) or the environment\n")
    assert not (root / ".paqad" / ".config").exists()  # refused before anything was written


def test_config_set_before_any_init_keeps_the_local_file_out_of_git(tmp_path: Path) -> None:
    import subprocess

    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    assert run_cli("config", "set", "rag_hook_budget_ms", "900", project=root)[0] == 0
    ignored = subprocess.run(["git", "check-ignore", ".paqad/.config"], cwd=root, capture_output=True, text=True)
    assert (ignored.returncode, ignored.stdout) == (0, ".paqad/.config\n")


def test_config_set_of_an_embedding_setting_says_the_index_is_stale(git_repo) -> None:
    root = git_repo({"pyproject.toml": '[project]\nname = "calc"\nversion = "1.0"\n',
                     "calc.py": 'def add_numbers(a, b):\n    """Add two numbers and return the sum of both values."""\n'
                                "    return a + b\n"})
    assert run_cli("rag", "init", "--provider", "local", project=root)[0] == 0
    assert run_cli("config", "set", "rag_top_n", "7", project=root) == (0, "rag_top_n=7 written to .paqad/.config\n", "")
    assert run_cli("config", "set", "rag_embedding_precision", "fp32", project=root) == (
        0, "rag_embedding_precision=fp32 written to .paqad/.config\n",
        "paqad-ai: warning: the index is stale (model precision changed: index has int8, settings want fp32); "
        "run `paqad-ai rag rebuild`\n")
    code, _, err = run_cli("rag", "probe", "add numbers", project=root)
    assert code == 2 and "run `paqad-ai rag rebuild`" in err
    assert run_cli("config", "unset", "rag_embedding_precision", project=root)[0] == 0
    assert run_cli("rag", "probe", "add numbers", project=root)[0] == 0


def test_config_is_also_under_rag(tmp_path: Path) -> None:
    root = _project(tmp_path)
    assert run_cli("rag", "config", "get", "rag_top_n", project=root) == (0, "20\n", "")
    assert run_cli("rag", "config", "set", "rag_top_n", "x", project=root) == (
        2, "", "paqad-ai: error: rag_top_n='x' is not valid; allowed: an integer from 1 to 200\n")


def test_a_config_file_that_is_not_utf8_is_one_line_naming_the_line_and_nothing_is_written(tmp_path: Path) -> None:
    # Seen as a new user (round 11): `config set` and `config unset` on a .paqad/.config holding a
    # Latin-1 byte said "internal error (a bug in paqad-ai ...): UnicodeDecodeError", exit 1; `config
    # list` named byte offset 27 rather than the line.
    root = _project(tmp_path)
    config = root / ".paqad" / ".config"
    config.parent.mkdir()
    config.write_bytes(b"rag_enabled=true\nrag_top_n=5 # caf\xe9\n")
    said = f"paqad-ai: error: {config}: line 2 is not UTF-8 text (byte 0xe9); rewrite that line in UTF-8 or delete it\n"
    for args in (("config", "set", "rag_top_n", "7"), ("config", "unset", "rag_top_n"), ("config", "list")):
        assert run_cli(*args, project=root) == (2, "", said), args
    assert config.read_bytes() == b"rag_enabled=true\nrag_top_n=5 # caf\xe9\n"


def test_a_paqad_gitignore_that_is_not_utf8_is_kept_byte_for_byte_and_completed(tmp_path: Path) -> None:
    root = _project(tmp_path)
    ignore = root / ".paqad" / ".gitignore"
    ignore.parent.mkdir()
    ignore.write_bytes(b"# caf\xe9\nvectors/\n")
    assert run_cli("config", "set", "rag_top_n", "7", project=root)[0] == 0
    assert ignore.read_bytes() == b"# caf\xe9\nvectors/\nsecrets.env\n.config\ncontext/\nlogs/\nstate/\n"


def test_a_negative_value_is_judged_by_the_key_not_taken_for_an_option(tmp_path: Path) -> None:
    # round 11: `config set rag_top_n -3` said "No such option '-3'"
    root = _project(tmp_path)
    assert run_cli("config", "set", "rag_top_n", "-3", project=root) == (
        2, "", "paqad-ai: error: rag_top_n='-3' is not valid; allowed: an integer from 1 to 200\n")
    assert not (root / ".paqad" / ".config").exists()


def test_a_new_provider_brings_its_model_when_the_file_names_another_provider_s(tmp_path: Path) -> None:
    # round 11: `config set rag_embedding_provider openai` after a local init kept
    # rag_embedding_model=Xenova/all-MiniLM-L6-v2 in .paqad/.config, which OpenAI does not serve
    root = _project(tmp_path)
    config = root / ".paqad" / ".config"
    config.parent.mkdir()
    config.write_text("rag_enabled=true\nrag_embedding_provider=local\nrag_embedding_model=Xenova/all-MiniLM-L6-v2\n")
    assert run_cli("config", "set", "rag_embedding_provider", "openai", project=root) == (0, (
        "rag_embedding_provider=openai written to .paqad/.config\n"
        "rag_embedding_model=text-embedding-3-small written too (openai does not serve Xenova/all-MiniLM-L6-v2; "
        "`paqad-ai config set rag_embedding_model ID` for another)\n"), "")
    assert config.read_text() == "rag_enabled=true\nrag_embedding_provider=openai\nrag_embedding_model=text-embedding-3-small\n"
    # a model of the provider in force is kept; one of another provider is refused, nothing written
    assert run_cli("config", "set", "rag_embedding_model", "text-embedding-3-large", project=root)[0] == 0
    assert run_cli("config", "set", "rag_embedding_model", "voyage-code-3", project=root) == (2, "", (
        "paqad-ai: error: rag_embedding_model=voyage-code-3 is a voyageai model and rag_embedding_provider is openai; "
        "run `paqad-ai config set rag_embedding_provider voyageai` first\n"))
    assert run_cli("config", "set", "rag_embedding_provider", "openai", project=root)[1] == (
        "rag_embedding_provider=openai written to .paqad/.config\n")
    assert config.read_text() == "rag_enabled=true\nrag_embedding_provider=openai\nrag_embedding_model=text-embedding-3-large\n"
