"""The student's process: install the served module, run pytest, report each test.

``main(fd, module_name, suite_dir)`` is what the confined process runs. The grader's first
frame is ``{"names": [...], "seed": N, "skip": [...]}``: the module's public names, the
run seed, and the tests already run in this run (empty on a run's first process; the
grader starts another process after a test that crashed or ran out of time, to run the
tests after it). The hello is the same for every implementation: the suite runs every
test it collects whatever serves the module (the grader filters invalid tests when it
scores), so nothing but behaviour tells a wheat from a chaff. Before each test,
``random`` and numpy's global generator are seeded from the run seed, and a suite that
uses Hypothesis gets ``--hypothesis-seed`` and no wall-clock deadline or too-slow health
check (a busy machine must not change an outcome). Then pytest runs the suite with
``Reporter`` as a plugin, which sends ``@collected``, ``@start``, ``@result`` and
``@collect-error`` reports on the same channel. The suite could forge these reports, but a
forgery can only depend on what the tests can observe, the implementation's behaviour.
"""

from __future__ import annotations

import gc
import os
import random
import socket
from pathlib import Path

from . import Link, channel, install

MESSAGE_CHARS = 2000


class Reporter:
    """A pytest plugin: one ``@result`` per test (its worst phase), with the message."""

    def __init__(self, link: Link, seed: int, skip: list[str]):
        self.link, self.seed, self.skip = link, seed, frozenset(skip)
        self.outcomes: dict[str, tuple[str, str]] = {}

    def pytest_collection_modifyitems(self, session, config, items):
        if self.skip:  # a later process of the run: the tests before the one that ended the last are done
            config.hook.pytest_deselected(items=[i for i in items if i.nodeid in self.skip])
            items[:] = [i for i in items if i.nodeid not in self.skip]

    def pytest_runtest_setup(self, item):
        random.seed(self.seed)
        import numpy

        numpy.random.seed(self.seed % (1 << 32))

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
    gc.disable()  # for the shim's own imports (pytest, numpy, Hypothesis): on again before the suite's
    home = os.environ.get("HOME")
    if home:
        os.makedirs(home, mode=0o700, exist_ok=True)
        os.chdir(home)
    link = Link(socket.socket(fileno=fd))
    hello = channel.receive(link.sock, None)
    install(module_name, link, list(hello["names"]))
    seed = int(hello["seed"])
    import pytest

    args = [suite_dir, "-q", "-p", "no:cacheprovider", "--rootdir", suite_dir, "-c", os.devnull]
    args += _hypothesis_arguments(suite_dir, seed)
    _collector_on()
    code = pytest.main(args, plugins=[Reporter(link, seed, list(hello["skip"]))])
    link.report("exit", int(code))
    return int(code)


def _collector_on() -> None:
    """The garbage collector on again, before any of the suite's code runs (under the
    collector's defaults, as in any process), with what the shim imported frozen out of
    every collection (``gc.freeze``: pytest's own collection at exit and the suite's
    collections skip the ~100,000 objects of pytest, numpy and Hypothesis). ~0.1 CPU s of
    a student's process went to collections before; the same for every implementation."""
    gc.freeze()
    gc.enable()


def _hypothesis_arguments(suite_dir: str, seed: int) -> list[str]:
    """The run seed for a suite that uses Hypothesis, and no wall-clock limits of its own
    (its ``deadline`` and ``too_slow`` health check would let the machine's load decide)."""
    uses = any(b"hypothesis" in p.read_bytes() for p in Path(suite_dir).rglob("*.py") if p.is_file())
    if not uses:
        return []
    _lay_unicode_table()
    try:
        from hypothesis import HealthCheck, settings
    except ImportError:
        return []
    settings.register_profile("constrain-harness", deadline=None, database=None,
                              suppress_health_check=[HealthCheck.too_slow])
    return ["-p", "_hypothesis_pytestplugin", f"--hypothesis-seed={seed}", "--hypothesis-profile=constrain-harness"]


UNICODE_TABLE = Path(__file__).with_name("unicode_table.json.gz")  # harness.grading.gradetests.unicode_table


def _lay_unicode_table() -> None:
    """Hypothesis's Unicode table, which the grader put beside this file, copied to where
    Hypothesis (not imported yet) reads it from this process's home, the current folder:
    it need not build the table from every code point (~0.17 CPU s). No table (another
    grader), nothing copied: Hypothesis builds it, as it would anyway."""
    if not UNICODE_TABLE.is_file():
        return
    import unicodedata

    target = Path(".hypothesis", "unicode_data", unicodedata.unidata_version, "charmap.json.gz")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(UNICODE_TABLE.read_bytes())
