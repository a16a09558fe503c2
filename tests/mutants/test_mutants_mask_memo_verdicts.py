"""The same verdicts with and without the compile evidence's masks taken from the reference
(``stage_memo.MASKS``): a seeded sample of the mutants of the modules outside the masks' footprint
(``parser ast nfa determinize minimize``), each run the verb's way (first kill, the deep pass; no
coverage map, so every equivalent computes the whole compile domain) with
``CONSTRAIN_HARNESS_NO_MASK_REUSE=1`` and without: the same outcome, tier, killers and evidence for
every one. Running the sample twice costs minutes: ``slow``."""

from __future__ import annotations

import pytest

from harness.mutants import generation, runner, stage_memo
from harness.mutants.runner import GeneratedOptions, Outcome
from tests.mutants.test_mutants_generated import consistent
from tests.support.helpers import confined

pytestmark = [confined, pytest.mark.e2e, pytest.mark.slow]

MODULES = ["parser", "ast", "nfa", "determinize", "minimize"]


def test_the_reused_masks_change_no_verdict(monkeypatch):
    mutants, _ = generation.pick(generation.enumerate_sites(modules=MODULES), 12, seed=26)
    options = GeneratedOptions(first_kill=True)
    monkeypatch.setenv(stage_memo.MASKS_OFF_VARIABLE, "1")
    assert all(stage_memo.MASKS not in (runner.plan(options, m).reuse or "") for m in mutants)
    slow = runner.run_all(mutants, jobs=2, generated=options)
    monkeypatch.delenv(stage_memo.MASKS_OFF_VARIABLE)
    assert all(stage_memo.MASKS in runner.plan(options, m).reuse.split("+") for m in mutants)
    fast = runner.run_all(mutants, jobs=2, generated=options)
    consistent(slow)
    consistent(fast)

    def verdicts(results):
        return {r.id: (r.outcome, r.tier, sorted(r.killed_by), r.evidence) for r in results}
    assert verdicts(fast) == verdicts(slow)
    assert sum(r.outcome is Outcome.EQUIVALENT and r.evidence["kind"] == "compile" for r in fast) >= 2
