"""harness/suite/strength.py: every strengthening passes on the reference (and on the
brzozowski candidate, which meets every contract decision), never fails a fairness-gallery
candidate in the default tier, and fails each generated survivor it names (a catalogue
failure, the survivor crashing in it, or, for a contract decision, a note in the default
tier that ``--strict`` turns into a failure).

A survivor is rebuilt by the text of its change (``equivalents.json`` records ``before``
and ``after`` for each), not by its site number, so a reformatted reference only makes
the lookup search its operator's sites again."""

from __future__ import annotations

import pytest

import oracles.automaton as reference
from harness.mutants import generation, triage
from harness.mutants.apply import REFERENCE_DIR, load, materialize_generated
from harness.sandbox.candidate import load_candidate
from harness.suite import inputs, tiers
from harness.suite.catalogue import NAMES
from harness.suite.strength import CHECKS
from tests.suite.test_fairness import READINGS
from tests.support.helpers import fresh_catalogue_state, seeded_cases

CASES = [(check, survivor) for check, _, survivors in CHECKS for survivor in survivors]
BRZOZOWSKI = "harness/grading/gradetests/wheats/brzozowski.py"


def _fresh(impl):
    """``impl`` with the per-process Constraint shape forgotten (each candidate finds its own)."""
    inputs.forget_constraint_shape()
    return impl


@pytest.fixture(autouse=True)
def default_tier():
    fresh_catalogue_state()
    yield
    fresh_catalogue_state()


@pytest.mark.parametrize("check, test", [(c, t) for c, t, _ in CHECKS], ids=lambda x: getattr(x, "__name__", x))
def test_each_check_passes_on_the_reference_and_names_its_catalogue_test(check, test):
    assert test in NAMES and test in (check.__doc__ or "")
    tiers.set_strict(True)  # the reference meets every contract decision too
    check(_fresh(reference))


def test_each_check_passes_on_the_brzozowski_candidate_in_the_strict_tier():
    candidate = load_candidate(BRZOZOWSKI)
    tiers.set_strict(True)
    for check, _, _ in CHECKS:
        check(_fresh(candidate))


@pytest.mark.parametrize("reading", READINGS, ids=lambda r: r.name)
def test_no_check_fails_a_fairness_candidate_in_the_default_tier(reading):
    candidate = load_candidate(str(reading.path), ref_deps=reading.ref_deps)
    for check, _, _ in CHECKS:
        check(_fresh(candidate))  # a departure from a decision is a note, never a failure
    keys = {note.split(":")[1].strip() for note in tiers.drain_notes()}
    assert keys <= set(reading.departs), keys - set(reading.departs)


@pytest.fixture(scope="module")
def sites():
    modules = sorted({survivor.split(".", 1)[0] for _, survivor in CASES})
    return generation.enumerate_sites(modules=modules)


def survivor_mutant(survivor: str, sites: list) -> generation.GeneratedMutant:
    """The generated mutant ``survivor`` names: by its recorded change (before, after)
    among the sites of its module and operator when ``equivalents.json`` has it, else by id."""
    row = triage.verdicts().get(survivor)
    if row is None:
        site = next((s for s in sites if s.id == survivor), None)
        assert site is not None, f"{survivor}: no such site, and no before/after recorded in equivalents.json"
        mutant, why = generation.build(site)
        assert mutant is not None, why
        return mutant
    module, operator = survivor.split(".")[:2]
    lines = (REFERENCE_DIR / f"{module}.py").read_text(encoding="utf-8").splitlines()
    for site in sites:
        if (site.module == module and site.operator.split("/", 1)[1] == operator
                and row.before.startswith(lines[site.start[0] - 1].strip())):  # only sites on the recorded line
            mutant, _ = generation.build(site)
            if mutant is not None and (mutant.before, mutant.after) == (row.before, row.after):
                return mutant
    raise AssertionError(f"{survivor}: no {operator} site of {module}.py changes {row.before!r} "
                         f"into {row.after!r} any more (update equivalents.json)")


def test_every_survivor_of_a_check_is_recorded_by_its_change():
    rows = triage.verdicts()
    for check, _, survivors in CHECKS:
        for survivor in survivors:
            assert survivor in rows, f"{survivor}: record its before/after in equivalents.json"
            assert not rows[survivor].equivalent and check.__name__ in rows[survivor].reason, survivor


def survivor_kinds(check, survivor: str) -> set[str]:
    """What a case of ``CASES`` shows: that ``check`` kills a change of the survivor's line (its recorded
    ``before`` in ``equivalents.json``; its id when none is recorded): 32 cases, 25 kinds."""
    row = triage.verdicts().get(survivor)
    return {f"{check.__name__}: {row.before if row is not None else survivor}"}


def pytest_generate_tests(metafunc):
    if metafunc.definition.name == "test_each_check_kills_its_survivor":
        # a case of each kind by default (drawn by the run's seed), every case under -m slow (2026-12-08)
        cases = [((check, survivor), f"{check.__name__}-{survivor}") for check, survivor in CASES]
        metafunc.parametrize("check, survivor", seeded_cases(metafunc.config, cases, survivor_kinds,
                                                             draw="strength.survivors"))


def test_each_check_kills_its_survivor(check, survivor, sites, tmp_path):
    mutated = _fresh(load(materialize_generated(survivor_mutant(survivor, sites), tmp_path)))
    try:
        check(mutated)
    except Exception as exc:  # noqa: BLE001 - a failure, or the mutant crashing inside the check: killed
        assert not isinstance(exc, pytest.fail.Exception)
        return
    finally:
        notes = tiers.drain_notes()
    # it passed the default tier: only by departing from a contract decision (a note),
    # which the strict tier grades
    assert notes, "the survivor passed the check without a failure or a note"
    tiers.set_strict(True)
    with pytest.raises(AssertionError, match="contract decision not met"):
        check(_fresh(mutated))
