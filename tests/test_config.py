"""Configuration: defaults, precedence, validation, writing .paqad/.config."""

from __future__ import annotations

import pytest

from paqad.config import ensure_paqad_gitignore, load_settings, write_local_values
from paqad.errors import ConfigError
from paqad.project import ProjectPaths, find_project_root
from conftest import write_files


def test_defaults_when_nothing_is_configured(tmp_path):
    s = load_settings(tmp_path, environ={})
    assert (s.rag_enabled, s.rag_embedding_provider, s.rag_embedding_model) == (False, "local", "Xenova/all-MiniLM-L6-v2")
    assert (s.rag_similarity_threshold, s.rag_relief_floor, s.rag_top_n) == (0.75, 0.35, 20)
    assert (s.rag_max_file_size, s.rag_hook_budget_ms) == (1048576, 1500)
    assert s.sources["rag_top_n"] == "default"
    assert s.sources["rag_embedding_model"] == "default for provider local"
    assert s.embedding_dimension == 384


def test_precedence_env_over_local_over_team_files(tmp_path):
    write_files(tmp_path, {
        ".paqad/configs/.config.base": "rag_top_n=10\nrag_relief_floor=0.3\nrag_max_file_size=1000\n",
        ".paqad/configs/.config.zz": "rag_max_file_size=2000  # later team file wins\n",
        ".paqad/.config": "# local\nrag_top_n=15\nrag_enabled=true\n",
    })
    s = load_settings(tmp_path, environ={"PAQAD_RAG_TOP_N": "7"})
    assert s.rag_top_n == 7 and s.sources["rag_top_n"] == "env PAQAD_RAG_TOP_N"
    assert s.rag_enabled is True and s.sources["rag_enabled"] == ".paqad/.config"
    assert s.rag_relief_floor == 0.3 and s.sources["rag_relief_floor"] == ".paqad/configs/.config.base"
    assert s.rag_max_file_size == 2000 and s.sources["rag_max_file_size"] == ".paqad/configs/.config.zz"


def test_provider_default_model_follows_provider(tmp_path):
    write_files(tmp_path, {".paqad/.config": "rag_embedding_provider=voyageai\n"})
    s = load_settings(tmp_path, environ={})
    assert s.rag_embedding_model == "voyage-code-3" and s.embedding_dimension == 1024


@pytest.mark.parametrize(
    "line, message",
    [
        ("rag_top_n=0", ".paqad/.config: rag_top_n='0' is not valid; allowed: an integer from 1 to 200"),
        ("rag_similarity_threshold=1.5", ".paqad/.config: rag_similarity_threshold='1.5' is not valid; allowed: a number from 0.0 to 1.0"),
        ("rag_enabled=maybe", ".paqad/.config: rag_enabled='maybe' is not valid; allowed: true or false"),
        ("rag_embedding_provider=cohere", ".paqad/.config: rag_embedding_provider='cohere' is not valid; allowed: one of local, openai, voyageai"),
    ],
)
def test_bad_value_names_key_value_file_and_range(tmp_path, line, message):
    write_files(tmp_path, {".paqad/.config": line + "\n"})
    with pytest.raises(ConfigError) as err:
        load_settings(tmp_path, environ={})
    assert str(err.value) == message


def test_bad_env_value_names_the_variable(tmp_path):
    with pytest.raises(ConfigError, match=r"^environment variable PAQAD_RAG_TOP_N: rag_top_n='x'"):
        load_settings(tmp_path, environ={"PAQAD_RAG_TOP_N": "x"})


def test_relief_floor_above_threshold_is_rejected(tmp_path):
    write_files(tmp_path, {".paqad/.config": "rag_relief_floor=0.8\n"})
    with pytest.raises(ConfigError, match="rag_relief_floor=0.8 is above rag_similarity_threshold=0.75"):
        load_settings(tmp_path, environ={})


def test_unknown_key_warns_and_is_kept(tmp_path):
    write_files(tmp_path, {".paqad/.config": "rag_colour=blue\n"})
    with pytest.warns(UserWarning, match=r"unknown config key 'rag_colour' \(kept, ignored\)$"):
        s = load_settings(tmp_path, environ={})
    assert s.unknown == {"rag_colour": "blue"}


def test_write_local_values_keeps_comments_and_other_keys(tmp_path):
    paths = ProjectPaths(tmp_path)
    write_files(tmp_path, {".paqad/.config": "# mine\nrag_top_n=9\nrag_enabled=false\n"})
    write_local_values(paths, {"rag_enabled": True, "rag_embedding_provider": "local"})
    assert paths.local_config.read_text() == "# mine\nrag_top_n=9\nrag_enabled=true\nrag_embedding_provider=local\n"


def test_paqad_gitignore_lists_vectors_and_secrets(tmp_path):
    paths = ProjectPaths(tmp_path)
    ensure_paqad_gitignore(paths)
    lines = paths.gitignore.read_text().splitlines()
    assert {"vectors/", "secrets.env", ".config"} <= set(lines)
    ensure_paqad_gitignore(paths)
    assert paths.gitignore.read_text().splitlines() == lines


def test_find_project_root_walks_up_to_git_or_paqad(tmp_path):
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "src" / "pkg").mkdir(parents=True)
    assert find_project_root(tmp_path / "repo" / "src" / "pkg") == (tmp_path / "repo").resolve()
    (tmp_path / "repo" / "src" / ".paqad").mkdir()
    assert find_project_root(tmp_path / "repo" / "src" / "pkg") == (tmp_path / "repo" / "src").resolve()
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    assert find_project_root(lonely) == lonely.resolve()


def test_a_line_without_equals_warns_with_its_line_number(tmp_path):
    write_files(tmp_path, {".paqad/.config": "rag_top_n=3\ngarbage line\n"})
    with pytest.warns(UserWarning, match=r"\.config:2: ignored line 'garbage line' \(expected key=value\)"):
        assert load_settings(tmp_path, environ={}).rag_top_n == 3


def test_unknown_key_suggests_the_close_one_and_the_cli_prints_one_line(tmp_path, capsys):
    from paqad.cli.main import main

    write_files(tmp_path, {".paqad/.config": "rag_tpo_n=5\n"})
    assert main(["rag", "status", "--json", "--project-root", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert err == "paqad-ai: warning: .paqad/.config: unknown config key 'rag_tpo_n' (kept, ignored); did you mean rag_top_n?\n"


def test_an_upper_case_key_is_pointed_to_its_lower_case_spelling(tmp_path, capsys):
    # Seen as a new user: `RAG_TOP_N = 5` in a team file was ignored with no hint.
    from paqad.cli.main import main

    write_files(tmp_path, {".paqad/configs/.config.team": "RAG_TOP_N = 5\n"})
    assert main(["rag", "status", "--json", "--project-root", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert err == ("paqad-ai: warning: .paqad/configs/.config.team: unknown config key 'RAG_TOP_N' (kept, ignored); "
                   "did you mean rag_top_n?\n")


def test_a_misspelt_environment_variable_is_warned_with_the_right_name(tmp_path, capsys, monkeypatch):
    # Seen as a new user (round 7): `PAQAD_RAG_TOPN=5 paqad-ai rag probe ...` ran with top_n 20 and
    # no word, while the same typo in .paqad/.config is warned.
    from paqad.cli.main import main

    monkeypatch.setenv("PAQAD_RAG_TOPN", "5")
    monkeypatch.setenv("PAQAD_HOME_DIR", "/elsewhere")  # not PAQAD_RAG_*: not ours to judge
    assert main(["rag", "status", "--json", "--project-root", str(tmp_path)]) == 0
    assert capsys.readouterr().err == ("paqad-ai: warning: environment variable PAQAD_RAG_TOPN: no such config key "
                                       "(ignored); did you mean PAQAD_RAG_TOP_N?\n")
    settings = load_settings(tmp_path, environ={"PAQAD_RAG_TOPN": "5", "PAQAD_RAG_TOP_N": "7"})
    assert (settings.rag_top_n, settings.sources["rag_top_n"]) == (7, "env PAQAD_RAG_TOP_N")


def test_a_relief_floor_above_the_threshold_from_the_environment_names_the_variable(tmp_path):
    with pytest.raises(ConfigError) as caught:
        load_settings(tmp_path, environ={"PAQAD_RAG_RELIEF_FLOOR": "0.9"})
    assert str(caught.value) == ("environment variable PAQAD_RAG_RELIEF_FLOOR: rag_relief_floor=0.9 is above "
                                 "rag_similarity_threshold=0.75; allowed: at most the threshold")


def test_a_paqad_that_is_a_file_is_named_with_what_to_do(tmp_path):
    # Seen as a new user (round 7): `touch .paqad` gave "cannot read config file .paqad/.config
    # ([Errno 20] Not a directory ...); fix or delete it", naming a file that cannot exist.
    (tmp_path / ".paqad").write_text("")
    with pytest.raises(ConfigError) as caught:
        load_settings(tmp_path, environ={})
    assert str(caught.value) == (f"{tmp_path / '.paqad'}: a file where paqad-ai keeps a folder (settings, index); "
                                 "move or delete it, then run the command again")
