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


# --- Credentials written into project files (paqad.index.redact) ------------------------------

AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETKEY42"
STRIPE = "sk_live_51HqLyjSECRETsecret0000abcd"
PEM_BODY = "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2xsecretPEMbody"
CREDENTIAL_FILES = {
    "pyproject.toml": '[project]\nname = "shop"\n',
    "conf/credentials.yaml": f"region: eu-west-1\naws_access_key_id: AKIAIOSFODNN7SECRET1\naws_secret_access_key: {AWS_SECRET}\n",
    "src/shop/billing.py": (f'STRIPE_KEY = "{STRIPE}"\n\n\n'
                            'def charge(card, cents):\n    """Charge the card through the payment API."""\n'
                            '    return api.charge(card, cents, key=STRIPE_KEY)\n'),
    "conf/service-account.json": ('{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\n'
                                  f'{PEM_BODY}\\n-----END PRIVATE KEY-----\\n", "client_email": "ci@shop.iam"}}\n'),
    "tests/fixtures/server_key.md": (f"# Test key\n\n-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n{PEM_BODY}\n"
                                     "-----END RSA PRIVATE KEY-----\n\nUsed by the TLS tests.\n"),
}
SECRET_VALUES = (AWS_SECRET, "AKIAIOSFODNN7SECRET1", STRIPE, PEM_BODY)


def test_credentials_in_indexed_files_never_reach_the_chunks(tmp_path: Path) -> None:
    # Seen on a real project: credentials.yaml, a service account's JSON and a hard-coded Stripe
    # key were indexed, embedded and delivered to the agent (`rag probe "aws secret access key"`).
    from conftest import write_files

    from paqad.index.sync import chunk_project

    write_files(tmp_path, CREDENTIAL_FILES)
    chunks = chunk_project(tmp_path, max_file_size=1 << 20)
    texts = "\n".join(chunk.text for chunk in chunks)
    assert [value for value in SECRET_VALUES if value in texts] == []
    by_path = {chunk.path: chunk for chunk in chunks}
    assert "aws_secret_access_key: [redacted]" in by_path["conf/credentials.yaml"].text
    assert "region: eu-west-1" in by_path["conf/credentials.yaml"].text
    billing = [chunk for chunk in chunks if chunk.path == "src/shop/billing.py"]
    assert any(chunk.symbol == "charge" and "key=STRIPE_KEY" in chunk.text for chunk in billing)
    # Lines are kept: the fixture's text after the key is still on its own line (8 of the file).
    fixture = [chunk for chunk in chunks if chunk.path == "tests/fixtures/server_key.md"]
    last = max(fixture, key=lambda chunk: chunk.end_line)
    assert last.end_line == 8 and last.text.splitlines()[-1] == "Used by the TLS tests."


def test_grep_code_does_not_print_a_live_files_credentials(tmp_path: Path) -> None:
    from conftest import write_files

    from paqad.hosts.mcp_tools import compile_pattern, grep_files

    write_files(tmp_path, CREDENTIAL_FILES)
    matches, _, _ = grep_files(tmp_path, ["conf/credentials.yaml"], compile_pattern("aws_", False, False), 10)
    assert [(m.line, m.text) for m in matches] == [(2, "aws_access_key_id: [redacted]"),
                                                   (3, "aws_secret_access_key: [redacted]")]


@pytest.mark.parametrize("code", [
    'token = os.environ["GITHUB_TOKEN"]\n',
    "password = get_password(user)\n",
    "secret_key_length = 32\n",
    'if pem.startswith("-----BEGIN RSA PRIVATE KEY-----"):\n    return load(pem)\n',
    "api_key: str = DEFAULT_API_KEY_SETTING_NAME\n",
    # typed and short declarations (round 7) that hold no literal value
    "secretKey := generateKey32()\n",
    "let password: String = hash_v2(input)\n",
    'apiKey string = os.Getenv("API_KEY_V2_ABCDEFGH")\n',
    'let password_field_name2024: &str = "password";\n',
])
def test_code_that_only_handles_credentials_is_kept_as_written(code: str) -> None:
    from paqad.index.redact import redact_credentials

    assert redact_credentials(code) == code


TYPED_SECRET = "AbCdEfGhIjKlMnOpQrStUvWx123456"
TYPED_DECLARATIONS = {
    # Seen on a Rust project (newcomer round 7): `pub const API_SECRET_KEY: &str = "..."` was
    # indexed and printed by MCP grep_code as written. Each language's typed or short declaration.
    "Cargo.toml": '[package]\nname = "shop"\n',
    "src/config.rs": (f'pub const API_SECRET_KEY: &str = "{TYPED_SECRET}";\n'
                      f"static STRIPE_API_KEY: &'static str = \"{TYPED_SECRET}\";\n"
                      "pub fn api_secret_key() -> &'static str {\n    API_SECRET_KEY\n}\n"),
    "go.mod": "module example.com/shop\n\ngo 1.22\n",
    "config.go": (f'package shop\n\nconst apiSecretKey string = "{TYPED_SECRET}"\n\n'
                  f'func Password() string {{\n\tpassword := `{TYPED_SECRET}`\n\treturn password\n}}\n'),
    "package.json": '{"name": "shop"}\n',
    "src/config.ts": f'export const API_SECRET: string = "{TYPED_SECRET}";\nexport const region = "eu-west-1";\n',
    "Gemfile": 'source "https://rubygems.org"\n',
    "config.rb": f'CONFIG = {{\n  :password => "{TYPED_SECRET}",\n  :region => "eu-west-1",\n}}\n',
}


def test_typed_and_short_declarations_of_a_secret_are_redacted(tmp_path: Path) -> None:
    from conftest import write_files

    from paqad.index.sync import chunk_project

    write_files(tmp_path, TYPED_DECLARATIONS)
    chunks = chunk_project(tmp_path, max_file_size=1 << 20)
    lines = {(chunk.path, line) for chunk in chunks for line in chunk.text.splitlines()}
    assert [line for _, line in lines if TYPED_SECRET in line] == []
    assert {("src/config.rs", 'pub const API_SECRET_KEY: &str = "[redacted]";'),
            ("src/config.rs", "static STRIPE_API_KEY: &'static str = \"[redacted]\";"),
            ("src/config.rs", "    API_SECRET_KEY"),
            ("config.go", 'const apiSecretKey string = "[redacted]"'),
            ("config.go", "\tpassword := `[redacted]`"),
            ("src/config.ts", 'export const API_SECRET: string = "[redacted]";'),
            ("src/config.ts", 'export const region = "eu-west-1";'),
            ("config.rb", '  :password => "[redacted]",')} <= lines


URL_PASSWORD = "hunter2Prod0nly"
URL_CREDENTIALS = {
    # Seen on tornado (newcomer round 10): `DATABASE_URL = "postgresql://admin:<pw>@db...:5432/prod"`
    # was indexed, and the prompt hook delivered the line with the password to the agent, while the
    # API key on the line above was redacted.
    "pyproject.toml": '[project]\nname = "shop"\n',
    "src/shop/settings.py": (f'DATABASE_URL = "postgresql://admin:{URL_PASSWORD}@db.example.com:5432/prod"\n'
                             f"BROKER = 'amqp://shop:{URL_PASSWORD}@rabbit/vhost'\n"
                             'TEMPLATE = f"postgresql://{user}:{password}@{host}/db"\n'
                             'FROM_ENV = "redis://:${REDIS_PASSWORD}@cache:6379/0"\n'
                             'DOCS = "https://docs.example.com/a:b@c"\n'),
    "deploy/README.md": f"Clone with `git clone https://ci-bot:{URL_PASSWORD}@git.example.com/shop.git`.\n",
}


def test_a_password_in_a_url_is_redacted_and_templates_are_kept(tmp_path: Path) -> None:
    from conftest import write_files

    from paqad.index.sync import chunk_project

    write_files(tmp_path, URL_CREDENTIALS)
    chunks = chunk_project(tmp_path, max_file_size=1 << 20)
    lines = {line for chunk in chunks for line in chunk.text.splitlines()}
    assert [line for line in lines if URL_PASSWORD in line] == []
    assert {'DATABASE_URL = "postgresql://admin:[redacted]@db.example.com:5432/prod"',
            "BROKER = 'amqp://shop:[redacted]@rabbit/vhost'",
            'TEMPLATE = f"postgresql://{user}:{password}@{host}/db"',
            'FROM_ENV = "redis://:${REDIS_PASSWORD}@cache:6379/0"',
            'DOCS = "https://docs.example.com/a:b@c"',
            "Clone with `git clone https://ci-bot:[redacted]@git.example.com/shop.git`."} <= lines
