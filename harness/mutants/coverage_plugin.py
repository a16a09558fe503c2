"""pytest plugin of a coverage recording run (``harness.mutants.coverage``), loaded after
``harness.suite.plugin``: when the session ends, before the candidate process closes, ask
the recording copy of the reference for the lines it executed and write them, as JSON, to
``$CONSTRAIN_HARNESS_COVERAGE_OUT``. Used only with the reference's own recording copy.

It also measures what the run's one test costs on the reference (``harness.mutants.budgets``
calibrates each test's CPU budget from it), written to ``$CONSTRAIN_HARNESS_COVERAGE_OUT.cpu``:
``{"load": the candidate's CPU s before the test (its start and import), "candidate": its CPU s
during the test (what the test's budget counts), "grader": this process's CPU s during the test}``.
Both sides run under coverage's tracer here (the candidate's recording copy; the grader's own code
is not traced), so the candidate's figure is above its plain CPU: a budget made from it is looser,
never tighter.
"""

from __future__ import annotations

import json
import os
import time

import pytest

_CPU: dict = {}   # the session's one test: its figures (this process runs one test, ``coverage._record_one``)


def pytest_sessionstart(session) -> None:
    _CPU.clear()   # a process that ran a session before (a warm grader's fork holds none: a fresh start)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    from harness.suite import plugin

    candidate = plugin.live_candidate(item.config)
    before = candidate.cpu_seconds() if candidate is not None else 0.0
    grader = time.process_time()
    yield
    candidate = plugin.live_candidate(item.config)
    after = candidate.cpu_seconds() if candidate is not None else before
    _CPU.update(load=round(before, 3), candidate=round(max(0.0, after - before), 3),
                grader=round(time.process_time() - grader, 3))


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session, exitstatus) -> None:
    from harness.mutants.coverage import FUNCTION_NAME
    from harness.suite import plugin

    out = os.environ.get("CONSTRAIN_HARNESS_COVERAGE_OUT")
    candidate = plugin.live_candidate(session.config)
    if not out or candidate is None or not candidate.alive:
        return
    if _CPU:
        with open(out + ".cpu", "w", encoding="utf-8") as f:
            json.dump(_CPU, f)
    lines = getattr(candidate.module, FUNCTION_NAME)()
    found = {str(f): [int(n) for n in numbers] for f, numbers in dict(lines).items()}
    with open(out, "w", encoding="utf-8") as f:
        json.dump(found, f)
