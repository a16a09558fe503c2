"""The same verdicts with and without the grader's oracle memo (``harness.suite.oracle_memo``): a
seeded sample of generated mutants of the modules whose catalogue tests ask the kept oracles most
(``index``: the brute-force masks and seeded vocabularies; ``schema``: json + jsonschema and the
large enum; ``sampling``, ``parser``, ``minimize``), each run the verb's way (first kill, the deep
pass; no coverage map, so every mutant runs all 16 default tests) with
``CONSTRAIN_HARNESS_NO_ORACLE_MEMO=1`` and without: the same outcome, tier, killers and evidence for
every one. Running the sample twice costs minutes: ``slow``."""

from __future__ import annotations

import pytest

from harness.mutants import generation
from harness.mutants.runner import Outcome
from harness.suite import oracle_memo
from tests.mutants.test_mutants_stage_memo_verdicts import verdicts_off_and_on
from tests.support.helpers import confined

pytestmark = [confined, pytest.mark.e2e, pytest.mark.slow]

MODULES = ["index", "schema", "sampling", "parser", "minimize"]


def test_the_oracle_memo_changes_no_verdict(monkeypatch):
    mutants, _ = generation.pick(generation.enumerate_sites(modules=MODULES), 12, seed=7)
    fast = verdicts_off_and_on(mutants, monkeypatch, lambda plans: True, variable=oracle_memo.OFF_VARIABLE)
    outcomes = {r.outcome for r in fast}
    assert Outcome.KILLED in outcomes and len(outcomes) > 1   # kills and something that passes the default tier
