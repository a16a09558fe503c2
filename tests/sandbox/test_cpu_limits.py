"""Limits count CPU seconds, wall time is only a backstop (issue 23, item 1): the tree's
CPU time (``harness.sandbox.cputime``), a candidate call's budget and its backstop
(``harness.sandbox.client``), and the mutant runner's runs (``harness.mutants.runner``).

Oracles: the CPU a known busy loop burns (``time.process_time`` in that process, written
out), and the policy's factor (``harness.policy.BACKSTOP_FACTOR``)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.policy import BACKSTOP_FACTOR
from harness.run import CatalogueRun
from harness.sandbox import Candidate, CandidateTimeout, cputime

CANDIDATES = Path(__file__).resolve().parents[1] / "candidates"
# a child that burns CPU in a grandchild it reaps, then in itself, then reports both and waits
BURNER = """
import os, sys, time
def burn(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
pid = os.fork()
if pid == 0:
    burn(0.4)
    os._exit(0)
os.waitpid(pid, 0)
burn(0.3)
print("burnt", flush=True)
sys.stdin.read()
"""


@pytest.mark.e2e
def test_the_tree_counts_a_process_its_reaped_children_and_nothing_once_it_is_gone():
    proc = subprocess.Popen([sys.executable, "-c", BURNER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "burnt\n"
        tree, own = cputime.tree_seconds(proc.pid), cputime.process_seconds(proc.pid)
        assert tree >= 0.65, tree  # 0.4 in the reaped grandchild + 0.3 in the child (less a tick each)
        assert 0.25 <= own < tree - 0.3, (own, tree)  # its own, without the grandchild's
    finally:
        proc.communicate("")
    assert cputime.tree_seconds(proc.pid) == 0.0 and cputime.process_seconds(proc.pid) == 0.0


@pytest.mark.e2e
def test_a_loop_is_ended_by_its_cpu_budget():
    with Candidate(str(CANDIDATES / "loops_forever.py")) as cand:
        cand.limit_cpu(0.5)
        start = cand.cpu_seconds()
        with pytest.raises(CandidateTimeout, match=r"^CPU-time limit: the candidate's processes used more than "
                                                   r"0\.5 CPU s \(call regex_to_dfa on 'dog'\)"):
            cand.module.regex_to_dfa("dog")
        assert cand.incident is not None and not cand.alive
    assert start < 2.0  # the load's CPU is not this budget's


@pytest.mark.e2e
@pytest.mark.parametrize("loaded", [False, True], ids=["quiet", "loaded"])
def test_a_sleeper_is_ended_by_the_wall_clock_backstop_granted_twice_on_a_loaded_machine(monkeypatch, loaded):
    monkeypatch.setattr(cputime, "machine_loaded", lambda: loaded)
    with Candidate(str(CANDIDATES / "sleeps.py")) as cand:
        cand.limit_cpu(0.1)   # a 1 s backstop (2 s loaded): the time this test waits
        start = time.monotonic()
        with pytest.raises(CandidateTimeout, match=r"^wall-clock backstop: 1 s, the candidate slept or blocked "
                                                   r"\(call regex_to_dfa on 'dog'\)$"):
            cand.module.regex_to_dfa("dog")
        waited = time.monotonic() - start
    backstop = BACKSTOP_FACTOR * 0.1
    assert waited >= (2 * backstop if loaded else backstop), waited  # the same words either way


@pytest.mark.e2e
def test_a_budget_is_shared_by_the_calls_it_bounds_and_ends_when_lifted():
    with Candidate(None) as cand:
        assert cand.limit_cpu(30.0) is None
        budget = cand.budget
        cand.module.regex_to_dfa("(cat|dog)s?")
        assert cand.budget is budget and budget.cpu_start is not None
        assert cand.limit_cpu(None) is budget and cand.budget is None
        assert cand.module.regex_to_dfa("a").n_states == 2  # a call without a test's budget: its own


@pytest.mark.e2e  # two Python children that sleep past the backstop
def test_the_mutant_runner_runs_a_backstopped_run_once_more_on_a_loaded_machine(monkeypatch, tmp_path):
    from harness.mutants import runner

    marks = tmp_path / "runs"
    sleeper = [sys.executable, "-c", f"open({str(marks)!r}, 'a').write('x'); import time; time.sleep(30)"]
    monkeypatch.setattr(runner, "WALL_FACTOR", 1.0)
    monkeypatch.setattr(cputime, "machine_loaded", lambda: False)
    assert runner._run(sleeper, 1.0) == (None, "")
    assert marks.read_text() == "x"
    marks.unlink()
    monkeypatch.setattr(cputime, "machine_loaded", lambda: True)
    assert runner._run(sleeper, 1.0) == (None, "")
    assert marks.read_text() == "xx"  # the backstop on a loaded machine: run once more, then it stands


def test_the_mutant_runner_gives_each_test_a_cpu_budget_and_the_catalogues_own_draws(monkeypatch, tmp_path):
    from harness.mutants import runner

    seen = {}

    def fake_run(cmd, timeout, candidate_cpu=0.0, zygote=False):
        seen.update(cmd=cmd, timeout=timeout, candidate_cpu=candidate_cpu, zygote=zygote)
        return 0, ""

    monkeypatch.setattr(runner, "_run", fake_run)
    runner.run_catalogue_against(tmp_path, ("test_hand_example", "test_apply_mask"), False, 30.0)
    cmd = seen["cmd"]
    run = CatalogueRun.from_json(cmd[cmd.index("--run") + 1])  # the run value, whole (harness.run)
    assert run.policy.test_cpu_seconds == 10.0 and run.seed == 0
    assert seen["candidate_cpu"] == 2 * 10.0  # the wall backstop covers every test's budget
    assert seen["zygote"] is False  # a catalogue run asks no zygote unless its caller holds one
    assert runner.test_cpu_seconds(600.0) == 60.0  # never more than the policy's per-test limit
