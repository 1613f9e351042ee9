"""Query choice (DESIGN §9): recorded prompt, else changed files from real git repositories."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from conftest import git, write_files

from paqad.config import load_settings
from paqad.project import ProjectPaths
from paqad.deliver.query import (
    Query,
    changed_files,
    changed_files_query,
    choose_query,
    name_words,
    read_last_prompt,
    record_prompt,
)

BASE = {"src/app.py": "print('app')\n", "src/util.py": "X = 1\n", "docs/old.md": "# Old\n", "gone.txt": "bye\n"}


def settings(root: Path, **env: str):
    return load_settings(root, environ={f"PAQAD_{k.upper()}": v for k, v in env.items()})


# --- the recorded prompt ----------------------------------------------------------------------


def test_record_prompt_writes_exact_json(tmp_path: Path):
    paths = ProjectPaths(tmp_path)
    record_prompt(paths, "Why does login fail for ünïcode users?", host="claude",
                  now=datetime(2026, 11, 30, 7, 40, 12, 999, tzinfo=timezone.utc))
    assert paths.last_prompt.read_text(encoding="utf-8") == (
        '{"prompt": "Why does login fail for ünïcode users?", "recorded_at": "2026-11-30T07:40:12Z", "host": "claude"}\n'
    )
    assert read_last_prompt(paths) == {
        "prompt": "Why does login fail for ünïcode users?", "recorded_at": "2026-11-30T07:40:12Z", "host": "claude",
    }
    assert [p.name for p in paths.context_dir.iterdir()] == ["last-prompt.json"]


def test_record_prompt_default_time_is_now_utc_and_long_prompts_are_cut(tmp_path: Path):
    paths = ProjectPaths(tmp_path)
    before = datetime.now(timezone.utc).replace(microsecond=0)
    record_prompt(paths, "x" * 25_000)
    record = read_last_prompt(paths)
    recorded = datetime.strptime(record["recorded_at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    assert before <= recorded <= datetime.now(timezone.utc)
    assert record["prompt"] == "x" * 20_000 and record["host"] is None


@pytest.mark.parametrize("content", ["", "not json", "[1, 2]", '{"prompt": "   "}', '{"prompt": 3}'])
def test_unusable_prompt_records_read_as_none(tmp_path: Path, content: str):
    paths = ProjectPaths(tmp_path)
    paths.context_dir.mkdir(parents=True)
    paths.last_prompt.write_text(content, encoding="utf-8")
    assert read_last_prompt(paths) is None


def test_prompt_words_are_quoted_on_one_line_and_cut():
    from paqad.deliver.query import prompt_words

    assert prompt_words("why does\nlogin   fail?") == '"why does login fail?"'
    assert prompt_words("word " * 30) == '"' + " ".join(["word"] * 11) + '…"'


def test_prompt_wins_over_changed_files_and_label_shows_utc_time(git_repo):
    root = git_repo(BASE)
    write_files(root, {"src/app.py": "print('changed')\n"})
    paths = ProjectPaths(root)
    record_prompt(paths, "add retry to the http client", host="codex",
                  now=datetime.fromisoformat("2026-11-30T09:40:59+02:00"))
    assert choose_query(paths, settings(root)) == Query(
        "add retry to the http client", "prompt",
        'last prompt "add retry to the http client" (recorded 2026-11-30 07:40 UTC)'  # which prompt it answers
    )


def test_prompt_without_readable_time_gets_plain_label(tmp_path: Path):
    paths = ProjectPaths(tmp_path)
    paths.context_dir.mkdir(parents=True)
    paths.last_prompt.write_text(json.dumps({"prompt": "hello", "recorded_at": "yesterday"}), encoding="utf-8")
    assert choose_query(paths, settings(tmp_path)) == Query("hello", "prompt", 'last prompt "hello"')


# --- changed files ----------------------------------------------------------------------------------


def test_working_tree_changes_modified_added_untracked_renamed_not_deleted(git_repo):
    root = git_repo({**BASE, "keep.md": "# Keep\n", "rm-staged.py": "a = 1\n"})
    write_files(root, {"src/app.py": "print('edited')\n", "new/deep/file.ts": "export {}\n",
                       "staged.py": "s = 1\n", "my file ü.py": "u = 1\n"})
    git(root, "add", "staged.py")
    git(root, "mv", "docs/old.md", "docs/new.md")
    git(root, "rm", "-q", "rm-staged.py")
    (root / "gone.txt").unlink()
    write_files(root, {".paqad/context/last-prompt.json": "{}", ".paqad/vectors/x": "y"})
    assert changed_files(root) == ["docs/new.md", "src/app.py", "staged.py", "my file ü.py", "new/deep/file.ts"]


def test_committed_on_feature_branch_since_merge_base(git_repo):
    root = git_repo(BASE)
    git(root, "checkout", "-q", "-b", "feature")
    write_files(root, {"src/feature.py": "F = 1\n", "src/util.py": "X = 2\n"})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "feature work")
    git(root, "rm", "-q", "gone.txt")
    git(root, "commit", "-q", "-m", "delete on branch")
    # Work on main after the branch point is not the branch's change.
    git(root, "checkout", "-q", "main")
    write_files(root, {"src/mainline.py": "M = 1\n"})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "main moves on")
    git(root, "checkout", "-q", "feature")
    write_files(root, {"src/app.py": "print('wip')\n"})
    assert changed_files(root) == ["src/app.py", "src/feature.py", "src/util.py"]
    # On main itself nothing is committed since the merge-base: only the carried-over edit shows.
    git(root, "checkout", "-q", "main")
    assert changed_files(root) == ["src/app.py"]


def test_master_fallback_and_explicit_base_branch(tmp_path: Path):
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q", "-b", "master")
    write_files(root, BASE)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    git(root, "checkout", "-q", "-b", "develop")
    write_files(root, {"dev.py": "D = 1\n"})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "dev")
    git(root, "checkout", "-q", "-b", "topic")
    write_files(root, {"topic.py": "T = 1\n"})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "topic")
    assert changed_files(root) == ["dev.py", "topic.py"]
    assert changed_files(root, base_branch="develop") == ["topic.py"]
    assert changed_files(root, base_branch="no-such-branch") == []


def test_origin_base_branch_when_no_local_one(git_repo, tmp_path: Path):
    upstream = git_repo(BASE, name="upstream")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(upstream), str(clone))
    git(clone, "checkout", "-q", "-b", "feature")
    git(clone, "branch", "-q", "-D", "main")
    write_files(clone, {"src/app.py": "print('feature')\n"})
    git(clone, "commit", "-q", "-am", "feature")
    assert changed_files(clone) == ["src/app.py"]


def test_project_in_a_subfolder_of_the_repository(git_repo):
    root = git_repo({"services/api/main.py": "A = 1\n", "services/web/app.ts": "export {}\n"})
    write_files(root, {"services/api/main.py": "A = 2\n", "services/api/pkg/new.py": "N = 1\n", "services/web/app.ts": "x\n"})
    assert changed_files(root / "services" / "api") == ["main.py", "pkg/new.py"]


def test_not_a_repository_or_no_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, git_repo):
    plain = tmp_path / "plain"
    plain.mkdir()
    write_files(plain, {"a.py": "a = 1\n"})
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    assert changed_files(plain) == []
    root = git_repo(BASE)
    write_files(root, {"src/app.py": "changed\n"})
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    assert changed_files(root) == []


# --- changed files as the query ----------------------------------------------------------------------


def test_name_words():
    assert name_words("web/UserCard.tsx") == ["user", "card"]
    assert name_words("src/get_user_name.py") == ["get", "user", "name"]
    assert name_words("HTTPServer.go") == ["http", "server"]
    assert name_words("ui/card.test.ts") == ["card", "test"]
    assert name_words("pkg/__init__.py") == ["init"]


def test_changed_files_query_text_and_cap():
    assert changed_files_query(["src/get_user.py", "web/UserCard.tsx"]) == (
        "Changed files: src/get_user.py, web/UserCard.tsx\nget user card"
    )
    many = [f"m{i}.py" for i in range(23)]
    text = changed_files_query(many)
    assert text.splitlines()[0] == "Changed files: " + ", ".join(many[:20]) + ", and 3 more"
    assert text.splitlines()[1] == " ".join(f"m {i}" if i == 0 else str(i) for i in range(20))


def test_choose_query_changed_files_then_none(git_repo):
    root = git_repo(BASE)
    paths = ProjectPaths(root)
    assert choose_query(paths, settings(root)) is None
    write_files(root, {"src/app.py": "print('x')\n", "lib/RetryPolicy.py": "R = 1\n"})
    assert choose_query(paths, settings(root)) == Query(
        "Changed files: src/app.py, lib/RetryPolicy.py\napp retry policy", "changed-files", "changed files (2): src/app.py, lib/RetryPolicy.py"
    )


def test_choose_query_uses_configured_base_branch(git_repo):
    root = git_repo(BASE)
    git(root, "checkout", "-q", "-b", "release")
    write_files(root, {"rel.py": "R = 1\n"})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "release")
    git(root, "checkout", "-q", "-b", "fix")
    write_files(root, {"fix.py": "F = 1\n"})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fix")
    paths = ProjectPaths(root)
    assert choose_query(paths, settings(root)).text.splitlines()[0] == "Changed files: fix.py, rel.py"
    assert choose_query(paths, settings(root, rag_base_branch="release")).text == "Changed files: fix.py\nfix"
