"""Issue 24, round 9 (issue localisation): what a pasted report points at. The template checklist
left out of a long prompt's text (analysis.without_checklists), the files a report names by a
site-packages frame, a repository link, a diff header or a dotted module (signals.report_paths);
on a real index of a small
task-queue package with sibling backend modules, with the real model (the benchmark is
bench/issues/run.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import build_index
from conftest import ranked_files as _files
from paqad.search import RankingOptions, ablations
from paqad.search.analysis import analyze, without_checklists
from paqad.search.ablations import ROUND_9_OFF
from paqad.search.signals import in_force
from paqad.search.signals.report_paths import module_tails, path_tails

CHECKLIST = """# Checklist

- [x] I have verified that the issue exists against the `main` branch of Taskq.
- [x] I have read the relevant section in the
  [contribution guide](https://docs.taskq.dev/en/main/contributing.html#other-bugs)
  on reporting bugs.
- [ ] I have checked the [issues list](https://github.com/taskq/taskq/issues?q=is%3Aissue)
  for similar or identical bug reports.

## Mandatory Debugging Information
"""


def test_a_checklist_and_its_continuation_lines_are_not_the_report():
    assert without_checklists(CHECKLIST) == "# Checklist\n\n\n## Mandatory Debugging Information"
    info = analyze("Results are lost after a reconnect\n\n" + CHECKLIST + "\nThe result consumer drops them.")
    assert [i.text for i in info.identifiers] == []  # `main`, github.com, docs.taskq.dev came from the template
    assert "verified" not in info.lexical_text and "consumer drops" in info.lexical_text
    # a link's names stay identifiers (leaving them out was measured and left off: bench/README round 9)
    long = analyze("Leak in EventDispatcher\n\nSee https://docs.python.org/3/library/logging.html for the handler.\n" * 3)
    assert [i.text for i in long.identifiers] == ["EventDispatcher", "docs.python.org", "logging.html"]


def test_the_paths_and_modules_a_report_points_at():
    report = analyze(
        'Crash on heartbeat\n\nTraceback (most recent call last):\n'
        '  File "/usr/local/lib/python3.12/site-packages/taskq/worker/control.py", line 363, in heartbeat\n'
        "    dispatcher.send('worker-heartbeat')\n"
        "See https://github.com/taskq/taskq/blob/fde452d/taskq/backends/rpc.py#L191 and a/taskq/app.py, "
        "raised from taskq.backends.redis and taskq.exceptions.TaskqError.\n")
    assert path_tails(report) == {"taskq/worker/control.py", "taskq/backends/rpc.py", "taskq/app.py"}
    # every dotted name of two or more parts is a candidate module path (`dispatcher/send` matches no file)
    assert module_tails(report) == {"dispatcher/send", "taskq/backends", "taskq/backends/redis"}  # not the error's module


def test_report_paths_is_on_by_default():
    assert "report_paths" in in_force(RankingOptions())
    assert "report_paths" not in in_force(ablations()["no-report-paths"])
    assert "report_paths" not in in_force(ablations()["round-8-default"])
    assert "report_paths" not in in_force(RankingOptions(**ROUND_9_OFF))


BASE = '''"""Result backends: the base class every backend derives from."""


class BaseBackend:
    """Stores task results and states; subclasses talk to a broker or a database."""

    def __init__(self, app):
        self.app = app
        self._cache = {}

    def store_result(self, task_id, result, state):
        """Store the result and state of a task."""
        raise NotImplementedError

    def get_task_meta(self, task_id):
        """The stored state and result of a task: a dict with status and result."""
        raise NotImplementedError

    def mark_as_done(self, task_id, result):
        """Mark a task as successfully executed and store its result."""
        return self.store_result(task_id, result, "SUCCESS")

    def on_state_change(self, meta, message):
        """Called when a task's state changes: the result of a polled task is cached."""
        self._cache[meta["task_id"]] = meta
'''
RPC = '''"""The RPC result backend: results are sent back as messages on a reply queue."""

from taskq.backends.base import BaseBackend


class RPCBackend(BaseBackend):
    """Sends results to the caller's reply queue; the caller consumes them."""

    def __init__(self, app):
        super().__init__(app)
        self._out_of_band = {}

    def get_task_meta(self, task_id):
        latest = None
        for message in self.app.connection.slurp(task_id):
            if message.task_id != task_id:
                self._out_of_band[message.task_id] = message
            latest = message
        if latest is not None:
            latest.requeue()
        return latest.payload if latest else {"status": "PENDING"}
'''
REDIS = '''"""The Redis result backend: results are stored under a key per task and published.

Polling the state of a finished task reads its result message again; the client keeps the
result of every polled task in memory until the result is forgotten, so memory grows while
finished tasks are polled and nothing removes a stored result message.
"""

from taskq.backends.base import BaseBackend


class RedisBackend(BaseBackend):
    """Stores each task's state and result in Redis, publishing state changes."""

    def poll_state(self, task_id):
        """Poll the state of a task: a finished task's result message is read and stored again."""
        return self.get_task_meta(task_id)["status"]

    def get_task_meta(self, task_id):
        """Read the state and result of a task from its Redis key; the result message stays stored."""
        return self.app.redis.get("taskq-task-meta-" + task_id) or {"status": "PENDING"}

    def forget(self, task_id):
        """Remove a finished task's stored result message, so memory does not keep growing."""
        self.app.redis.delete("taskq-task-meta-" + task_id)
'''
CONTROL = '''"""Remote control commands a worker answers: ping, heartbeat, shutdown."""


def ping(state):
    """Reply to a ping."""
    return {"ok": "pong"}


def heartbeat(state):
    """Tell the worker to send an event heartbeat now."""
    dispatcher = state.consumer.event_dispatcher
    dispatcher.send("worker-heartbeat", freq=5)


def shutdown(state):
    """Shut the worker down."""
    raise SystemExit("shutdown")
'''
CONSUMER = '''"""The worker's consumer: receives task messages, dispatches events, restarts on connection loss.

After a broker reconnect the consumer restarts: the event dispatcher is closed (None) and not
back yet, so a heartbeat requested in between has no dispatcher to send the worker heartbeat with.
"""


class Consumer:
    """Consumes task messages from the broker and keeps the event dispatcher for heartbeats."""

    def __init__(self, app):
        self.app = app
        self.event_dispatcher = None

    def start(self):
        """Connect, start the event dispatcher that sends the worker heartbeat, and consume."""
        self.event_dispatcher = self.app.events.Dispatcher(heartbeat=True)
        self.event_dispatcher.send("worker-online")

    def on_connection_lost(self):
        """The broker went away: the dispatcher is None until the consumer restarts after reconnect."""
        self.event_dispatcher = None

    def send_heartbeat(self):
        """Send a worker heartbeat when requested; after a reconnect the event dispatcher may be None."""
        self.event_dispatcher.send("worker-heartbeat", freq=5)
'''
SETUP = '''"""Packaging for taskq: a task queue with result backends."""
from setuptools import setup

setup(name="taskq", version="1.0", description="Distributed task queue: workers, results, result backends")
'''
TASKQ = {
    "taskq/__init__.py": '"""Taskq: a small task queue."""\n',
    "taskq/backends/__init__.py": '"""Result backends."""\n',
    "taskq/backends/base.py": BASE,
    "taskq/backends/rpc.py": RPC,
    "taskq/backends/redis.py": REDIS,
    "taskq/worker/__init__.py": '"""The worker."""\n',
    "taskq/worker/control.py": CONTROL,
    "taskq/worker/consumer.py": CONSUMER,
    "setup.py": SETUP,
}


@pytest.fixture(scope="module")
def taskq(tmp_path_factory, paqad_home) -> Path:
    return build_index(tmp_path_factory.mktemp("round9") / "taskq", TASKQ, paqad_home)


ROUND_8 = RankingOptions(**ROUND_9_OFF)

MODULE_REPORT = """Heartbeat after a broker reconnect fails in taskq.worker.control

After a broker reconnect the consumer restarts and the event dispatcher is None, not back yet;
a heartbeat requested in between fails: the worker has no dispatcher to send the worker
heartbeat with, and logs AttributeError: 'NoneType' object has no attribute 'send'. The
consumer should not be asked for a heartbeat before it restarted its event dispatcher.
"""


def test_the_module_a_report_names_by_its_dotted_name_leads(taskq):
    # the consumer's docstrings tell the report's story; its title names taskq.worker.control
    assert _files(taskq, MODULE_REPORT)[:2] == ["taskq/worker/control.py", "taskq/worker/consumer.py"]
    assert _files(taskq, MODULE_REPORT, ROUND_8)[:2] == ["taskq/worker/consumer.py", "taskq/worker/control.py"]
    assert _files(taskq, MODULE_REPORT, ablations()["no-report-paths"])[0] == "taskq/worker/consumer.py"
