"""Layer 3's git rules, checked against real git on real repositories.

Every tree holds only files that pass layers 1, 2 and 4 (indexable types, 50+ characters), so
the one thing that can reject them is an ignore rule; for every file our verdict must equal
``git check-ignore`` and ``git ls-files --others --ignored --exclude-standard``, and equal the
exact list written in the case.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import git, write_files

from paqad.index.discover import discover, explain
from paqad.index.filters import compile_ignore_lines, git_ignore_reason, IgnoreLevel

BODY = "A file with enough words in it to pass the minimum size check of layer four.\n"
GIT_REASONS = {"ignore:gitignore", "ignore:git-info-exclude"}


def all_files(root: Path) -> list[str]:
    """Every file under root except git's own folder and the ignore files themselves."""
    out = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            if name != ".gitignore":
                out.append(Path(folder, name).relative_to(root).as_posix())
    return sorted(out)


def git_verdicts(root: Path, paths: list[str]) -> dict[str, str]:
    """path -> our reason code for every path git ignores, from ``git check-ignore -v``."""
    proc = subprocess.run(
        ["git", "check-ignore", "-v", "-n", "-z", "--stdin"],
        cwd=root, input="\0".join(paths) + "\0", capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr
    fields = proc.stdout.split("\0")
    verdicts = {}
    for i in range(0, len(fields) - 1, 4):
        source, _line, pattern, path = fields[i : i + 4]
        if source and not pattern.startswith("!"):
            verdicts[path] = "ignore:git-info-exclude" if source.endswith("info/exclude") else "ignore:gitignore"
    return verdicts


def git_ls_ignored(root: Path) -> set[str]:
    out = git(root, "ls-files", "--others", "--ignored", "--exclude-standard", "-z")
    return {p for p in out.split("\0") if p}


def assert_matches_git(root: Path, expected_ignored: list[str]) -> None:
    files = all_files(root)
    truth = git_verdicts(root, files)
    assert sorted(truth) == sorted(git_ls_ignored(root) - {p for p in git_ls_ignored(root) if p.endswith(".gitignore")})
    ours = {}
    for rel in files:
        reason = explain(root, rel).reason
        assert reason is None or reason in GIT_REASONS, (rel, reason)
        if reason:
            ours[rel] = reason
    assert ours == truth
    assert sorted(ours) == sorted(expected_ignored)
    # The walk agrees with the per-path diagnostic: eligible = every file git keeps.
    found = discover(root)
    assert [d.path for d in found.eligible] == [f for f in files if f not in truth]
    for d in found.rejected:
        if d.path == ".git/" or d.path.endswith(".gitignore"):
            assert d.reason in ("hard:vcs-dir", "type:extension"), d
            continue
        assert d.reason in GIT_REASONS, d
        if d.path.endswith("/"):  # a pruned folder: git ignores every file inside it
            inside = [f for f in files if f.startswith(d.path)]
            assert inside and all(truth[f] == d.reason for f in inside), d


CASES = {
    "nested gitignore, relative to its folder": (
        {".gitignore": "*.gen.py\n", "sub/.gitignore": "local.md\n/anchored.md\n"},
        "",
        ["a.gen.py", "keep.py", "local.md", "anchored.md", "sub/local.md", "sub/deep/local.md",
         "sub/anchored.md", "sub/deep/anchored.md", "sub/x.gen.py"],
        ["a.gen.py", "sub/anchored.md", "sub/deep/local.md", "sub/local.md", "sub/x.gen.py"],
    ),
    "negation re-includes a file": (
        {".gitignore": "*.md\n!README.md\n"},
        "",
        ["README.md", "docs/guide.md", "docs/README.md", "app.py"],
        ["docs/guide.md"],
    ),
    "anchored vs unanchored": (
        {".gitignore": "/top.md\nany.md\nsub/mid.md\n"},
        "",
        ["top.md", "sub/top.md", "any.md", "sub/any.md", "sub/mid.md", "x/sub/mid.md"],
        ["any.md", "sub/any.md", "sub/mid.md", "top.md"],
    ),
    "directory-only pattern": (
        {".gitignore": "logs/\nnotes.md/\n"},
        "",
        ["logs/app.md", "src/logs/x.md", "notes.md", "other/notes.md/inner.md", "src/app.py"],
        ["logs/app.md", "other/notes.md/inner.md", "src/logs/x.md"],
    ),
    "double star prefix and infix": (
        {".gitignore": "**/cache.md\na/**/gen\n"},
        "",
        ["cache.md", "a/cache.md", "a/b/cache.md", "a/gen/x.md", "a/x/y/gen/z.md", "gen/z.md",
         "b/a/gen/x.md", "a/x/keep.md"],
        ["a/b/cache.md", "a/cache.md", "a/gen/x.md", "a/x/y/gen/z.md", "cache.md"],
    ),
    "trailing double star and folder-only double star": (
        {".gitignore": "out1/**\nout2/**/\n"},
        "",
        ["out1/a.md", "out1/b/c.md", "out2/a.md", "out2/b/c.md", "out2/b/d/e.md"],
        ["out1/a.md", "out1/b/c.md", "out2/b/c.md", "out2/b/d/e.md"],
    ),
    "info/exclude, and a .gitignore overrides it": (
        {".gitignore": "!sub/secret-notes.md\n"},
        "secret-notes.md\nprivate/\n",
        ["secret-notes.md", "sub/secret-notes.md", "private/x.md", "public.md"],
        ["private/x.md", "secret-notes.md"],
    ),
    "ignored folder with a negated file inside stays ignored": (
        {".gitignore": "logs/\n!logs/keep.md\nvendored/\n", "vendored/.gitignore": "!*\n"},
        "",
        ["logs/keep.md", "logs/other.md", "vendored/lib.py", "src/app.py"],
        ["logs/keep.md", "logs/other.md", "vendored/lib.py"],
    ),
    "dir/* excludes the contents, so a negation re-includes": (
        {".gitignore": "dir/*\n!dir/keep.py\n"},
        "",
        ["dir/keep.py", "dir/other.py", "dir/sub/x.py", "dirx/y.py"],
        ["dir/other.py", "dir/sub/x.py"],
    ),
    "deeper gitignore wins; a file pattern beats a folder negation": (
        {".gitignore": "*.md\n*.py\n", "sub/.gitignore": "!*.md\n!b\n"},
        "",
        ["a.md", "sub/a.md", "sub/b/x.py", "sub/b/y.md", "sub/c.py"],
        ["a.md", "sub/b/x.py", "sub/c.py"],
    ),
    "a later negation of a parent does not re-include a matched folder": (
        {".gitignore": "gen/\n!src/\n"},
        "",
        ["src/gen/x.md", "src/y.md", "gen/z.md"],
        ["gen/z.md", "src/gen/x.md"],
    ),
    "comments, escapes, trailing spaces, character classes": (
        {".gitignore": "# comment.md\n\\#hash.md\nspace.md   \n\\!bang.md\nfile[0-9].md\n"},
        "",
        ["comment.md", "#hash.md", "space.md", "!bang.md", "file1.md", "filex.md"],
        ["!bang.md", "#hash.md", "file1.md", "space.md"],
    ),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_ignore_decisions_equal_git(git_repo, case: str) -> None:
    ignore_files, info_exclude, files, expected = CASES[case]
    root = git_repo({**ignore_files, **{f: BODY for f in files}}, commit=False)
    if info_exclude:
        (root / ".git" / "info").mkdir(exist_ok=True)
        (root / ".git" / "info" / "exclude").write_text(info_exclude)
    assert_matches_git(root, expected)


def test_info_exclude_reason_code(git_repo) -> None:
    root = git_repo({"secret-notes.md": BODY, ".gitignore": "drafts.md\n", "drafts.md": BODY}, commit=False)
    (root / ".git" / "info" / "exclude").write_text("secret-notes.md\n")
    assert explain(root, "secret-notes.md").reason == "ignore:git-info-exclude"
    assert explain(root, "drafts.md").reason == "ignore:gitignore"


def test_dir_only_pattern_spares_a_file_of_that_name(git_repo) -> None:
    """`logs/` ignores a folder named logs, not a file named logs (checked on the matcher,
    since a file called `logs` is not an indexable type and layer 1 rejects it first)."""
    root = git_repo({".gitignore": "logs/\n", "logs": BODY, "a/logs/x.md": BODY}, commit=False)
    level = IgnoreLevel("", "", "gitignore", compile_ignore_lines(["logs/"]))
    assert git_ignore_reason([level], "logs", is_dir=False) is None
    assert git_ignore_reason([level], "a/logs", is_dir=True) == "ignore:gitignore"
    assert git_verdicts(root, ["logs", "a/logs/x.md"]) == {"a/logs/x.md": "ignore:gitignore"}
    assert explain(root, "logs").reason == "type:extension"
    assert explain(root, "a/logs/x.md").reason == "ignore:gitignore"


def test_tracked_files_are_never_ignored(git_repo) -> None:
    """As in git: a committed file that a later .gitignore matches is still indexed."""
    root = git_repo({"config/app.json": '{"name": "' + "x" * 60 + '"}', "config/local.json": BODY})
    (root / ".gitignore").write_text("config/\n")
    (root / "config" / "new.json").write_text(BODY)
    found = discover(root)
    assert [d.path for d in found.eligible] == ["config/app.json", "config/local.json"]
    assert [(d.path, d.reason) for d in found.rejected] == [
        (".git/", "hard:vcs-dir"), (".gitignore", "type:extension"), ("config/new.json", "ignore:gitignore"),
    ]  # fmt: skip
    assert git_verdicts(root, ["config/app.json", "config/new.json"]) == {"config/new.json": "ignore:gitignore"}


def test_project_inside_a_larger_repository(git_repo) -> None:
    """Ignore files above the project root (and info/exclude) apply with their own base."""
    top = git_repo(
        {".gitignore": "proj/private/\n*.tmp.md\n", "proj/private/x.md": BODY, "proj/a.tmp.md": BODY,
         "proj/keep.md": BODY, "proj/sub/.gitignore": "/only-here.md\n", "proj/sub/only-here.md": BODY,
         "proj/only-here.md": BODY, "proj/excl.md": BODY},
        commit=False,
    )  # fmt: skip
    (top / ".git" / "info" / "exclude").write_text("proj/excl.md\n")
    root = top / "proj"
    files = all_files(root)
    truth = {p[len("proj/") :]: r for p, r in git_verdicts(top, ["proj/" + f for f in files]).items()}
    assert truth == {
        "a.tmp.md": "ignore:gitignore", "excl.md": "ignore:git-info-exclude",
        "private/x.md": "ignore:gitignore", "sub/only-here.md": "ignore:gitignore",
    }  # fmt: skip
    assert {f: explain(root, f).reason for f in files if explain(root, f).reason} == truth
    assert [d.path for d in discover(root).eligible] == ["keep.md", "only-here.md"]


def test_non_git_project_still_applies_gitignore(tmp_path: Path) -> None:
    write_files(tmp_path, {".gitignore": "secret/\n*.gen.md\n", "sub/.gitignore": "!keep.gen.md\n",
                           "a.md": BODY, "b.gen.md": BODY, "secret/c.md": BODY, "sub/keep.gen.md": BODY})  # fmt: skip
    found = discover(tmp_path)
    assert [d.path for d in found.eligible] == ["a.md", "sub/keep.gen.md"]
    assert [(d.path, d.reason) for d in found.rejected if d.reason.startswith("ignore")] == [
        ("b.gen.md", "ignore:gitignore"), ("secret/", "ignore:gitignore"),
    ]  # fmt: skip


def test_every_gitignore_pattern_shape_is_understood() -> None:
    """Each shape of regex pathspec 1.x produces maps to an exact test (no conservative fallback)."""
    lines = ["foo", "/foo", "foo/", "/foo/", "*.py", "a/b", "a/**/b", "**/x", "dir/*", "a/**", "a/**/",
             "a/*/b/", "*", "**", "*/", "**/", "**/*/**", "!x", "\\#x", "x[0-9]"]  # fmt: skip
    rules = compile_ignore_lines(lines)
    assert len(rules) == len(lines)
    assert [r.pattern for r, _ in rules if r.pattern.startswith(".*?(?:")] == []
    assert [ignores for _, ignores in rules].count(False) == 1
