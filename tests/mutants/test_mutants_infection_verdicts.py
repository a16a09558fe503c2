"""The same verdicts with and without the infection map (``harness.mutants.infection``): the
mutants it analyses in two seeded samples (``pick(..., 40, seed=1)`` of every site and a
``minimize`` sample), each run the verb's way (first kill, deep pass, the coverage map) with the
map and without it: the same outcome and tier for every one, an equivalent reached by "no
infection" only where the slow path also finds it equivalent. Recording both maps and running the
mutants twice costs minutes: ``slow``."""

from __future__ import annotations

import random

import pytest

from harness.mutants import coverage, equivalence, generation, infection, runner
from harness.mutants.runner import GeneratedOptions, Outcome
from tests.mutants.test_mutants_generated import consistent
from tests.support.helpers import confined

pytestmark = [confined, pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture(scope="module")
def maps(tmp_path_factory):
    folder = tmp_path_factory.mktemp("infection-maps")
    cmap = coverage.load_or_record(folder / "map.json", runner.GENERATED_TIMEOUT)
    imap = infection.load_or_record(infection.default_path(folder / "map.json"), runner.GENERATED_TIMEOUT)
    return cmap, imap


def _analysed(mutants, imap) -> list:
    return [m for m in mutants if imap.clean(m) is not None]


@pytest.mark.parametrize("modules, n", [(None, 40), (["minimize"], 20)], ids=["every-module", "minimize"])
def test_the_infection_map_changes_no_verdict(maps, modules, n):
    cmap, imap = maps
    mutants, _ = generation.pick(generation.enumerate_sites(modules=modules), n, seed=1)
    chosen = _analysed(mutants, imap)
    assert chosen, "the sample holds no mutant the analysis reads"
    slow = runner.run_all(chosen, jobs=2, generated=GeneratedOptions(first_kill=True, coverage=cmap))
    fast = runner.run_all(chosen, jobs=2, generated=GeneratedOptions(first_kill=True, coverage=cmap,
                                                                      infection=imap))
    consistent(slow)
    consistent(fast)
    before = {r.id: (r.outcome, r.tier) for r in slow}
    after = {r.id: (r.outcome, r.tier) for r in fast}
    assert after == before
    by_infection = [r for r in fast if r.evidence and r.evidence["kind"] == runner.NO_INFECTION]
    assert all(before[r.id][0] is Outcome.EQUIVALENT for r in by_infection)


def test_a_mutant_the_map_finds_no_key_infecting_computes_the_references_corpus(maps, tmp_path):
    """The oracle: a mutant no corpus key infects (by the map) gives the reference's answer on every
    key, computed on the mutant's own code (the whole fingerprint, a child each), for a seeded 12 of
    them; and one the corpus infects and changes is among the infected (a planted check that the
    map is not simply empty)."""
    from harness.mutants.apply import materialize_generated

    _, imap = maps
    infected = imap.corpus["infected"]
    sites = [s for s in generation.enumerate_sites(operators=list(infection.FAMILIES))
             if s.id in infection.by_id() and not infected.get(s.id)
             and any(s.id in ids for ids in imap.reached.values())]
    mutants = [m for m in (generation.build(s)[0] for s in random.Random(3).sample(sites, 40)) if m is not None]
    mutants = [m for m in mutants if infection.matches(m)][:12]
    assert len(mutants) >= 8
    reference = runner.reference_digest(tmp_path, runner.GENERATED_TIMEOUT)
    for mutant in mutants:
        digest, problem = runner.behaviour_digest(materialize_generated(mutant, tmp_path), runner.GENERATED_TIMEOUT)
        assert problem is None and equivalence.compare(reference, digest) == [], mutant.id
    top_k = [mid for mid in infection.by_id() if mid.startswith("sampling.ReplaceComparisonOperator_Lt_LtE.")]
    assert any(infected.get(mid) for mid in top_k)   # ``top_k < 0`` made ``<= 0``: the corpus's top_k=0 infects
