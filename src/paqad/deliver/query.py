"""Which query a refresh searches for (DESIGN §9): the last recorded prompt, else the changed files.

The prompt hook records each prompt with :func:`record_prompt` in
``.paqad/context/last-prompt.json``::

    {"prompt": "why does login fail?", "recorded_at": "2026-11-30T07:40:12Z", "host": "claude"}

Without a recorded prompt, the files changed in the working tree (``git status``) and on the
branch since its merge-base with the base branch become the query. With neither, there is no
query and the section is left out.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath

from paqad.config import Settings
from paqad.index.fs_names import fs_name, shown_name, text_name
from paqad.project import ProjectPaths
from paqad.atomic import write_text_atomic

# A prompt beyond this is pasted material; its head carries the intent, and the local model
# reads only 256 word pieces anyway. Keeps the hook's write and the BM25 query small.
MAX_PROMPT_CHARS = 20_000
# Of a prompt over MAX_PROMPT_CHARS (a pasted log), what is kept whole: its head (the question
# usually leads) and its tail (or follows the paste); the rest of the budget goes to the lines
# that name what failed (errors, stack frames, file:line).
PROMPT_HEAD_CHARS = 2_000
PROMPT_TAIL_CHARS = 1_000
_TELLING_LINE = re.compile(
    r"error|exception|traceback|fail|panic|fatal|warn|assert|undefined|cannot|not found"
    r"|\bFile \"|\bat [\w.$<>]+\(|\w\.\w+:\d+|\w+\(\)",
    re.IGNORECASE,
)
# Changed files named in a query; about what fits the local model's 256-word-piece window.
MAX_QUERY_FILES = 20
GIT_TIMEOUT_SECONDS = 10.0
DEFAULT_BASE_BRANCHES = ("main", "master")


@dataclass(frozen=True)
class Query:
    """A search query: ``text`` to search for, ``source`` (``"prompt"`` or ``"changed-files"``)
    and ``label``, the short description shown after ``Query:`` in the delivered section."""

    text: str
    source: str
    label: str


def bounded_prompt(prompt: str, limit: int = MAX_PROMPT_CHARS) -> str:
    """``prompt`` when it is at most ``limit`` characters, else the part worth searching: its
    first :data:`PROMPT_HEAD_CHARS` and last :data:`PROMPT_TAIL_CHARS` characters, and between
    them, in order and each once, the lines that name what failed (error words, stack frames,
    ``file.ext:line``, ``call()``) until ``limit``. The work is linear in the prompt and cut to
    ``limit`` characters, so the hook answers a pasted 1 MB log within its budget (DESIGN §10)."""
    if len(prompt) <= limit:
        return prompt
    head, tail = prompt[:PROMPT_HEAD_CHARS], prompt[-PROMPT_TAIL_CHARS:]
    room = limit - len(head) - len(tail)
    kept: list[str] = []
    seen: set[str] = set()
    for line in prompt[PROMPT_HEAD_CHARS:-PROMPT_TAIL_CHARS].splitlines():
        line = line.strip()[:300]
        if line and line not in seen and _TELLING_LINE.search(line):
            if len(line) + 1 > room:
                break
            seen.add(line)
            kept.append(line)
            room -= len(line) + 1
    return "\n".join([head, *kept, tail])


# --- the recorded prompt -----------------------------------------------------------------------


def record_prompt(paths: ProjectPaths, prompt: str, host: str | None = None, now: datetime | None = None) -> None:
    """Record ``prompt`` (cut to 20,000 characters) as the last prompt, atomically.

    Writes ``paths.last_prompt`` as JSON ``{"prompt", "recorded_at" (ISO-8601 UTC, seconds,
    ``Z``), "host"}``; ``now`` (default: the current time) is for tests.
    """
    moment = (now or datetime.now(timezone.utc)).astimezone(timezone.utc)
    record = {
        "prompt": prompt[:MAX_PROMPT_CHARS],
        "recorded_at": moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "host": host,
    }
    write_text_atomic(paths.last_prompt, json.dumps(record, ensure_ascii=False) + "\n")


def read_last_prompt(paths: ProjectPaths) -> dict | None:
    """The last prompt record (``{"prompt": str, "recorded_at": str | None, "host": str | None}``),
    or ``None`` when there is none, it is unreadable, or its prompt is blank."""
    try:
        record = json.loads(paths.last_prompt.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(record, dict):
        return None
    prompt = record.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        return None
    recorded_at = record.get("recorded_at")
    host = record.get("host")
    return {
        "prompt": prompt,
        "recorded_at": recorded_at if isinstance(recorded_at, str) else None,
        "host": host if isinstance(host, str) else None,
    }


PROMPT_WORDS_CHARS = 60  # how much of the prompt the section quotes, so a stale one cannot pass for fresh


def prompt_words(prompt: str) -> str:
    """The prompt's first words, quoted, on one line: ``"why does login fail for SSO users…"``."""
    words = " ".join(prompt.split())
    if len(words) > PROMPT_WORDS_CHARS:
        words = words[: PROMPT_WORDS_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return f'"{words}"'


def _prompt_label(recorded_at: str | None, prompt: str = "") -> str:
    quoted = f" {prompt_words(prompt)}" if prompt.strip() else ""
    if recorded_at:
        try:
            moment = datetime.fromisoformat(recorded_at.replace("Z", "+00:00"))
        except ValueError:
            moment = None
        if moment is not None:
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=timezone.utc)
            return f"last prompt{quoted} (recorded {moment.astimezone(timezone.utc):%Y-%m-%d %H:%M} UTC)"
    return f"last prompt{quoted}"


# --- changed files -----------------------------------------------------------------------------


def _git(root: Path, *args: str) -> bytes | None:
    """stdout of ``git args`` run in ``root`` (argument list, no shell); ``None`` on any failure."""
    try:
        proc = subprocess.run(
            ["git", *args], cwd=root, capture_output=True, timeout=GIT_TIMEOUT_SECONDS, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None


def _status_paths(root: Path) -> list[str]:
    """Repository-relative paths from ``git status``: modified, added, untracked, renamed-to."""
    # --no-optional-locks: a background refresh must not take index.lock from the user's git.
    out = _git(root, "--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ".")
    if out is None:
        return []
    paths: list[str] = []
    entries = iter(out.split(b"\0"))
    for entry in entries:
        if len(entry) < 4:
            continue
        xy, path = entry[:2].decode("ascii", "replace"), os.fsdecode(entry[3:])
        if xy[0] in "RC":
            next(entries, None)  # with -z the rename source follows the target as its own field
        if "D" in xy:
            continue
        paths.append(path)
    return paths


def _base_ref(root: Path, base_branch: str) -> str | None:
    names = (base_branch,) if base_branch else DEFAULT_BASE_BRANCHES
    for name in names:
        for ref in (f"refs/heads/{name}", f"refs/remotes/origin/{name}", name):
            if _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}") is not None:
                return ref
    return None


def _branch_paths(root: Path, base_branch: str) -> list[str]:
    """Repository-relative paths changed by commits since the merge-base with the base branch."""
    ref = _base_ref(root, base_branch)
    if ref is None:
        return []
    merge_base = _git(root, "merge-base", "HEAD", ref)
    if merge_base is None:
        return []
    out = _git(root, "diff", "--name-only", "-z", "--diff-filter=d", f"{merge_base.decode().strip()}..HEAD", "--", ".")
    if out is None:
        return []
    return [os.fsdecode(p) for p in out.split(b"\0") if p]


def in_git_work_tree(root: Path) -> bool:
    """Whether ``root`` lies in a git work tree (``git rev-parse`` answers there; no ``git``
    executable or a git error: False). One git call, at most 10 seconds."""
    return _git(root, "rev-parse", "--show-prefix") is not None


def changed_files(root: Path, base_branch: str = "") -> list[str]:
    """Project-relative paths (``/``) of existing files changed in the working tree or on the branch.

    Working tree: ``git status`` (modified, added, untracked, renamed-to; deleted excluded).
    Branch: ``git diff --name-only <merge-base>..HEAD`` with the base branch (``base_branch``,
    else ``main`` then ``master``; each tried as a local branch, then ``origin/<name>``).
    Working-tree paths come first, in git's order, then branch paths; no duplicates; files under
    ``.paqad/`` and paths that are not files on disk are left out. Not a git repository, no
    ``git`` executable, or a git error: ``[]``. Each git call is limited to 10 seconds.
    """
    prefix_out = _git(root, "rev-parse", "--show-prefix")
    if prefix_out is None:
        return []
    # git reports paths relative to the repository top; the project may be a subfolder of it.
    prefix = os.fsdecode(prefix_out).strip()
    seen: set[str] = set()
    result: list[str] = []
    for repo_path in [*_status_paths(root), *_branch_paths(root, base_branch)]:
        if not repo_path.startswith(prefix):
            continue
        rel = text_name(repo_path[len(prefix):])  # UTF-8 text as the index stores it, whatever the locale
        if rel in seen or rel.startswith(".paqad/") or not (root / fs_name(rel)).is_file():
            continue
        seen.add(rel)
        result.append(rel)
    return result


_WORD_BOUNDARY = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def name_words(path: str) -> list[str]:
    """Lower-case words of a file's stem: ``web/UserCard.tsx`` -> ``["user", "card"]``,
    ``src/get_user_name.py`` -> ``["get", "user", "name"]``, ``HTTPServer.go`` -> ``["http", "server"]``,
    ``ui/card.test.ts`` -> ``["card", "test"]``."""
    return [w.lower() for w in _WORD_BOUNDARY.findall(PurePosixPath(path).stem)]


def query_name(path: str) -> str:
    """``path`` fit for query text: a name whose bytes are not UTF-8 (surrogates, which the
    tokenizer refuses) gets its undecodable bytes as ``\\xNN`` escapes, e.g. ``caf\\xe9.py``."""
    return shown_name(path)


def changed_files_query(files: list[str]) -> str:
    """Query text for changed ``files``: a line naming them (at most 20, then ``and N more``) and a
    line of their stem words, e.g. ``"Changed files: a.py, web/UserCard.tsx\\na user card"``."""
    named = files[:MAX_QUERY_FILES]
    line = "Changed files: " + ", ".join(named)
    if len(files) > len(named):
        line += f", and {len(files) - len(named)} more"
    words: list[str] = []
    for path in named:
        for word in name_words(path):
            if word not in words:
                words.append(word)
    return line + ("\n" + " ".join(words) if words else "")


def choose_query(paths: ProjectPaths, settings: Settings) -> Query | None:
    """The query for this refresh: the last recorded prompt, else the changed files
    (``settings.rag_base_branch`` picks the base branch), else ``None`` (leave the section out)."""
    record = read_last_prompt(paths)
    if record is not None:
        return Query(record["prompt"], "prompt", _prompt_label(record["recorded_at"], record["prompt"]))
    files = [query_name(f) for f in changed_files(paths.root, settings.rag_base_branch)]
    if files:
        named = ", ".join(files[:5]) + (f", and {len(files) - 5} more" if len(files) > 5 else "")
        return Query(changed_files_query(files), "changed-files", f"changed files ({len(files)}): {named}")
    return None
