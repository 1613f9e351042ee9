"""``paqad-ai hook prompt --host HOST``: what a host runs each time the user submits a prompt.

Steps, all inside the ``rag_hook_budget_ms`` budget (counted from process start):

1. read the host's JSON from stdin (malformed or missing input is tolerated);
2. find the project (``--project-root``, else ``$CLAUDE_PROJECT_DIR`` / ``$GEMINI_PROJECT_DIR``, else
   the payload's ``cwd`` / workspace roots, else the current directory);
3. when retrieval is on: record the prompt (DESIGN §9), ask the project's warm process
   (:mod:`paqad.hosts.warm`: model and index kept loaded) for *this* prompt's section, else
   run the search in a daemon thread of this process: keyword evidence first, the dense side
   only if it is ready in time (:func:`paqad.deliver.answer.section_for_prompt`); then start
   ``paqad-ai rag refresh-context --quiet`` detached (own session, no inherited stdio), and a
   warm process when none was running (``rag_warm_process``);
4. answer in the host's documented output format: with the ``## Retrieved context`` section
   when the search finished in time and the host accepts added context, else with nothing new.

It never fails the prompt: every problem is appended to ``.paqad/logs/hook.log`` (never the
prompt text, never a key) and the exit code is 0.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import subprocess
import sys
import threading
import time
import traceback
import warnings
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from paqad.hosts import Host
from paqad.hosts.module_command import python_module_command
from paqad.project import ProjectPaths, find_project_root, index_exists

OUTPUT_MARGIN_SECONDS = 0.05  # kept free at the end of the budget to print and exit
MAX_STDIN_BYTES = 4 * 1024 * 1024  # a prompt plus metadata; more is not a hook payload
LOG_NAME = "hook.log"
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # json.loads joins valid pairs: what is left is alone
# Project folder the host exports to its hooks (Claude Code and Gemini CLI hook docs).
PROJECT_DIR_ENV = {"claude": "CLAUDE_PROJECT_DIR", "claude-local": "CLAUDE_PROJECT_DIR", "gemini": "GEMINI_PROJECT_DIR"}
# Gemini CLI (0.61) turns every < and > of a hook's additionalContext into &lt; and &gt; before
# the model sees it; this line carries no angle bracket itself, so it reaches the model as written.
GEMINI_ESCAPE_NOTE = ("(Gemini CLI shows the less-than and greater-than signs in this section as &lt; and &gt;: "
                      "read them as those signs; the files themselves hold the plain characters.)")


@dataclass(frozen=True)
class HookInput:
    """What we use from a host's hook payload.

    Attributes:
        prompt: the submitted prompt text, ``None`` when absent or not a string.
        start_dir: the payload's ``cwd`` or first workspace root, ``None`` when absent.
        session_id: the host's session / conversation id, when given.
        malformed: the payload was not a JSON object.
        empty: nothing (or only white space) came on stdin: a host that wrote nothing, or a writer
            slower than :data:`STDIN_SECONDS` (the log says which of the two, not "not JSON").
        cut: stdin held :data:`MAX_STDIN_BYTES` or more, of which only that much was read.
    """

    prompt: str | None
    start_dir: Path | None
    session_id: str | None
    malformed: bool
    empty: bool = False
    cut: bool = False


@dataclass(frozen=True)
class HookOutcome:
    """Result of :func:`run_prompt_hook`.

    Attributes:
        stdout: exactly what to print (may be empty).
        delivered: the retrieved-context section went into ``stdout``.
        worker: the search thread when it is still running at answer time (the CLI then ends
            the process with ``os._exit`` instead of waiting for it), else ``None``.
        note: why nothing was delivered (for logs and tests): ``"off"``, ``"no prompt"``,
            ``"timeout"``, ``"no index"``, ``"no section"``, ``"host cannot add context"``, ``"error"`` or
            ``""``.
        source: who searched: ``"warm"`` (the warm process), ``"process"`` (this one) or ``""``.
    """

    stdout: str
    delivered: bool
    worker: threading.Thread | None
    note: str
    source: str = ""


def parse_hook_input(raw: bytes | str) -> HookInput:
    """Read the fields we need from any host's payload; never raises.

    ``prompt`` comes from ``"prompt"``; the start folder from ``"cwd"`` (Claude Code, Gemini
    CLI, Codex, Copilot CLI) or ``"workspace_roots"[0]`` (Cursor).
    """
    try:
        text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
        data = json.loads(text) if text.strip() else None
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict):
        return HookInput(None, None, None, malformed=True, empty=data is None and not text.strip(),
                         cut=len(raw) >= MAX_STDIN_BYTES)
    prompt = data.get("prompt")
    start: Any = data.get("cwd")
    roots = data.get("workspace_roots")
    if not (isinstance(start, str) and start) and isinstance(roots, list) and roots and isinstance(roots[0], str):
        start = roots[0]
    session = data.get("session_id") or data.get("conversation_id") or data.get("sessionId")  # Copilot CLI: camelCase
    if isinstance(prompt, str):
        # JSON may carry a lone surrogate (``"\\ud83d"``: half an emoji cut by the host or a paste);
        # no file, database or tokenizer takes one, so it becomes U+FFFD here, once.
        prompt = _LONE_SURROGATE.sub("\ufffd", prompt)
    return HookInput(
        prompt=prompt if isinstance(prompt, str) else None,
        start_dir=Path(start) if isinstance(start, str) and start else None,
        session_id=session if isinstance(session, str) else None,
        malformed=False,
    )


def render_output(host: Host, section: str | None) -> str:
    """The host's stdout for this prompt, per its documented output JSON.

    Claude Code / Codex: ``{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
    "additionalContext": section}}``, or no output. Gemini CLI: the same with ``"BeforeAgent"``,
    or ``{}`` (its stdout must be JSON); Gemini HTML-escapes ``<`` and ``>`` in the context, so a
    section holding them gets a line (without them) saying how to read them. Copilot CLI:
    top-level ``{"additionalContext": section}`` (the Claude shape adds nothing there), or no
    output. Cursor: ``{"continue": true}`` always.
    """
    if host.name == "cursor":
        return json.dumps({"continue": True})
    if section and host.adds_context:
        if host.name == "copilot":
            return json.dumps({"additionalContext": section}, ensure_ascii=False)
        if host.name == "gemini" and ("<" in section or ">" in section):
            section = section.rstrip("\n") + "\n\n" + GEMINI_ESCAPE_NOTE + "\n"
        return json.dumps({"hookSpecificOutput": {"hookEventName": host.event, "additionalContext": section}}, ensure_ascii=False)
    return "{}" if host.name == "gemini" else ""


STDIN_SECONDS = 0.75  # of the hook's process time, what stdin may take at most: half the default budget


def read_stdin(deadline: float, stream: Any = None) -> bytes:
    """Read stdin until EOF or ``deadline`` (``time.monotonic()``); a TTY gives ``b""``.

    Hosts write the payload and close the pipe at once; the deadline only protects the budget
    from a host that keeps stdin open. What the pipe already holds is read even past the
    deadline (a busy CPU can spend it on the interpreter's start): a payload that is there is
    never dropped for being on time.
    """
    stream = sys.stdin if stream is None else stream
    try:
        if stream is None or stream.isatty():
            return b""
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):
        return b""
    chunks: list[bytes] = []
    size = 0
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while size < MAX_STDIN_BYTES:
                remaining = max(0.0, deadline - time.monotonic())
                if not selector.select(remaining):
                    break
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
    except (OSError, ValueError):
        # e.g. a regular file cannot be registered with epoll: read it directly
        try:
            return os.read(fd, MAX_STDIN_BYTES)
        except OSError:
            return b""
    return b"".join(chunks)


def process_age_seconds() -> float:
    """Seconds since this process started (Linux ``/proc``), 0.0 when unknown.

    Interpreter start-up and imports count against the host's wait, so the budget does too.
    """
    try:
        with open("/proc/self/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        start_ticks = int(fields[19])  # field 22 (starttime), after pid and comm
        with open("/proc/uptime", "rb") as handle:
            uptime = float(handle.read().split()[0])
        return max(0.0, uptime - start_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return 0.0


def log_problem(paths: ProjectPaths | None, host: str, what: str, exc: BaseException | None = None, *, secret: str | None = None) -> None:
    """Append one line to ``.paqad/logs/hook.log`` (only when ``.paqad/`` exists).

    ``secret`` (the prompt) is cut out of the message, so prompt text never reaches the log.
    """
    if paths is None or not paths.paqad_dir.is_dir():
        return
    detail = ""
    if exc is not None:
        detail = f": {type(exc).__name__}: {exc}"
        frames = traceback.extract_tb(exc.__traceback__)
        if frames:
            last = frames[-1]
            detail += f" (at {Path(last.filename).name}:{last.lineno})"
    if secret:
        detail = detail.replace(secret, "<prompt>")
    line = f"{datetime.now(timezone.utc).isoformat(timespec='seconds')} host={host} {what}{detail}".replace("\n", " ")
    try:
        paths.logs_dir.mkdir(parents=True, exist_ok=True)
        with open(paths.logs_dir / LOG_NAME, "a", encoding="utf-8") as handle:
            handle.write(line[:2000] + "\n")
    except OSError:
        pass


def spawn_refresh(root: Path) -> subprocess.Popen[bytes]:
    """Start ``paqad-ai rag refresh-context --quiet`` detached from the host.

    Own session (no signals from the host's terminal), no inherited stdio or descriptors, so
    the host never waits for it. Uses the running interpreter: the same installation; the project
    folder is not on its import path (:mod:`paqad.hosts.module_command`).
    """
    return subprocess.Popen(
        python_module_command("paqad.cli.main", "rag", "refresh-context", "--quiet", "--project-root", str(root)),
        cwd=root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        close_fds=True,
        start_new_session=True,
    )




@dataclass(frozen=True)
class _Answer:
    """What :func:`_answer` decided: the outcome to print, and what to start after it is out
    (the refresh for ``prompt`` in ``paths``, the warm process for the next prompts)."""

    outcome: HookOutcome
    paths: ProjectPaths | None = None
    refresh: bool = False
    prompt: str = ""
    start_warm: bool = False


def run_prompt_hook(
    host: Host,
    raw_input: bytes | str,
    *,
    project_root: Path | None = None,
    started: float | None = None,
    spawn: bool = True,
) -> HookOutcome:
    """Do the hook's work for one prompt and return what to print; never raises.

    ``started`` is the ``time.monotonic()`` value the budget counts from (default: now minus
    :func:`process_age_seconds`). ``spawn=False`` skips starting the background refresh. The
    answer is decided by :func:`_answer` (no process started there); this is the one place that
    starts the refresh (after the search, so the two do not compete for the CPU within the
    budget) and the warm process.
    """
    if started is None:
        started = time.monotonic() - process_age_seconds()
    answer = _answer(host, parse_hook_input(raw_input), project_root, started, spawn)
    if answer.refresh and answer.paths is not None:
        _start_refresh(answer.paths, host, answer.prompt, spawn)
    if answer.start_warm and answer.paths is not None:
        from paqad.hosts import warm

        warm.start(answer.paths)  # for the next prompts; after this one's answer, not competing with it
    return answer.outcome


def _load(host: Host, payload: HookInput, project_root: Path | None):
    """``(paths, settings)`` of the project the prompt is about, or ``(paths or None, None)``
    after logging why they cannot be loaded."""
    paths: ProjectPaths | None = None
    try:
        root = project_root or find_project_root(_start_dir(host, payload))
        paths = ProjectPaths(Path(root).resolve())
        from paqad.config import load_settings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # unknown keys: `rag status` reports them, not the hook
            return paths, load_settings(paths)
    except Exception as exc:  # noqa: BLE001 - a hook must never fail the prompt
        log_problem(paths, host.name, "cannot load settings", exc)
        return paths, None


def _answer(host: Host, payload: HookInput, project_root: Path | None, started: float, spawn: bool) -> _Answer:
    """The answer for one prompt and what to start after it; records the prompt, starts nothing."""
    nothing = render_output(host, None)
    paths, settings = _load(host, payload, project_root)
    if settings is None:
        return _Answer(HookOutcome(nothing, False, None, "error"))
    if not settings.rag_enabled:
        return _Answer(HookOutcome(nothing, False, None, "off"))
    if payload.empty:  # a writer slower than the hook (a pyenv shim at load 7 took 1.07 s) reads as nothing
        log_problem(paths, host.name, f"nothing on stdin within {STDIN_SECONDS:g} s of the hook's start (the host "
                                      "writes its JSON payload there); prompt not recorded")
    elif payload.cut:  # a 30 MB payload was logged "not a JSON object"
        log_problem(paths, host.name, f"stdin holds {MAX_STDIN_BYTES // (1024 * 1024)} MiB or more, more than a prompt "
                                      "payload; only that much was read; prompt not recorded")
    elif payload.malformed:
        log_problem(paths, host.name, "stdin is not a JSON object; prompt not recorded")
    prompt = payload.prompt
    if prompt:
        from paqad.deliver.query import bounded_prompt

        prompt = bounded_prompt(prompt)  # a pasted log: its question and telling lines, searched in budget
    if not prompt or not prompt.strip():  # a refresh is still worth it: changed files are a query too
        return _Answer(HookOutcome(nothing, False, None, "no prompt"), paths, True, "")
    deadline = started + settings.rag_hook_budget_ms / 1000.0 - OUTPUT_MARGIN_SECONDS
    try:
        from paqad.deliver.query import record_prompt

        record_prompt(paths, prompt, host=host.name)
    except Exception as exc:  # noqa: BLE001
        log_problem(paths, host.name, "cannot record the prompt", exc, secret=prompt)
    if not host.adds_context:  # the refresh re-runs the search for the recorded prompt
        return _Answer(HookOutcome(nothing, False, None, "host cannot add context"), paths, True, prompt)
    if not index_exists(paths):
        # Nothing to search and nothing for a refresh to sync: skip importing the search stack.
        return _Answer(HookOutcome(nothing, False, None, "no index"))
    start_warm = False
    # The warm process reads its settings from the files, not from this process's environment: a
    # PAQAD_RAG_* variable set for this prompt is honoured by answering here instead.
    from paqad.hosts import warm

    if settings.rag_warm_process and not warm.settings_in_environment():
        try:
            section = warm.ask(paths, prompt, deadline)
        except warm.Miss as miss:
            start_warm = spawn and miss.absent
        else:
            outcome = (HookOutcome(render_output(host, section), True, None, "", "warm") if section
                       else HookOutcome(nothing, False, None, "no section", "warm"))
            return _Answer(outcome, paths, True, prompt)
    outcome = _search_here(host, paths, settings, prompt, started, deadline)
    return _Answer(outcome, paths, True, prompt, start_warm)


def _search_here(host: Host, paths: ProjectPaths, settings, prompt: str, started: float, deadline: float) -> HookOutcome:
    """Search in this process, in a thread abandoned at ``deadline``: the hybrid section, else the
    keyword one if it was ready, else nothing (and the reason logged)."""
    nothing = render_output(host, None)
    result: dict[str, Any] = {}

    def search() -> None:
        try:
            from paqad.deliver.answer import section_for_prompt

            # The keyword answer is stored as soon as it exists: at the deadline the hook sends
            # it if the hybrid one (model load and prompt embedding on a busy CPU) is not there.
            section = section_for_prompt(paths, settings, prompt, deadline, started=started,
                                         keyword_first=lambda text: result.__setitem__("section", text),
                                         warn=lambda why: log_problem(paths, host.name, why))
            result["section"] = section
            result["done"] = True
        except BaseException as exc:  # noqa: BLE001
            result["error"] = exc

    worker = threading.Thread(target=search, name="paqad-hook-search", daemon=True)
    worker.start()
    worker.join(max(0.0, deadline - time.monotonic()))
    section = result.get("section")
    if worker.is_alive():
        if section:  # the keyword answer made it; the hybrid one did not
            return HookOutcome(render_output(host, section), True, worker, "", "process")
        log_problem(paths, host.name, f"search did not finish within rag_hook_budget_ms={settings.rag_hook_budget_ms}")
        return HookOutcome(nothing, False, worker, "timeout", "process")
    if "error" in result and not section:
        log_problem(paths, host.name, "search failed", result["error"], secret=prompt)
        return HookOutcome(nothing, False, None, "error", "process")
    if not section:
        return HookOutcome(nothing, False, None, "no section", "process")
    return HookOutcome(render_output(host, section), True, None, "", "process")


def _start_dir(host: Host, payload: HookInput) -> Path | None:
    """Where to look for the project: the host's project-dir variable, else the payload's cwd."""
    exported = os.environ.get(PROJECT_DIR_ENV.get(host.name, ""), "")
    for candidate in (Path(exported) if exported else None, payload.start_dir):
        if candidate is not None and candidate.is_dir():
            return candidate
    return None


def _start_refresh(paths: ProjectPaths, host: Host, prompt: str, spawn: bool) -> None:
    if not spawn:
        return
    try:
        spawn_refresh(paths.root)
    except Exception as exc:  # noqa: BLE001
        log_problem(paths, host.name, "cannot start rag refresh-context", exc, secret=prompt)
