"""API keys: lookup order, the 0600 secrets file, prompts and redaction (DESIGN §4)."""

from __future__ import annotations

import logging
import os
import stat
import warnings
from pathlib import Path

import pytest

from paqad.errors import PaqadError
from paqad.project import ProjectPaths
from paqad.secrets import KEY_VARIABLES, KeyLookup, find_key, guard_sdk_logs, redact, require_key, store_key

KEY = "sk-proj-secretsTEST0123456789abcdef"
OTHER = "sk-proj-fromFILE9876543210fedcba"


@pytest.fixture
def paths(tmp_path: Path) -> ProjectPaths:
    return ProjectPaths(tmp_path / "proj")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def files_containing(root: Path, needle: str) -> list[str]:
    return sorted(
        p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()
    )


def test_key_variables():
    assert KEY_VARIABLES == {"openai": "OPENAI_API_KEY", "voyageai": "VOYAGE_API_KEY"}


def test_store_key_creates_0600_even_with_a_permissive_umask(paths):
    old_umask = os.umask(0)
    try:
        written = store_key(paths, "openai", KEY)
    finally:
        os.umask(old_umask)
    assert written == paths.secrets_file
    assert mode(written) == 0o600
    assert f"OPENAI_API_KEY={KEY}" in written.read_text().splitlines()
    assert "secrets.env" in paths.gitignore.read_text().splitlines()
    # The key is written to exactly one file, and no temp file is left behind.
    assert files_containing(paths.root, KEY) == [".paqad/secrets.env"]
    assert sorted(p.name for p in paths.paqad_dir.iterdir()) == [".gitignore", "secrets.env"]


def test_store_key_updates_in_place_keeping_other_lines(paths):
    paths.paqad_dir.mkdir(parents=True)
    paths.secrets_file.write_text("# my keys\nVOYAGE_API_KEY=pa-keep-me\nOPENAI_API_KEY=old\nEXTRA=1\n")
    os.chmod(paths.secrets_file, 0o600)
    store_key(paths, "openai", KEY)
    assert paths.secrets_file.read_text() == f"# my keys\nVOYAGE_API_KEY=pa-keep-me\nOPENAI_API_KEY={KEY}\nEXTRA=1\n"
    assert mode(paths.secrets_file) == 0o600


def test_store_key_keeps_a_stricter_mode_and_narrows_a_looser_one(paths):
    paths.paqad_dir.mkdir(parents=True)
    paths.secrets_file.write_text("OPENAI_API_KEY=old\n")
    os.chmod(paths.secrets_file, 0o400)
    store_key(paths, "openai", KEY)
    assert mode(paths.secrets_file) == 0o400
    assert paths.secrets_file.read_text() == f"OPENAI_API_KEY={KEY}\n"
    os.chmod(paths.secrets_file, 0o644)
    store_key(paths, "voyageai", "pa-abc")
    assert mode(paths.secrets_file) == 0o600
    assert paths.secrets_file.read_text() == f"OPENAI_API_KEY={KEY}\nVOYAGE_API_KEY=pa-abc\n"


def test_store_key_rejects_an_empty_or_multiline_key(paths):
    with pytest.raises(PaqadError, match="OPENAI_API_KEY: the key is empty or spans lines"):
        store_key(paths, "openai", "  ")
    with pytest.raises(PaqadError, match="spans lines"):
        store_key(paths, "openai", "abc\nEVIL=1")
    with pytest.raises(PaqadError, match="provider 'local' takes no API key"):
        store_key(paths, "local", KEY)


def test_environment_wins_over_the_file(paths):
    store_key(paths, "openai", OTHER)
    lookup = find_key(paths, "openai", environ={"OPENAI_API_KEY": KEY})
    assert lookup == KeyLookup("OPENAI_API_KEY", KEY, "environment")
    from_file = find_key(paths, "openai", environ={})
    assert from_file == KeyLookup("OPENAI_API_KEY", OTHER, ".paqad/secrets.env")
    # An empty environment variable counts as not set.
    assert find_key(paths, "openai", environ={"OPENAI_API_KEY": ""}).source == ".paqad/secrets.env"
    assert find_key(paths, "voyageai", environ={}) == KeyLookup("VOYAGE_API_KEY", None, None)


def test_find_key_reads_the_process_environment_by_default(paths, monkeypatch):
    monkeypatch.setenv("VOYAGE_API_KEY", "pa-env")
    assert find_key(paths, "voyageai") == KeyLookup("VOYAGE_API_KEY", "pa-env", "environment")


def test_secrets_file_accepts_export_quotes_and_comments(paths):
    paths.paqad_dir.mkdir(parents=True)
    paths.secrets_file.write_text(f'# comment\n\nexport OPENAI_API_KEY="{KEY}"\nVOYAGE_API_KEY=\'pa-q\'\n')
    os.chmod(paths.secrets_file, 0o600)
    assert find_key(paths, "openai", environ={}).value == KEY
    assert find_key(paths, "voyageai", environ={}).value == "pa-q"


def test_key_lookup_repr_hides_the_key(paths):
    lookup = find_key(paths, "openai", environ={"OPENAI_API_KEY": KEY})
    assert repr(lookup) == "KeyLookup(variable='OPENAI_API_KEY', source='environment')"


def test_looser_mode_is_warned_without_the_key(paths):
    store_key(paths, "openai", KEY)
    os.chmod(paths.secrets_file, 0o644)
    with pytest.warns(UserWarning) as record:
        lookup = find_key(paths, "openai", environ={})
    assert lookup.value == KEY
    [warning] = record
    message = str(warning.message)
    assert message == (
        f"{paths.secrets_file}: mode 0644 lets other users read your API key; run: chmod 600 {paths.secrets_file}"
    )
    assert KEY not in message


def test_mode_0600_is_not_warned(paths):
    store_key(paths, "openai", KEY)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert find_key(paths, "openai", environ={}).value == KEY


def test_require_key_without_a_terminal_names_variable_and_file(paths):
    with pytest.raises(PaqadError) as info:
        require_key(paths, "voyageai", interactive=False)
    assert str(info.value) == (
        "VOYAGE_API_KEY is not set: export it or put VOYAGE_API_KEY=... in .paqad/secrets.env (mode 0600)"
    )
    assert not paths.secrets_file.exists()


def test_require_key_returns_a_found_key_without_prompting(paths, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setattr("getpass.getpass", lambda prompt="": pytest.fail("must not prompt"))
    assert require_key(paths, "openai", interactive=True) == KEY


def test_require_key_on_a_terminal_asks_hidden_and_stores_0600(paths, monkeypatch, capsys):
    prompts: list[str] = []

    def fake_getpass(prompt: str = "") -> str:  # stands in for the user typing on a TTY
        prompts.append(prompt)
        return f"  {KEY}\n"

    monkeypatch.setattr("getpass.getpass", fake_getpass)
    assert require_key(paths, "openai", interactive=True) == KEY
    assert prompts == ["OPENAI_API_KEY (input hidden; saved to .paqad/secrets.env, mode 0600): "]
    assert mode(paths.secrets_file) == 0o600
    assert find_key(paths, "openai", environ={}) == KeyLookup("OPENAI_API_KEY", KEY, ".paqad/secrets.env")
    out, err = capsys.readouterr()
    assert err == "saved OPENAI_API_KEY to .paqad/secrets.env (mode 0600)\n"
    assert out == ""
    assert KEY not in out + err


def test_require_key_on_a_terminal_with_an_empty_answer_fails(paths, monkeypatch):
    monkeypatch.setattr("getpass.getpass", lambda prompt="": "")
    with pytest.raises(PaqadError, match=r"^OPENAI_API_KEY is not set"):
        require_key(paths, "openai", interactive=True)
    assert not paths.secrets_file.exists()


def test_redact_replaces_every_secret_longest_first():
    assert redact(f"key={KEY}; again {KEY}", [KEY]) == "key=[redacted]; again [redacted]"
    assert redact("abc-123 and abc", ["abc", "abc-123", "", None]) == "[redacted] and [redacted]"
    assert redact("nothing here", []) == "nothing here"


def test_sdk_log_records_are_scrubbed(caplog):
    caplog.set_level(logging.DEBUG)
    secret = "pa-only-in-this-test-0123456789"
    guard_sdk_logs(secret)
    logging.getLogger("voyage").info("error_message='bad key %s'", secret)
    logging.getLogger("openai._base_client").debug("headers: Authorization: Bearer %s", secret)
    assert [r.getMessage() for r in caplog.records] == [
        "error_message='bad key [redacted]'",
        "headers: Authorization: Bearer [redacted]",
    ]
