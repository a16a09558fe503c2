"""``tests/support/cost_audit.py``, the plugin that prices each test and finds the tests not marked
``e2e`` that start a process (docs/testing.md, "Test suite speed"): run on a sample module, it
names the unmarked test that starts a child and no other, and records every test's CPU seconds."""

from __future__ import annotations

import json
import os

import pytest

from tests.support.helpers import ROOT

pytest_plugins = ["pytester"]

SAMPLE = '''
import subprocess
import sys

import pytest


def test_starts_a_child():
    subprocess.run([sys.executable, "-c", "pass"], check=True)


@pytest.mark.e2e
def test_marked_and_starts_a_child():
    subprocess.run([sys.executable, "-c", "pass"], check=True)


def test_in_process():
    assert sum(range(10)) == 45
'''


@pytest.mark.e2e  # a pytest child, which starts two Python children
def test_the_audit_names_the_unmarked_test_that_starts_a_process(pytester, tmp_path, monkeypatch):
    pytester.makepyfile(test_sample=SAMPLE)
    pytester.makeini("[pytest]\nmarkers =\n    e2e: starts a process\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    audit = tmp_path / "cost.jsonl"
    result = pytester.runpytest_subprocess("-p", "no:xdist", "-p", "no:randomly", "-p", "tests.support.cost_audit",
                                           f"--cost-audit={audit}")
    result.assert_outcomes(passed=3)
    summary = result.stdout.str().split("tests not marked e2e that started a process")[1]
    assert "test_sample.py::test_starts_a_child" in summary
    assert "test_marked_and_starts_a_child" not in summary and "test_in_process" not in summary
    records = {r["test"].split("::")[1]: r for r in map(json.loads, audit.read_text().splitlines())}
    assert set(records) == {"test_starts_a_child", "test_marked_and_starts_a_child", "test_in_process"}
    assert records["test_starts_a_child"]["started"] == {"Popen": 1} and not records["test_starts_a_child"]["e2e"]
    assert records["test_marked_and_starts_a_child"]["e2e"] and records["test_in_process"]["started"] == {}
    assert all(r["cpu"] >= 0 and r["wall"] >= 0 for r in records.values())


OUTLIVES = '''
import os
import subprocess
import sys


def test_leaves_a_child_running_past_the_session(tmp_path_factory):
    # its session's pid, for the test that runs it; a child that outlives the session by seconds
    with open(os.environ["AUDIT_PID_FILE"], "w") as f:
        f.write(str(os.getpid()))
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3)"], start_new_session=True)
'''


@pytest.mark.e2e  # a pytest child, which starts a Python child
def test_the_audit_leaves_no_cgroup_behind_its_own_nor_an_earlier_sessions(pytester, tmp_path, monkeypatch):
    from tests.support import cost_audit

    stale = subprocess_pid_gone()
    earlier = cost_audit.CPUACCT / f"{cost_audit.PREFIX}{stale}"
    try:
        earlier.mkdir()   # a session killed before its end left this (empty) cgroup
    except OSError:
        pytest.skip(f"no cpuacct cgroup can be made here ({cost_audit.CPUACCT})")
    pytester.makepyfile(test_sample=OUTLIVES)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("AUDIT_PID_FILE", str(tmp_path / "pid"))
    try:
        result = pytester.runpytest_subprocess("-p", "no:xdist", "-p", "no:randomly", "-p",
                                               "tests.support.cost_audit", f"--cost-audit={tmp_path / 'cost.jsonl'}")
    finally:
        left = earlier.exists()
        if left:
            earlier.rmdir()   # ours: never left to the machine, whatever the verdict
    result.assert_outcomes(passed=1)
    record = json.loads((tmp_path / "cost.jsonl").read_text())
    assert "cgroup_cpu" in record   # the session had its cgroup
    own = cost_audit.CPUACCT / f"{cost_audit.PREFIX}{(tmp_path / 'pid').read_text()}"
    assert not own.exists(), "the session's cgroup was left behind"   # its child had left it by then
    assert not left, "an earlier session's empty cgroup was left behind"


def subprocess_pid_gone() -> int:
    """The pid of a process that has ended (reaped): a session no longer running."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(proc.stdout)
