"""The warm grader's oracle memo records lazily (``oracle_memo.recording_argv``): before a catalogue run
it records only the default-tier tests that run will run and no earlier recording of that warm grader
ran, so a small run pays for what it uses, not for the whole tier (4-5 CPU s). The recording's rule in
process: ``tests/suite/test_oracle_memo.py``; the same verdicts with the memo as without:
``test_mutants_oracle_memo_verdicts.py`` (slow) and ``test_mutants_errors.py``'s fast path."""

from __future__ import annotations

import re

import pytest

from harness.mutants import runner, warm
from harness.mutants.apply import materialize
from harness.suite import oracle_memo
from tests.support.helpers import confined

BRUTE = "test_masks_match_brute_force"   # its masks are the memo's brute_force answers
HAND = "test_hand_example"


@pytest.mark.e2e
@confined
def test_a_small_run_records_only_the_tests_it_runs(monkeypatch, tmp_path):
    """A fresh warm grader asked for one test records that test alone (its answers kept), then, asked
    for that test and another, the other alone, then nothing: what the warm grader's reply says it
    recorded before each run (``memo``)."""
    monkeypatch.delenv(oracle_memo.OFF_VARIABLE, raising=False)
    monkeypatch.setattr(warm, "WARM", True)
    warm.close_all()   # a warm grader of this test's own: nothing recorded yet
    replies = []
    real = warm.WarmGrader.run

    def run(self, *args, **kwargs):
        replies.append(real(self, *args, **kwargs))
        return replies[-1]
    monkeypatch.setattr(warm.WarmGrader, "run", run)
    package = materialize(runner.NULL_MUTANT, tmp_path)
    try:
        for tests in ((BRUTE,), (BRUTE, HAND), (HAND,)):
            found, problem = runner.run_catalogue_against(package, tests, False, 30.0)
            assert problem is None and found == dict.fromkeys(tests, "passed"), (found, problem)
    finally:
        warm.close_all()
    notes = [reply["memo"] for reply in replies]
    assert len(notes) == 3 and notes[2] is None, notes
    first = re.fullmatch(r"recording 1 test\(s\); (\d+) answers kept from (\d+) calls", notes[0])
    assert first is not None and int(first[1]) > 0, notes   # the brute-force masks of its tables
    assert re.fullmatch(r"recording 1 test\(s\); \d+ answers kept from \d+ calls", notes[1]), notes
