"""The student's process: install the served module, run pytest, report each test.

``main(fd, module_name, suite_dir)`` is what the confined process runs. The grader's first
frame is ``{"names": [...], "only": [...] or None}`` (the module's public names, and the
tests to run: on chaffs, only the tests valid on every wheat); then pytest runs the suite with
``Reporter`` as a plugin, which sends ``@collected``, ``@start``, ``@result`` and
``@collect-error`` reports on the same channel. The suite could forge these reports, but a
forgery can only depend on what the tests can observe, the implementation's behaviour.
"""

from __future__ import annotations

import os
import socket

from . import Link, channel, install

MESSAGE_CHARS = 2000


class Reporter:
    """A pytest plugin: one ``@result`` per test (its worst phase), with the message."""

    def __init__(self, link: Link, only: list[str] | None = None):
        self.link, self.only = link, None if only is None else set(only)
        self.outcomes: dict[str, tuple[str, str]] = {}

    def pytest_collection_modifyitems(self, session, config, items):
        if self.only is not None:  # the grader runs only the tests valid on every wheat
            config.hook.pytest_deselected(items=[i for i in items if i.nodeid not in self.only])
            items[:] = [i for i in items if i.nodeid in self.only]

    def pytest_collection_finish(self, session):
        self.link.report("collected", [item.nodeid for item in session.items])

    def pytest_collectreport(self, report):
        if report.failed:
            self.link.report("collect-error", report.nodeid, _message(report))

    def pytest_runtest_logstart(self, nodeid, location):
        self.link.report("start", nodeid)

    def pytest_runtest_logreport(self, report):
        outcome = "passed"
        if report.failed:
            outcome = "failed" if report.when == "call" else "error"
        elif report.skipped:
            outcome = "skipped"
        previous = self.outcomes.get(report.nodeid, ("passed", ""))
        if _rank(outcome) > _rank(previous[0]):
            self.outcomes[report.nodeid] = (outcome, _message(report) if outcome != "skipped" else "")

    def pytest_runtest_logfinish(self, nodeid, location):
        outcome, message = self.outcomes.pop(nodeid, ("passed", ""))
        self.link.report("result", nodeid, outcome, message)


def _rank(outcome: str) -> int:
    return {"passed": 0, "skipped": 1, "failed": 2, "error": 3}[outcome]


def _message(report) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr)
    return text[-MESSAGE_CHARS:]


def main(fd: int, module_name: str, suite_dir: str) -> int:
    home = os.environ.get("HOME")
    if home:
        os.makedirs(home, mode=0o700, exist_ok=True)
        os.chdir(home)
    link = Link(socket.socket(fileno=fd))
    hello = channel.receive(link.sock, None)
    install(module_name, link, list(hello["names"]))
    import pytest

    code = pytest.main([suite_dir, "-q", "-p", "no:cacheprovider", "--rootdir", suite_dir, "-c", os.devnull],
                       plugins=[Reporter(link, hello.get("only"))])
    link.report("exit", int(code))
    return int(code)
