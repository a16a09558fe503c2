"""The same verdicts with and without the compile stages reused from the reference (``stage_memo``):
a seeded sample of the mutants of the modules outside a stage's footprint (``minimize dfa index
bytemap``), each run the verb's way (first kill, the deep pass; no coverage map, so every
equivalent computes the whole compile domain) with ``CONSTRAIN_HARNESS_NO_STAGE_REUSE=1`` and
without: the same outcome, tier, killers and evidence for every one. Running the sample twice costs
minutes: ``slow``."""

from __future__ import annotations

import pytest

from harness.mutants import generation, runner, stage_memo
from harness.mutants.runner import GeneratedOptions, Outcome
from tests.mutants.test_mutants_generated import consistent
from tests.support.helpers import confined

pytestmark = [confined, pytest.mark.e2e, pytest.mark.slow]

MODULES = ["minimize", "dfa", "index", "bytemap"]


def test_the_reused_stages_change_no_verdict(monkeypatch):
    mutants, _ = generation.pick(generation.enumerate_sites(modules=MODULES), 12, seed=5)
    fast = verdicts_off_and_on(mutants, monkeypatch, lambda plans: {p.reuse.split("+")[0] for p in plans} ==
                               {"class DFA", "DFA"})
    assert any(r.outcome is Outcome.EQUIVALENT and r.evidence["kind"] == "compile" for r in fast)


def verdicts_off_and_on(mutants, monkeypatch, reused, variable: str = stage_memo.OFF_VARIABLE,
                        options: GeneratedOptions | None = None, unused=None) -> list:
    """Run ``mutants`` the verb's way (``options``: first kill, no coverage map, unless given) with every
    reuse off (``variable``: ``stage_memo.OFF_VARIABLE``, or another cut's switch), then on, and assert
    the same outcome, tier, killers and evidence for each, every result ``consistent``; ``reused`` (the
    plans with reuse on -> bool) says the sample exercises the reuses meant, ``unused`` (the plans with
    the switch set -> bool) that the switch turns them off. The results with reuse."""
    options = GeneratedOptions(first_kill=True) if options is None else options
    monkeypatch.setenv(variable, "1")
    if variable == stage_memo.OFF_VARIABLE:
        assert all(runner.plan(options, m).reuse is None for m in mutants)
    if unused is not None:
        assert unused([runner.plan(options, m) for m in mutants])
    slow = runner.run_all(mutants, jobs=2, generated=options)
    monkeypatch.delenv(variable)
    assert reused([runner.plan(options, m) for m in mutants])
    fast = runner.run_all(mutants, jobs=2, generated=options)
    consistent(slow)
    consistent(fast)

    def verdicts(results):
        return {r.id: (r.outcome, r.tier, sorted(r.killed_by), r.evidence) for r in results}
    assert verdicts(fast) == verdicts(slow)
    return fast
