"""No verdict, note or score changes because the machine is busy (issue 23, item 1).

A gallery (fair, wrong and hostile candidates from ``tests/candidates``) is graded by
``check`` once as the machine is, then again beside a CPU burner on every core (busy
loops in other processes, stopped in a ``finally``); the two JSON reports must be equal,
timings aside. Time limits count the CPU seconds of the candidate's process tree, so the
burners slow the run down without changing what it decides; a candidate that sleeps is
ended by the wall-clock backstop (10x the CPU limit, granted once more on a loaded
machine), whose verdict and words are the same either way.

The default run grades four candidates on the tests that decide them (one fair, one
wrong, one that loops, one that sleeps); ``-m slow`` grades the whole gallery: two fair,
three wrong, two hostile.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.grading import report as reports
from harness.grading.check import CheckOptions, run_check
from tests.support.helpers import Burners, left_over, tree_digest  # the wall's checks: files unchanged, nothing left

CANDIDATES = Path(__file__).resolve().parents[1] / "candidates"
WHEATS = Path(__file__).resolve().parents[2] / "harness" / "grading" / "gradetests" / "wheats"  # the fairness gallery
# the hostile ones' per-test budgets: the looper's CPU limit; the sleeper's, whose backstop is then 1 s (2 s if
# loaded): the burners' time beside it was what this test mostly cost. Their test_apply_mask passes with a
# twentieth of each (it passed at 0.005 CPU s, a 0.05 s backstop)
HOSTILE_CPU_SECONDS = 0.2
SLEEPER_CPU_SECONDS = 0.1
# (candidate, tests that decide it, per-test CPU seconds, expected statuses)
SMALL = [
    ("fair_thompson_moore.py", ("test_hand_example", "test_masks_match_brute_force"), 60.0,
     {"test_hand_example": "passed", "test_masks_match_brute_force": "passed"}),
    ("wrong_numbering.py", ("test_hand_example", "test_apply_mask"), 60.0,
     {"test_hand_example": "failed", "test_apply_mask": "passed"}),
    ("loops_forever.py", ("test_hand_example", "test_apply_mask"), HOSTILE_CPU_SECONDS,
     {"test_hand_example": "timeout", "test_apply_mask": "passed"}),
    ("sleeps.py", ("test_hand_example", "test_apply_mask"), SLEEPER_CPU_SECONDS,
     {"test_hand_example": "timeout", "test_apply_mask": "passed"}),
]
MORE = [
    ("fair_glushkov_hopcroft.py", ("test_hand_example", "test_masks_match_brute_force",
                                   "test_json_schema_rejects_keywords_outside_the_subset"), 60.0,
     {"test_hand_example": "passed", "test_masks_match_brute_force": "passed",
      "test_json_schema_rejects_keywords_outside_the_subset": "passed"}),
    ("wrong_trie_first_byte.py", ("test_masks_match_brute_force",), 60.0,
     {"test_masks_match_brute_force": "failed"}),
    ("wrong_ignores_keywords.py", ("test_json_schema_rejects_keywords_outside_the_subset",), 60.0,
     {"test_json_schema_rejects_keywords_outside_the_subset": "failed"}),
]


def comparable(result) -> dict:
    """The JSON report without its timings (durations, seconds, pytest's "in 1.23s")."""
    doc = json.loads(reports.json_text(result))
    doc.pop("duration")
    for test in doc["tests"]:
        test.pop("duration")
    for child in doc["children"]:
        child.pop("seconds")
        child["output_tail"] = re.sub(r" in \d+(\.\d+)?s\b", " in <time>", child["output_tail"])
    return doc


def grade(candidate: str, tests: tuple[str, ...], cpu_seconds: float):
    folder = WHEATS if candidate.startswith("fair_") else CANDIDATES
    result = run_check(CheckOptions(impl=str(folder / candidate), only=tests, timeout=cpu_seconds))
    assert left_over(result.marker) == [], f"processes of {candidate} are still running"
    assert result.integrity == [], result.integrity
    return result


def quiet_and_loaded(gallery) -> list[tuple[str, dict, dict]]:
    before = tree_digest()
    quiet = [(name, grade(name, tests, cpu)) for name, tests, cpu, _ in gallery]
    with Burners() as burners:
        loaded = [grade(name, tests, cpu) for name, tests, cpu, _ in gallery]
        assert len(burners.alive()) == burners.count  # the machine really was busy throughout
    assert burners.alive() == []  # nothing of the burners is left
    assert tree_digest() == before, "the harness's files changed"
    for (name, _tests, _cpu, want), (_, result) in zip(gallery, quiet):
        assert {t.name: t.status for t in result.tests} == want, (name, [(t.name, t.reason) for t in result.tests])
    return [(name, comparable(q), comparable(lo)) for (name, q), lo in zip(quiet, loaded)]


def _assert_same(pairs) -> None:
    for name, quiet, loaded in pairs:
        assert quiet == loaded, f"{name}: the report changed under load"


@pytest.mark.e2e
def test_a_busy_machine_changes_no_verdict():
    pairs = quiet_and_loaded(SMALL)
    _assert_same(pairs)
    by_name = {name: quiet for name, quiet, _ in pairs}
    loops = by_name["loops_forever.py"]["tests"][0]
    assert loops["reason"].startswith(f"CPU-time limit: the candidate's processes used more than "
                                      f"{HOSTILE_CPU_SECONDS:g} CPU s"), loops["reason"]
    sleeps = by_name["sleeps.py"]["tests"][0]
    backstop = 10 * SLEEPER_CPU_SECONDS
    assert sleeps["reason"].startswith(f"wall-clock backstop: {backstop:g} s, the candidate slept or blocked"), \
        sleeps["reason"]
    assert by_name["wrong_numbering.py"]["tests"][0]["details"]  # the counterexample, equal under load


@pytest.mark.e2e
@pytest.mark.slow
def test_a_busy_machine_changes_no_verdict_across_the_gallery():
    _assert_same(quiet_and_loaded(SMALL + MORE))
