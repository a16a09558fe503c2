"""The warm grader's oracle memo fills lazily (``harness.suite.oracle_memo``): no recording run of the
reference's whole default tier before the first fork (4-5 CPU s, its candidate included); each
default-tier run writes down the oracle calls its memo missed, and after a run that passed every test
the warm grader computes those answers for later forks, so a small run pays only for what it used.
The rule in process: ``tests/suite/test_oracle_memo.py``; the same verdicts with the memo as without:
``test_mutants_oracle_memo_verdicts.py`` (slow) and ``test_mutants_errors.py``'s fast path."""

from __future__ import annotations

import re

import pytest

from harness.mutants import generation, runner, warm
from harness.mutants.apply import materialize, materialize_generated
from harness.suite import oracle_memo
from tests.support.helpers import confined

BRUTE = "test_masks_match_brute_force"   # its masks are the memo's brute_force answers
HAND = "test_hand_example"
KILLED = "compile.NumberReplacer.4"   # `== 0` -> `== 1`: test_canonical_form fails on it


@pytest.mark.e2e
@confined
def test_a_small_run_keeps_only_what_it_used_and_a_failing_run_nothing(monkeypatch, tmp_path):
    """A fresh warm grader: a failing run keeps nothing; a passing run of one test keeps that test's
    answers (and no recording run precedes it); the same test again asks nothing new; another test
    keeps its own: what the warm grader's reply says it kept from each run (``memo``)."""
    monkeypatch.delenv(oracle_memo.OFF_VARIABLE, raising=False)
    monkeypatch.setattr(warm, "WARM", True)
    warm.close_all()   # a warm grader of this test's own: its memo empty
    replies = []
    real = warm.WarmGrader.run

    def run(self, *args, **kwargs):
        replies.append(real(self, *args, **kwargs))
        return replies[-1]
    monkeypatch.setattr(warm.WarmGrader, "run", run)
    killed = generation.build(generation.only(generation.enumerate_sites(modules=["compile"]), [KILLED])[0])[0]
    reference = materialize(runner.NULL_MUTANT, tmp_path)
    try:
        found, problem = runner.run_catalogue_against(materialize_generated(killed, tmp_path),
                                                      ("test_canonical_form",), False, 30.0)
        assert problem is None and found == {"test_canonical_form": "failed"}, (found, problem)
        for tests in ((BRUTE,), (BRUTE,), (HAND, BRUTE)):
            found, problem = runner.run_catalogue_against(reference, tests, False, 30.0)
            assert problem is None and found == dict.fromkeys(tests, "passed"), (found, problem)
    finally:
        warm.close_all()
    notes = [reply["memo"] for reply in replies]
    assert len(notes) == 4 and notes[0] is None, notes   # the failing run: nothing read
    kept = [re.fullmatch(r"(\d+) answers kept from (\d+) calls", note or "") for note in notes[1:]]
    assert all(kept), notes
    assert int(kept[0][1]) > 0, notes   # the brute-force masks of its tables
    assert int(kept[1][1]) == 0, notes   # every call of the same test held: nothing new
    assert int(kept[0][2]) < 272   # the whole default tier's recording kept 272 answers of 501 calls
