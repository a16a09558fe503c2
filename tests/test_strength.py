"""harness/suite/strength.py: every strengthening passes on the reference and fails on
each generated survivor it names (a catalogue failure, or the survivor crashing in it)."""

from __future__ import annotations

import pytest

import oracles.automaton as reference
from harness.mutants import generation
from harness.mutants.apply import load, materialize_generated
from harness.suite import tiers
from harness.suite.catalogue import NAMES
from harness.suite.strength import CHECKS

CASES = [(check, survivor) for check, _, survivors in CHECKS for survivor in survivors]


@pytest.mark.parametrize("check, test", [(c, t) for c, t, _ in CHECKS], ids=lambda x: getattr(x, "__name__", x))
def test_each_check_passes_on_the_reference_and_names_its_catalogue_test(check, test):
    assert test in NAMES and test in (check.__doc__ or "")
    check(reference)


@pytest.fixture(scope="module")
def sites():
    return {s.id: s for s in generation.enumerate_sites(modules=["sampling", "parser", "schema"])}


@pytest.mark.parametrize("check, survivor", CASES, ids=lambda x: getattr(x, "__name__", x))
def test_each_check_kills_its_survivor(check, survivor, sites, tmp_path):
    mutant, why = generation.build(sites[survivor])
    assert mutant is not None, why
    mutated = load(materialize_generated(mutant, tmp_path))
    tiers.set_strict(False)
    tiers.drain_notes()
    try:
        check(mutated)
    except Exception as exc:  # noqa: BLE001 - a failure, or the mutant crashing inside the check: killed
        assert not isinstance(exc, pytest.fail.Exception)
        return
    finally:
        notes = tiers.drain_notes()
    # it passed the default tier: only by refusing a form the seed does not list (a note),
    # which the strict tier grades
    assert notes, "the survivor passed the check without a failure or a note"
    tiers.set_strict(True)
    try:
        with pytest.raises(AssertionError, match="contract decision not met"):
            check(mutated)
    finally:
        tiers.set_strict(False)
        tiers.drain_notes()
