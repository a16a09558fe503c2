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


# ---------------------------------------------------------------- a candidate's own RLIMIT_CPU: SIGXCPU

OWN_CPU_LIMIT = "died of SIGXCPU, killed at its own CPU-time limit (RLIMIT_CPU)"


@pytest.mark.parametrize("cpu_seconds, ceiling, expected", [
    (8, None, (8, 13)), (900, 35, (30, 35)), (8, 10, (5, 10)), (8, 3, (2, 3)), (8, 1, (1, 1)), (2, 100, (2, 7)),
])
def test_a_candidates_soft_cpu_limit_stays_under_its_hard_fence(cpu_seconds, ceiling, expected):
    from harness.sandbox import cpulimit

    soft, hard = cpulimit.pair(cpu_seconds, ceiling)
    assert (soft, hard) == expected
    assert soft <= cpu_seconds and (ceiling is None or hard <= ceiling)
    assert soft < hard or ceiling == 1   # the kernel's signal at the soft limit is SIGXCPU, not SIGKILL


SPIN_UNDER_A_CEILING = """
import json, resource, sys, time
from harness.sandbox import Candidate, CandidateCrashed, Limits
ceiling = int(time.process_time()) + 6          # the grader's own hard limit, under the candidate's 30 s
resource.setrlimit(resource.RLIMIT_CPU, (ceiling, ceiling))
with Candidate(sys.argv[1], limits=Limits(cpu_seconds=30)) as cand:
    cand.limit_cpu(60)                          # the budget is far: the RLIMIT_CPU ends the call
    try:
        cand.module.regex_to_dfa("dog")
        said = "answered"
    except CandidateCrashed as exc:
        said = str(exc)
    print(json.dumps({"said": said, "ceiling": ceiling}))
"""


@pytest.mark.e2e
def test_a_spinning_candidate_under_the_graders_own_cpu_limit_gets_sigxcpu_at_its_own(tmp_path):
    # the grader's hard limit (6 s above what it used) is under the candidate's 30 s + 5: before,
    # both of the candidate's limits were clipped to it, soft equal to hard, and it died of SIGKILL
    proc = subprocess.run([sys.executable, "-c", SPIN_UNDER_A_CEILING, str(CANDIDATES / "loops_forever.py")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    import json

    ended = json.loads(proc.stdout.strip().splitlines()[-1])
    # SIGXCPU: its soft limit, under the fence (the fence's signal is SIGKILL)
    assert f"the candidate process died during call regex_to_dfa on 'dog' ({OWN_CPU_LIMIT})" in ended["said"]


@pytest.mark.e2e
def test_a_spinning_candidate_dies_of_sigxcpu_in_its_own_words_and_its_verdict_stands():
    from harness.mutants import runner
    from harness.sandbox import CandidateCrashed, Limits

    with Candidate(str(CANDIDATES / "loops_forever.py"), limits=Limits(cpu_seconds=2)) as cand:
        cand.limit_cpu(60)   # the RLIMIT_CPU, not the budget, ends it
        with pytest.raises(CandidateCrashed) as caught:
            cand.module.regex_to_dfa("dog")
    said = str(caught.value)
    assert said.startswith(f"the candidate process died during call regex_to_dfa on 'dog' ({OWN_CPU_LIMIT})")
    # a mutant's load ended so is its own verdict, run once, as a SIGKILL at its CPU limit was
    load = f"load: the candidate crashed while loading: the candidate process died during load /x ({OWN_CPU_LIMIT})"
    assert runner.at_its_own_limit(load) and runner._suspect({}, load, {}, ("test_hand_example",)) == ""


IGNORES_SIGXCPU = """
import signal
signal.signal(signal.SIGXCPU, signal.SIG_IGN)
from oracles.automaton import *  # noqa: F401,F403


def regex_to_dfa(pattern):
    while True:
        pass
"""


@pytest.mark.e2e
@pytest.mark.slow   # 6 CPU s of spinning: its fence
def test_a_candidate_that_ignores_sigxcpu_is_still_fenced_by_its_hard_limit(tmp_path):
    from harness.sandbox import CandidateCrashed, Limits, wording

    module = tmp_path / "ignores_sigxcpu.py"
    module.write_text(IGNORES_SIGXCPU)
    with Candidate(str(module), limits=Limits(cpu_seconds=1)) as cand:   # soft 1 s, hard 6 s
        cand.limit_cpu(60)
        with pytest.raises(CandidateCrashed) as caught:
            cand.module.regex_to_dfa("a")
    assert f"(died of SIGKILL, {wording.OWN_LIMIT_KILLS['cpu']})" in str(caught.value)
