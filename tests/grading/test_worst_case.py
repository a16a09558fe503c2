"""A worst case that stays bounded, and visible (issue 50, item 2).

- a call that ran out of time is not asked again in later tests of the run: they read
  "not run: ... did not finish earlier" and cost nothing (``Candidate.known_hangs``);
- the batch's progress says which submissions are running and for how long
  (``harness.grading.batch.progress``).
"""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest

from harness.grading.batch.progress import Progress
from harness.grading.check import CheckOptions, run_check

ROOT = Path(__file__).resolve().parents[2]
HAND = "'(cat|car|dog)s?'"


@pytest.mark.e2e
def test_a_call_that_ran_out_of_time_is_not_asked_again():
    # tests/candidates/loops_forever.py: regex_to_dfa spins forever on the hand example, which
    # several catalogue tests compile first; each used to spend its whole CPU budget on it
    # at 1 CPU s a test (3 before: the same verdicts and reasons, 2 CPU s a grader child less spent spinning)
    result = run_check(CheckOptions(impl=str(ROOT / "tests" / "candidates" / "loops_forever.py"), timeout=1))
    stopped = [t for t in result.tests if t.status == "timeout"]
    spent = [t for t in stopped if t.reason.startswith("CPU-time limit")]
    skipped = [t for t in stopped if t.reason.startswith("not run: ")]
    assert spent and all(f"regex_to_dfa on {HAND}" in t.reason for t in spent), [t.reason for t in stopped]
    assert len(spent) <= 2, [t.reason for t in spent]   # once per grader child (the main one and its twin)
    assert len(skipped) >= 6, [t.reason for t in stopped]
    assert skipped, [t.reason for t in stopped]
    assert all(f"regex_to_dfa on {HAND} did not finish earlier in this run" in t.reason for t in skipped)
    assert {t.status for t in result.tests} <= {"passed", "timeout"}   # the tests not on the hand pattern run


def test_the_progress_names_the_submissions_running_and_their_time():
    out = io.StringIO()
    progress = Progress(3, out, order=["ann", "bob", "cy"], jobs=2, tick=0.05)
    assert list(progress.running) == ["ann", "bob"]          # the pool starts them in order, two at a time
    progress.update({"student": "ann", "verdict": "passed", "passed": 16, "total": 16, "seconds": 1.0})
    assert list(progress.running) == ["bob", "cy"]
    time.sleep(0.06)
    progress.tick()
    last = out.getvalue().splitlines()[-1]
    assert last.startswith("  still grading bob (0 s), cy (0 s)"), out.getvalue()


def test_the_ticking_thread_says_it_while_the_pool_is_silent_and_stops():
    out = io.StringIO()
    progress = Progress(1, out, order=["bob"], jobs=1, tick=0.02).start()
    time.sleep(0.15)
    progress.close()
    assert "still grading bob" in out.getvalue()
    lines = len(out.getvalue().splitlines())
    time.sleep(0.05)
    assert len(out.getvalue().splitlines()) == lines        # closed: no line after


@pytest.mark.parametrize("wall, runs", [(None, 2), (540.0, 1)])
def test_a_run_stopped_at_its_wall_is_repeated_on_a_busy_machine_only_without_a_platforms_budget(
        tmp_path, monkeypatch, wall, runs):
    # the batch's backstop may be granted twice on a loaded machine; the autograder's budget (an explicit
    # wall, Gradescope's 10 minutes less a margin) never: a second run would pass Gradescope's own limit
    from harness.grading.autograder import bounded, grading

    calls = []

    def stopped_at_the_wall(command, log, scratch, cpu, wall_seconds, budget, env=None):
        calls.append(wall_seconds)
        return bounded.RunOutcome(exit_code=None, stopped="wall", cpu_seconds=1.0, wall_seconds=wall_seconds)

    monkeypatch.setattr(grading, "run_bounded", stopped_at_the_wall)
    monkeypatch.setattr(grading, "machine_loaded", lambda: True)
    (tmp_path / "constrain.py").write_text("x = 1\n")
    grade = grading.grade_module(tmp_path / "constrain.py", grading.GradeOptions(wall=wall))
    assert len(calls) == runs and grade.verdict == "timed out"
