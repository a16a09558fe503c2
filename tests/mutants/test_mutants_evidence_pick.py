"""The evidence chosen by coverage (issue 52 item 4): a mutant's evidence computes only the items
that execute its statement (``evidence.Pick``); the others give the reference's answer by
construction. The oracle of every verdict here is the whole domain, computed item by item."""

from __future__ import annotations

import pytest

from harness.mutants import coverage, evidence, generation, runner
from harness.mutants.apply import REFERENCE_DIR, load, materialize, materialize_generated
from harness.mutants.runner import MutantResult, Outcome
from tests.mutants import reference_answers
from tests.support.helpers import bounded_call

ARGMAX_LINE = "        token = int(np.argmax(x))  # the first maximum: ties to the lowest id\n"
"""sampling.py's greedy draw: only the domain's temperature-0 ``sample`` items execute it."""


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return evidence.record_lines(materialize(runner.NULL_MUTANT, tmp_path_factory.mktemp("record")), ("sampling",))


def _sampling_text() -> str:
    text = (REFERENCE_DIR / "sampling.py").read_text(encoding="utf-8")
    assert text.count(ARGMAX_LINE) == 1
    return text


def _argmax_line() -> int:
    return _sampling_text().splitlines(keepends=True).index(ARGMAX_LINE) + 1


def _mutant(source: str) -> generation.GeneratedMutant:
    """A hand-made mutant of sampling.py whose site is the greedy draw's line (no operator mutates it)."""
    line = _argmax_line()
    site = generation.Site("sampling.py", "harness/HandMade", 1, (line, 8), (line, 33))
    return generation.GeneratedMutant(site, source, "(hand-made)", "(hand-made)")


def _pick(recorded, mutant) -> evidence.Pick | None:
    return coverage.CoverageMap("d", {}, None, recorded).evidence_for(mutant)


def test_the_record_holds_the_reference_s_answers_and_counts_import_lines_to_every_item(recorded):
    # the oracle: evidence.record on oracles.automaton, without coverage (once a process: reference_answers)
    assert recorded["sampling"]["hashes"] == list(reference_answers.record("sampling"))
    assert len(recorded["sampling"]["items"]) == 1917
    seconds = recorded["sampling"]["cpu"]   # each item's CPU on the reference: its budget in a mutant's child
    assert len(seconds) == 1917 and all(isinstance(s, float) and 0 <= s < 5 for s in seconds)
    assert sum(seconds) > 0.1   # measured, not zeros (the whole domain is ~1 CPU s under the tracer)
    source = _sampling_text().splitlines()
    module_level = next(i for i, text in enumerate(source, 1) if text.startswith("def sample("))
    assert module_level in recorded["sampling"]["every"]["sampling.py"]   # the def runs at import
    span = coverage.statement_lines("sampling.py", module_level)
    assert evidence.pick(recorded, "sampling", "sampling.py", span) is None   # every item: the whole domain
    assert evidence.pick(recorded, "sampling", "__init__.py", frozenset({1})) is None
    with pytest.raises(ValueError, match="chosen by coverage are"):
        evidence.record_lines(REFERENCE_DIR, ("constraint",))


def test_a_pick_travels_as_data(recorded):
    text = _sampling_text()
    picked = _pick(recorded, _mutant(text.replace(ARGMAX_LINE, ARGMAX_LINE.replace("(x)", "(x + 0.0)"))))
    again = evidence.Pick.from_json(picked.to_json())
    assert again.reference() == picked.reference() and again.note() == picked.note()
    assert again.chosen == picked.chosen and again.statement == f"sampling.py:{_argmax_line()}-{_argmax_line()}"


@pytest.mark.e2e  # runner._decide_equivalence computes the fingerprint in a child process
def test_an_equivalent_on_a_line_few_items_execute_gets_the_whole_domain_s_verdict(recorded, tmp_path):
    text = _sampling_text()
    mutant = _mutant(text.replace(ARGMAX_LINE, ARGMAX_LINE.replace("(x)", "(x + 0.0)")))
    picked = _pick(recorded, mutant)
    assert 0 < len(picked.chosen) < picked.size == 1917      # the temperature-0 sample items only
    package = materialize_generated(mutant, tmp_path)
    whole = runner._decide_equivalence(_survivor(mutant), mutant, package, tmp_path, 60.0, {})
    fast = runner._decide_equivalence(_survivor(mutant), mutant, package, tmp_path, 60.0, {}, picked)
    assert whole.outcome is fast.outcome is Outcome.EQUIVALENT, (whole.detail, fast.detail)
    assert whole.evidence == evidence.summary("sampling", 1917)
    assert fast.evidence == evidence.summary("sampling", 1917, len(picked.chosen))
    n = len(picked.chosen)
    assert fast.detail == (f"equivalent with evidence: the {n} of 1,917 sampling-domain items that execute "
                           f"{picked.statement}, equal; the other {1917 - n:,} do not execute it")
    assert runner.result_from_json(runner.result_to_json(fast)).evidence == fast.evidence


@pytest.mark.e2e  # runner._decide_equivalence computes the fingerprint in a child process
def test_a_mutant_differing_on_one_item_that_executes_its_line_is_still_found_different(recorded, tmp_path):
    # wrong on one grid point only (top_k 4, top_p 1.0, penalty 1.6, history (2, 2, 0)): 3 items of 1,917
    wrong = ARGMAX_LINE + ("        if p.top_k == 4 and p.top_p == 1.0 and p.repetition_penalty == 1.6 "
                           "and list(history) == [2, 2, 0]:\n            token = (token + 1) % len(x)\n")
    mutant = _mutant(_sampling_text().replace(ARGMAX_LINE, wrong))
    picked = _pick(recorded, mutant)
    module = load(materialize_generated(mutant, tmp_path))
    whole, _ = evidence.first_difference(module, "sampling", recorded["sampling"]["hashes"])
    found, computed = evidence.first_difference(module, "sampling", picked.reference())
    assert whole and found == whole, (whole, found)    # the first item that differs is one that executes it
    assert "'top_k': 4, 'top_p': 1.0, 'repetition_penalty': 1.6" in found[0] and found[0].endswith("history 2")
    assert computed <= len(picked.chosen)
    result = runner._decide_equivalence(_survivor(mutant), mutant, materialize_generated(mutant, tmp_path / "b"),
                                        tmp_path, 60.0, {}, picked)
    assert result.outcome is Outcome.SURVIVED and result.evidence is None
    assert result.detail.startswith(f"equal on the corpus, but differs on the sampling evidence domain at {found[0]}")


def test_a_statement_no_item_executes_runs_no_child_and_proves_nothing(recorded, tmp_path, monkeypatch):
    mutant = _mutant(_sampling_text())
    nothing = evidence.Pick("sampling", 1917, (), recorded["sampling"]["hashes"], "sampling.py:1-1")
    monkeypatch.setattr(runner, "fingerprint_child", lambda *a, **k: pytest.fail("no child runs"))
    result = runner._decide_by_evidence(_survivor(mutant), mutant, tmp_path, tmp_path, 60.0, nothing)
    # no item reaches the statement: no evidence, whatever the mutant does there (unproven, not equivalent)
    assert result.outcome is Outcome.SURVIVED and result.evidence is None
    assert result.detail == ("unproven: equal on the corpus; no item of the sampling evidence domain (1,917) "
                             "executes sampling.py:1-1")


EVIDENCE_CPU_SECONDS = {"sampling": 8.0, "compile": 30.0}
"""One mutant's whole domain and its pick, bounded (on the reference ~1.5 / ~6 CPU s)."""


@pytest.mark.parametrize("seed", [3, pytest.param(4, marks=pytest.mark.slow), pytest.param(5, marks=pytest.mark.slow)])
def test_the_picked_evidence_decides_as_the_whole_domain(recorded, seed, tmp_path):
    # generated mutants of sampling.py, each computed whole (the oracle) and through its pick
    _decides_as_the_whole_domain(recorded, "sampling", ["sampling"], seed, tmp_path)


@pytest.mark.slow
def test_the_picked_compile_evidence_decides_as_the_whole_domain(tmp_path):
    # the compile domain (5,069 items, ~4.2 CPU s whole): its record alone is ~18 CPU s
    recorded = evidence.record_lines(materialize(runner.NULL_MUTANT, tmp_path / "record"), ("compile",))
    _decides_as_the_whole_domain(recorded, "compile", sorted(evidence.COMPILE_MODULES), 11, tmp_path)


def _decides_as_the_whole_domain(recorded, kind: str, modules: list[str], seed: int, tmp_path) -> None:
    """Each of a seeded 6 mutants of ``modules`` in a bounded fork (a mutant may loop or grow):
    the same first differing item computed whole and through its pick, or both equal."""
    mutants, _ = generation.pick(generation.enumerate_sites(modules=modules), 6, seed)
    hashes = recorded[kind]["hashes"]
    decided, partial = 0, 0

    def both(mutant, folder, picked):
        module = load(materialize_generated(mutant, folder))
        return (evidence.first_difference(module, kind, hashes),
                evidence.first_difference(module, kind, hashes if picked is None else picked.reference()))

    for i, mutant in enumerate(mutants):
        picked = _pick(recorded, mutant)
        partial += picked is not None and len(picked.chosen) < picked.size
        answer = bounded_call(lambda: both(mutant, tmp_path / str(i), picked), EVIDENCE_CPU_SECONDS[kind])
        if answer is None:
            continue
        ((whole, _), (found, computed)), decided = answer, decided + 1
        assert found == whole, (mutant.id, whole, found)
        assert computed <= (len(hashes) if picked is None else len(picked.chosen)), mutant.id
    assert decided >= len(mutants) - 1, f"only {decided} of {len(mutants)} mutants decided within the bound"
    assert partial, "no mutant of the sample had a part of the domain picked: the test would test nothing"


def _survivor(mutant) -> MutantResult:
    return MutantResult(mutant.id, Outcome.SURVIVED, (), [], {"test_x": "passed"}, 0.0)


def test_the_map_keeps_the_evidence_while_its_sources_are_unchanged(recorded, tmp_path, monkeypatch):
    path = tmp_path / "map.json"
    cmap = coverage.CoverageMap(coverage.reference_digest(), {"test_hand_example": {"nfa.py": frozenset({3})}},
                                None, recorded)
    cmap.save(path)
    assert coverage.CoverageMap.load(path) == cmap
    monkeypatch.setattr(coverage, "evidence_digest", lambda: "another evidence domain")
    stale = coverage.CoverageMap.load(path)
    assert stale is not None and stale.evidence is None and stale.lines == cmap.lines   # the rest is kept
    assert stale.evidence_for(_mutant(_sampling_text())) is None                       # the whole domain
