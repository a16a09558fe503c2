"""The same verdicts with each test's CPU budget calibrated from the reference's (``harness.mutants.budgets``)
and with today's (``CONSTRAIN_HARNESS_NO_TEST_BUDGETS=1``): the three kinds of loop of the whole run
of 2026-12-07 (a default-tier timeout, a deep-tier timeout, a load that spins) and a seeded sample of
the modules they are in (``parser``, ``determinize``), each run the verb's way (first kill, the deep
pass, the coverage map with its CPU figures and its evidence with each item's: the deep timeout's
evidence item spins, ``evidence.within_budget``) through ``verdicts_off_and_on``: the same outcome,
tier, killers and evidence for every one, every timeout still a timeout, the spinning load still
killed at load. Recording the map (when the user's cache lacks it) and running the loops twice costs
minutes: ``slow``."""

from __future__ import annotations

import pytest

from harness.mutants import budgets, coverage, generation, runner
from harness.mutants.runner import GeneratedOptions, Outcome
from tests.mutants.test_mutants_stage_memo_verdicts import verdicts_off_and_on
from tests.support.helpers import confined

pytestmark = [confined, pytest.mark.e2e, pytest.mark.slow]

LOOPS = {"determinize.ReplaceComparisonOperator_NotEq_LtE.1": (Outcome.TIMEOUT, "default"),
         "parser.ReplaceBinaryOperator_Add_Mod.2": (Outcome.TIMEOUT, "deep"),
         "parser.ReplaceBinaryOperator_BitOr_Pow.1": (Outcome.KILLED, "load")}


def test_the_calibrated_budgets_change_no_verdict(monkeypatch, tmp_path):
    path = coverage.default_path(None)
    stored = coverage.CoverageMap.load(path)
    if stored is None or stored.cpu is None:   # none kept for this reference, or one kept before the figures
        path = tmp_path / "map.json"
    cmap = coverage.load_or_record(path, runner.GENERATED_TIMEOUT)   # with its evidence, each item's CPU in it
    assert cmap.cpu is not None and cmap.evidence is not None
    sites = generation.enumerate_sites(modules=["parser", "determinize"])
    sample, _ = generation.pick(sites, 10, seed=4)
    loops = [generation.build(site)[0] for site in generation.only(sites, sorted(LOOPS))]
    mutants = [*loops, *(m for m in sample if m.id not in LOOPS)]

    def calibrated(plans) -> bool:   # every test's budget, and the spinning evidence item's
        spins = plans[[m.id for m in mutants].index("parser.ReplaceBinaryOperator_Add_Mod.2")]
        return all(p.budgets is not None for p in plans) and \
            spins.evidence.budgets(runner.GENERATED_TIMEOUT) is not None
    fast = verdicts_off_and_on(mutants, monkeypatch, calibrated, budgets.OFF_VARIABLE,
                               GeneratedOptions(first_kill=True, coverage=cmap),
                               unused=lambda plans: all(p.budgets is None and (p.evidence is None or p.evidence.cpu
                                                                               is None) for p in plans))
    assert {r.id: (r.outcome, r.tier) for r in fast if r.id in LOOPS} == LOOPS
