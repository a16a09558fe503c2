"""The same verdicts with and without the compile evidence's reuses for the modules outside the
masks' footprint (``parser ast nfa determinize minimize``: the masks, ``stage_memo.MASKS``; a
parser mutant's DFA after an equal tree, ``"after parse"``; a minimize mutant's class DFA): a seeded
sample of their mutants, each run the verb's way (first kill, the deep pass; no coverage map, so
every equivalent computes the whole compile domain) with ``CONSTRAIN_HARNESS_NO_STAGE_REUSE=1`` (no
reuse at all) and without: the same outcome, tier, killers and evidence for every one. Running the
sample twice costs minutes: ``slow``."""

from __future__ import annotations

import pytest

from harness.mutants import generation, stage_memo
from harness.mutants.runner import Outcome
from tests.mutants.test_mutants_stage_memo_verdicts import verdicts_off_and_on
from tests.support.helpers import confined

pytestmark = [confined, pytest.mark.e2e, pytest.mark.slow]

MODULES = ["parser", "ast", "nfa", "determinize", "minimize"]


def test_the_reused_masks_and_trees_change_no_verdict(monkeypatch):
    mutants, _ = generation.pick(generation.enumerate_sites(modules=MODULES), 12, seed=26)

    def reused(plans) -> bool:
        reuses = [p.reuse.split("+") for p in plans]
        return (all(stage_memo.MASKS in r for r in reuses) and any("after parse" in r for r in reuses)
                and any("class DFA" in r for r in reuses))
    fast = verdicts_off_and_on(mutants, monkeypatch, reused)
    equivalents = [r.id for r in fast if r.outcome is Outcome.EQUIVALENT and r.evidence["kind"] == "compile"]
    assert any(i.startswith("parser.") for i in equivalents) and any(i.startswith("minimize.") for i in equivalents)
