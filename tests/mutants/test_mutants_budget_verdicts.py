"""The same verdicts with each test's CPU budget calibrated from the reference's (``harness.mutants.budgets``)
and with today's (``CONSTRAIN_HARNESS_NO_TEST_BUDGETS=1``): the three kinds of loop of the whole run
of 2026-12-07 (a default-tier timeout, a deep-tier timeout, a load that spins) and a seeded sample of
the modules they are in (``parser``, ``determinize``), each run the verb's way (first kill, the deep
pass, the coverage map with its CPU figures): the same outcome, tier, killers and evidence for every
one, every timeout still a timeout, the spinning load still killed at load. Recording the map (when
the user's cache lacks it) and running the loops twice costs minutes: ``slow``."""

from __future__ import annotations

import pytest

from harness.mutants import budgets, coverage, generation, runner
from harness.mutants.runner import GeneratedOptions, Outcome
from tests.mutants.test_mutants_generated import consistent
from tests.support.helpers import confined

pytestmark = [confined, pytest.mark.e2e, pytest.mark.slow]

LOOPS = {"determinize.ReplaceComparisonOperator_NotEq_LtE.1": (Outcome.TIMEOUT, "default"),
         "parser.ReplaceBinaryOperator_Add_Mod.2": (Outcome.TIMEOUT, "deep"),
         "parser.ReplaceBinaryOperator_BitOr_Pow.1": (Outcome.KILLED, "load")}


def test_the_calibrated_budgets_change_no_verdict(monkeypatch, tmp_path):
    cmap = coverage.CoverageMap.load(coverage.default_path(None))
    if cmap is None or cmap.cpu is None:   # none kept for this reference, or one kept before the figures
        cmap = coverage.load_or_record(tmp_path / "map.json", runner.GENERATED_TIMEOUT)
    assert cmap.cpu is not None
    sites = generation.enumerate_sites(modules=["parser", "determinize"])
    sample, _ = generation.pick(sites, 10, seed=4)
    loops = [generation.build(site)[0] for site in generation.only(sites, sorted(LOOPS))]
    mutants = [*loops, *(m for m in sample if m.id not in LOOPS)]
    options = GeneratedOptions(first_kill=True, coverage=cmap)
    monkeypatch.setenv(budgets.OFF_VARIABLE, "1")
    assert all(runner.plan(options, m).budgets is None for m in mutants)
    slow = runner.run_all(mutants, jobs=2, generated=options)
    monkeypatch.delenv(budgets.OFF_VARIABLE)
    assert all(runner.plan(options, m).budgets is not None for m in mutants)
    fast = runner.run_all(mutants, jobs=2, generated=options)
    consistent(slow)
    consistent(fast)

    def verdicts(results):
        return {r.id: (r.outcome, r.tier, sorted(r.killed_by), r.evidence) for r in results}
    assert verdicts(fast) == verdicts(slow)
    assert {r.id: (r.outcome, r.tier) for r in fast if r.id in LOOPS} == LOOPS
