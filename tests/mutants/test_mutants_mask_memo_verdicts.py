"""The same verdicts with and without the compile evidence's reuses for the modules outside the
masks' footprint (``parser ast nfa determinize minimize``: the masks, ``stage_memo.MASKS``; a
parser mutant's DFA after an equal tree, ``"after parse"``; a minimize mutant's class DFA): a seeded
sample of their mutants, each run the verb's way (first kill, the deep pass; no coverage map, so
every equivalent computes the whole compile domain) with ``CONSTRAIN_HARNESS_NO_STAGE_REUSE=1`` (no
reuse at all) and without: the same outcome, tier, killers and evidence for every one. Running the
sample twice costs minutes: ``slow``."""

from __future__ import annotations

import pytest

from harness.mutants import generation, runner, stage_memo
from harness.mutants.runner import GeneratedOptions, Outcome
from tests.mutants.test_mutants_generated import consistent
from tests.support.helpers import confined

pytestmark = [confined, pytest.mark.e2e, pytest.mark.slow]

MODULES = ["parser", "ast", "nfa", "determinize", "minimize"]


def test_the_reused_masks_and_trees_change_no_verdict(monkeypatch):
    mutants, _ = generation.pick(generation.enumerate_sites(modules=MODULES), 12, seed=26)
    options = GeneratedOptions(first_kill=True)
    monkeypatch.setenv(stage_memo.OFF_VARIABLE, "1")
    assert all(runner.plan(options, m).reuse is None for m in mutants)
    slow = runner.run_all(mutants, jobs=2, generated=options)
    monkeypatch.delenv(stage_memo.OFF_VARIABLE)
    plans = [runner.plan(options, m).reuse.split("+") for m in mutants]
    assert all(stage_memo.MASKS in reuse for reuse in plans)
    assert any("after parse" in reuse for reuse in plans) and any("class DFA" in reuse for reuse in plans)
    fast = runner.run_all(mutants, jobs=2, generated=options)
    consistent(slow)
    consistent(fast)

    def verdicts(results):
        return {r.id: (r.outcome, r.tier, sorted(r.killed_by), r.evidence) for r in results}
    assert verdicts(fast) == verdicts(slow)
    equivalents = [r.id for r in fast if r.outcome is Outcome.EQUIVALENT and r.evidence["kind"] == "compile"]
    assert any(i.startswith("parser.") for i in equivalents) and any(i.startswith("minimize.") for i in equivalents)
