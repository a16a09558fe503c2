"""How ``check`` says its grader child ended (``harness.grading.check._own_limit``,
``_how_it_ended``), with real children watched by the real ``_watch``: one killed by its own
``RLIMIT_CPU`` hard limit (inherited from the grader), one killed from outside. A SIGKILL is
said to be only what is known; the test's verdict stays "timeout" either way."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading

import pytest

from harness.grading import check
from harness.run.records import ResultReader

SPIN = [sys.executable, "-I", "-c", "while True: pass"]
TEST = "test_hand_example"


def _end(child, tmp_path) -> dict:
    """Watch ``child`` until it ends, as ``check`` does, then say how it ended in a test."""
    options = check.CheckOptions(impl="x.py")
    watch = check._Watch(child, options)
    reader = ResultReader(tmp_path / "results.jsonl")
    reader.path.touch()
    result = check.CheckResult(options, load={"status": "ok"}, tests=[check.Verdict(TEST, ("unit",))])
    killed = check._watch(watch, reader, result)
    own = "" if killed else check._own_limit(child.returncode, watch.cpu, None, 0)
    reader.current = TEST  # the child died in this test
    log = tmp_path / "child.log"
    log.write_text("")
    check._after_exit(result, reader, child.returncode, killed, log, own)
    return {"code": child.returncode, "killed": killed, "own": own, "cpu": watch.cpu,
            "status": result.tests[0].status, "reason": result.tests[0].reason}


@pytest.mark.e2e  # a Python child
def test_a_grader_child_killed_from_outside_is_not_called_out_of_memory(tmp_path):
    child = subprocess.Popen(SPIN, start_new_session=True)
    threading.Timer(0.5, os.kill, (child.pid, signal.SIGKILL)).start()
    ended = _end(child, tmp_path)
    assert ended["code"] == -signal.SIGKILL and ended["own"] == "" and ended["status"] == "timeout"
    assert ended["reason"] == ("the child died of SIGKILL "
                               "(killed by a signal from outside the harness, or the kernel)")
    assert "out of memory" not in ended["reason"]


GRADER = textwrap.dedent("""
    import json, math, resource, subprocess, sys, time
    from pathlib import Path
    sys.path.insert(0, sys.argv[2])
    import test_check_child_end as t
    # this grader's own hard limit, inherited by its child (which spins until it): half a CPU
    # second or more left to the grader for watching, so 1 s for the child after ~0.2 s of imports
    limit = math.ceil(time.process_time() + 0.5)
    resource.setrlimit(resource.RLIMIT_CPU, (limit, limit))
    child = subprocess.Popen(t.SPIN, start_new_session=True)
    print(json.dumps(dict(t._end(child, Path(sys.argv[1])), limit=limit)))
""")


@pytest.mark.e2e  # a Python grader and its child
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_CPU's SIGKILL is Linux's")
def test_a_grader_child_at_its_own_cpu_limit_is_said_so(tmp_path):
    # the grader runs under an RLIMIT_CPU hard limit (soft equal to it): its child, which inherits
    # it, spins until the kernel's SIGKILL; the words name its CPU-time limit, not memory
    here = os.path.dirname(os.path.abspath(__file__))
    proc = subprocess.run([sys.executable, "-c", GRADER, str(tmp_path), here], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    ended = json.loads(proc.stdout.strip().splitlines()[-1])
    assert ended["code"] == -signal.SIGKILL and ended["killed"] is None
    assert ended["own"] == "cpu", ended   # its CPU at the last look: LAST_LOOK_SHARE of the limit or more
    assert ended["status"] == "timeout"   # as before: only the words changed
    assert ended["reason"] == "the child died of SIGKILL (its CPU-time limit)"


@pytest.mark.parametrize("own, words", [("cpu", "its CPU-time limit"), ("memory", "out of memory"),
                                        ("", "killed by a signal from outside the harness, or the kernel")])
def test_each_known_end_of_a_sigkill_has_its_words(tmp_path, own, words):
    log = tmp_path / "child.log"
    log.write_text("")
    assert check._how_it_ended(-signal.SIGKILL, None, log, own) == f"the child died of SIGKILL ({words})"


class _Group:
    """A cgroup that counted one OOM kill at its own limit since ``since`` 0 (``Cgroup.oom_killed``)."""

    def oom_killed(self, since: int) -> bool:
        return since == 0


def test_the_grader_s_cgroup_oom_kill_is_memory_and_only_for_a_sigkill():
    assert check._own_limit(-signal.SIGKILL, 0.1, _Group(), 0) == "memory"
    assert check._own_limit(-signal.SIGKILL, 0.1, _Group(), 1) == ""      # counted before the child started
    assert check._own_limit(-signal.SIGSEGV, 0.1, _Group(), 0) == ""
