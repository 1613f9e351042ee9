"""The warm per-project process: the model and the index stay loaded between prompts (DESIGN §10).

A prompt hook is a new process each time: Python start, the search stack's imports and the
model load cost most of its budget, several times over on a busy CPU. The warm process pays
them once. It is started on demand by the hook (:func:`ask`, when no warm process answers),
serves this one project on a private Unix socket, ``.paqad/state/warm.sock`` (mode 0600, and
only this user's processes are answered: ``SO_PEERCRED``), and exits after
:data:`IDLE_SECONDS` without a request, when the index is gone, or when a hook of another
paqad-ai version asks. The hook falls back to answering in its own process whenever the warm
process is absent, busy or slow; a warm answer is the same section the hook would compute
(:func:`paqad.deliver.answer.section_for_prompt`, keyword evidence first, within the deadline).

Protocol: one JSON line each way per connection. Request ``{"version": "0.1.0", "prompt": str,
"seconds": float}`` (``seconds``: the budget left); reply ``{"section": str | null}`` or
``{"error": str}``. ``rag probe`` (:mod:`paqad.hosts.warm_probe`) sends ``{"version": ..., "probe":
{"query": str, "top_n": int | null, "path_prefix": str | null, "no_sync": bool}}``; reply
``{"probe": <rag probe --json>, "messages": [[kind, text], ...]}`` or ``{"fallback": why}``.

    python -m paqad.hosts.warm --project-root /path/to/project     # what the hook starts

This module imports only the standard library at load time: the hook's side stays cheap.
"""

from __future__ import annotations

import json
import os
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

from paqad import __version__
from paqad.hosts.module_command import python_module_command
from paqad.project import ProjectPaths

SOCKET_NAME = "warm.sock"
LOCK_NAME = "warm.lock"
IDLE_SECONDS = 600.0  # a warm process with no request for 10 minutes exits
MAX_MESSAGE_BYTES = 1 << 20
MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes; longer project paths go without a warm process
REPLY_MARGIN_SECONDS = 0.02  # the server answers this much before the hook's deadline
# Settings the hook itself applies, or that only builds read (the warm process's answer does not
# depend on them).
HOOK_SIDE_VARIABLES = frozenset({"PAQAD_RAG_WARM_PROCESS", "PAQAD_RAG_HOOK_BUDGET_MS", "PAQAD_RAG_TEAM_STORE",
                                 "PAQAD_RAG_TEAM_STORE_WRITE"})


class Miss(Exception):
    """No usable answer from a warm process (absent, busy, slow, broken): answer in process."""

    def __init__(self, why: str, absent: bool = False):
        super().__init__(why)
        self.absent = absent


def _listening(path: Path) -> socket.socket:
    """A Unix socket (owner-only) listening at ``path``: bound and listening under a name of the
    same length beside it, then renamed into place, because a socket file that exists before
    ``listen()`` refuses connections and a hook arriving in that moment would miss the warm
    process (a loaded machine's CI run caught it: the file existed, the connect was refused)."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    pending = path.with_name("warm.new")  # as long as SOCKET_NAME: MAX_SOCKET_PATH holds for both
    pending.unlink(missing_ok=True)
    old_umask = os.umask(0o177)
    try:
        server.bind(os.fspath(pending))
    finally:
        os.umask(old_umask)
    server.listen(8)
    os.replace(pending, path)
    return server


def socket_path(paths: ProjectPaths) -> Path:
    """The Unix socket the project's warm process listens on (under ``.paqad/state/``)."""
    return paths.state_dir / SOCKET_NAME


# --- the hook's side ---------------------------------------------------------------------------


def ask(paths: ProjectPaths, prompt: str, deadline: float) -> str | None:
    """The section for ``prompt`` from the project's warm process, by ``deadline`` (monotonic).

    Raises :class:`Miss` when no warm process answers in time (``Miss.absent``: none is
    running; :func:`start` one for the next prompts). Never raises anything else.
    """
    reply = _exchange(paths, {"version": __version__, "prompt": prompt, "seconds": deadline - time.monotonic()},
                      deadline)
    if "section" not in reply:
        raise Miss(f"warm process answered {reply!r:.200}")
    section = reply["section"]
    return section if isinstance(section, str) else None


def settings_in_environment() -> bool:
    """True when a ``PAQAD_RAG_*`` variable that changes an answer is set here: the warm process
    reads its settings from the files only, so such a call is answered in its own process."""
    return any(name.startswith("PAQAD_RAG_") and name not in HOOK_SIDE_VARIABLES for name in os.environ)


def ask_probe(paths: ProjectPaths, probe: dict, deadline: float) -> dict:
    """The warm process's reply to a ``rag probe`` request (see the protocol above), by ``deadline``.

    Raises :class:`Miss` when it does not answer in time, answers ``fallback`` or an error
    (``Miss.absent``: none is running). Never raises anything else.
    """
    reply = _exchange(paths, {"version": __version__, "probe": probe}, deadline)
    if "probe" not in reply:
        raise Miss(f"warm process answered {reply!r:.200}")
    return reply


def _exchange(paths: ProjectPaths, request: dict, deadline: float) -> dict:
    """One request line out and one reply line (a JSON object) back; :class:`Miss` otherwise."""
    path = socket_path(paths)
    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        raise Miss("project path too long for a Unix socket")
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        client.settimeout(max(0.001, deadline - time.monotonic()))
        try:
            client.connect(os.fspath(path))
        except OSError:
            raise Miss("no warm process", absent=True) from None
        client.sendall(json.dumps(request).encode("utf-8") + b"\n")
        reply = _read_line(client, deadline)
    except (OSError, ValueError) as exc:
        raise Miss(f"warm process failed: {exc}") from None
    finally:
        client.close()
    if not isinstance(reply, dict) or "error" in reply:
        raise Miss(f"warm process answered {reply!r:.200}")
    return reply


def stop(paths: ProjectPaths, timeout: float = 5.0) -> bool:
    """Ask the project's warm process to exit; True when one was there. Waits until it has."""
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        client.settimeout(timeout)
        client.connect(os.fspath(socket_path(paths)))
        client.sendall(b'{"stop": true}\n')
        _read_line(client, time.monotonic() + timeout)
    except (OSError, ValueError):
        return False
    finally:
        client.close()
    end = time.monotonic() + timeout
    while socket_path(paths).exists() and time.monotonic() < end:
        time.sleep(0.02)
    return True


def _read_line(conn: socket.socket, deadline: float) -> object:
    data = b""
    while not data.endswith(b"\n"):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise OSError("timed out")
        conn.settimeout(remaining)
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
        if len(data) > MAX_MESSAGE_BYTES:
            raise ValueError("message too long")
    return json.loads(data.decode("utf-8"))


def start(paths: ProjectPaths) -> None:
    """Start the warm process detached (own session, no inherited stdio), like the refresh; the
    project folder is its working folder but never on its import path (a project's ``typing.py``
    must not replace the standard library's)."""
    try:
        subprocess.Popen(
            python_module_command("paqad.hosts.warm", "--project-root", str(paths.root)),
            cwd=paths.root, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            close_fds=True, start_new_session=True,
        )
    except OSError:
        pass


# --- the warm process --------------------------------------------------------------------------


def serve(paths: ProjectPaths, idle_seconds: float = IDLE_SECONDS) -> int:
    """Answer prompts for ``paths`` until idle for ``idle_seconds``. Returns an exit code.

    Only one warm process per project (``state/warm.lock``); a second one exits at once. The
    socket is bound only once the process is warm (search stack imported, model loaded, vectors
    read): until then a hook finds no warm process and answers in its own process.
    """
    import fcntl

    paths.state_dir.mkdir(parents=True, exist_ok=True)
    lock_fd = os.open(paths.state_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(lock_fd)
        return 0
    path = socket_path(paths)
    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        os.close(lock_fd)
        return 0
    path.unlink(missing_ok=True)  # ours to replace: we hold the lock
    # Warm up before listening: a hook that connected to a cold "warm" process would wait for the
    # model to load and spend its budget there; with no socket it answers in its own process.
    engine = _Engine(paths)
    try:
        engine.warm_up()
    except BaseException:
        os.close(lock_fd)
        raise
    server = _listening(path)
    try:
        last = time.monotonic()
        while True:
            server.settimeout(max(0.1, idle_seconds - (time.monotonic() - last)))
            try:
                conn, _ = server.accept()
            except socket.timeout:
                if time.monotonic() - last >= idle_seconds:
                    return 0
                continue
            last = time.monotonic()
            with conn:
                if not _same_user(conn):
                    continue
                if engine.answer(conn) == "exit" or not paths.index_db.exists():
                    return 0
    finally:
        path.unlink(missing_ok=True)  # ours: we hold the lock
        server.close()
        os.close(lock_fd)


def _same_user(conn: socket.socket) -> bool:
    """Linux ``SO_PEERCRED``: only this user's processes are answered (elsewhere: the 0600 mode)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True
    try:
        _, uid, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    except OSError:
        return False
    return uid == os.getuid()


class _Engine:
    """What the warm process keeps loaded: the search stack, the model (one embedder per
    provider, model and precision: settings are re-read per request, cheap) and the index's
    dense view (reloaded when a commit changes it)."""

    def __init__(self, paths: ProjectPaths):
        self.paths = paths
        self.embedders: dict[tuple[str, str, str], object] = {}

    def warm_up(self) -> None:
        """Import the search stack and load the model and the index's vectors before the first prompt."""
        from paqad.deliver.answer import section_for_prompt

        # A prompt that needs retrieval (a chat-like one would skip the search and load nothing).
        self.answer_prompt("where is the error handling of the main entry point?", time.monotonic() + 60.0,
                           section_for_prompt)

    def settings_and_embedder(self):
        """The settings as the files say now, and the embedder they name (None while unusable)."""
        import warnings

        from paqad.config import load_settings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            settings = load_settings(self.paths)
        key = (settings.rag_embedding_provider, settings.rag_embedding_model, settings.rag_embedding_precision)
        if self.embedders.get(key) is None:  # retried per request until the model is there
            from paqad.deliver.answer import configured_embedder

            self.embedders[key] = configured_embedder(self.paths, settings)[0]
        return settings, self.embedders[key]

    def answer_prompt(self, prompt: str, deadline: float, section_for_prompt=None) -> str | None:
        if section_for_prompt is None:
            from paqad.deliver.answer import section_for_prompt
        settings, embedder = self.settings_and_embedder()
        return section_for_prompt(self.paths, settings, prompt, deadline, embedder)

    def answer_probe(self, request: dict) -> dict:
        """``rag probe``'s job for a probe request (:func:`paqad.hosts.warm_probe.serve_probe`)."""
        from paqad.hosts.warm_probe import serve_probe

        settings, embedder = self.settings_and_embedder()
        return serve_probe(self.paths, settings, embedder, request)

    def answer(self, conn: socket.socket) -> str:
        """Serve one connection; ``"exit"`` when the process should stop."""
        started = time.monotonic()
        try:
            request = _read_line(conn, started + 2.0)
            if isinstance(request, dict) and request.get("stop"):
                conn.sendall(b'{"section": null}\n')
                return "exit"
            if not isinstance(request, dict) or not (isinstance(request.get("prompt"), str)
                                                     or isinstance(request.get("probe"), dict)):
                raise ValueError("bad request")
            if request.get("version") != __version__:
                conn.sendall(json.dumps({"error": f"warm process is paqad-ai {__version__}"}).encode() + b"\n")
                return "exit"
            if "probe" in request:
                reply = self.answer_probe(request["probe"])
            else:
                seconds = float(request.get("seconds", 1.0))
                reply = {"section": self.answer_prompt(request["prompt"], started + seconds - REPLY_MARGIN_SECONDS)}
            conn.sendall(json.dumps(reply, ensure_ascii=False).encode("utf-8") + b"\n")
        except Exception as exc:  # noqa: BLE001 - one bad request never stops the warm process
            try:
                conn.sendall(json.dumps({"error": f"{type(exc).__name__}: {exc}"[:500]}).encode() + b"\n")
            except OSError:
                pass
        return ""


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m paqad.hosts.warm", description=__doc__.split("\n\n")[0])
    parser.add_argument("--project-root", type=Path, required=True)
    parser.add_argument("--idle-seconds", type=float, default=IDLE_SECONDS)
    args = parser.parse_args(argv)
    return serve(ProjectPaths(args.project_root.resolve()), args.idle_seconds)


if __name__ == "__main__":  # pragma: no cover - the hook starts it this way
    sys.exit(main())
