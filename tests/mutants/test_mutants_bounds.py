"""No "equivalent" on a size bound the evidence never reaches (issue 52 item 2, ``harness.mutants.bounds``).

``parser.ReplaceComparisonOperator_Gt_GtE.8`` (``> MAX_NESTING`` made ``>=``) was "equivalent with
evidence" because no evidence item nested 400 deep. The oracle here is the spec's silence on bounds
(no test may kill such a mutant) and the evidence domain itself: a bound mutant is equivalent only
when an item at the bound's edge executes its statement, and at that edge the mutant must differ
from the reference (checked by computing the edge items on the mutant and on the reference)."""

from __future__ import annotations

import pytest

from harness.mutants import bounds, evidence, generation, runner
from harness.mutants.apply import load, materialize_generated
from harness.mutants.infection import InfectionMap
from harness.mutants.runner import MutantResult, Outcome
from harness.mutants.statements import statement_lines

NESTING_CHECK = 'if ch == "(" and depth > limit:'
"""The MAX_NESTING check (``_first_group_deeper_than(pattern, MAX_NESTING)``): the defect's mutant, its
``>`` made ``>=`` (``parser.ReplaceComparisonOperator_Gt_GtE.8`` in the records, ``.2`` since the
dead nesting check of ``parse_group`` was deleted and the ids rekeyed)."""


def _built(module: str, wanted) -> generation.GeneratedMutant:
    for site in generation.enumerate_sites(modules=[module]):
        if wanted(site):
            mutant, why = generation.build(site)
            assert mutant is not None, why
            return mutant
    raise AssertionError(f"no site of {module} as wanted")


def _named() -> generation.GeneratedMutant:
    text = (generation.REFERENCE_DIR / "parser.py").read_text(encoding="utf-8").splitlines()
    line = next(n for n, t in enumerate(text, 1) if t.strip() == NESTING_CHECK)
    return _built("parser", lambda site: site.start[0] == line and site.operator.endswith("Gt_GtE"))


def _schema_depth() -> generation.GeneratedMutant:
    """schema.py's ``depth > MAX_DEPTH`` made ``>=``."""
    text = (generation.REFERENCE_DIR / "schema.py").read_text(encoding="utf-8").splitlines()
    line = next(n for n, t in enumerate(text, 1) if t.strip() == "if depth > MAX_DEPTH:")
    return _built("schema", lambda site: site.start[0] == line and site.operator.endswith("Gt_GtE"))


def _vocab_size() -> generation.GeneratedMutant:
    """vocab.py's ``n > MAX_VOCAB_SIZE`` made ``>=``."""
    text = (generation.REFERENCE_DIR / "vocab.py").read_text(encoding="utf-8").splitlines()
    line = next(n for n, t in enumerate(text, 1) if t.strip() == "if n > MAX_VOCAB_SIZE:")
    return _built("vocab", lambda site: site.start[0] == line and site.operator.endswith("Gt_GtE"))


def _not_a_bound() -> generation.GeneratedMutant:
    return _built("parser", lambda site: site.operator.endswith("Gt_GtE") and not bounds.bounds_read(
        site.file, _statement(site)))


def _statement(site) -> frozenset[int] | None:
    return statement_lines(site.file, site.start[0])


def _survivor(mutant) -> MutantResult:
    return MutantResult(mutant.id, Outcome.SURVIVED, (), [], {}, 0.0, "", "")


def _pick_without_edges(kind: str, bound: str) -> evidence.Pick:
    edge = set(evidence.edge_indices(kind, bound))
    size = max(edge) + 10
    chosen = tuple(i for i in range(5) if i not in edge)
    return evidence.Pick(kind, size, chosen, ["h"] * size, "x.py:1-1")


@pytest.mark.parametrize(("mutant", "kind", "bound"), [(_named, "compile", "MAX_NESTING"),
                                                        (_schema_depth, "schema", "MAX_DEPTH")])
def test_a_bound_mutant_is_unproven_when_no_edge_item_executes_it(mutant, kind, bound, tmp_path, monkeypatch):
    mutant = mutant()
    assert bound in bounds.bounds_read(mutant.site.file, _statement(mutant.site))
    monkeypatch.setattr(runner, "_evidence_differences", lambda *a, **k: (([], 5), None))   # "equal everywhere"
    result = runner._decide_by_evidence(_survivor(mutant), mutant, tmp_path, tmp_path, 60.0,
                                        _pick_without_edges(kind, bound))
    assert result.outcome is Outcome.SURVIVED and result.evidence is None
    assert result.detail.startswith("unproven: equal on the corpus; a size bound the evidence does not reach")
    assert bound in result.detail


def test_a_bound_with_no_edge_item_in_its_domain_is_never_equivalent(tmp_path, monkeypatch):
    mutant = _built("nfa", lambda site: "MAX_NFA_STATES" in bounds.bounds_read(site.file, _statement(site)))
    monkeypatch.setattr(runner, "_evidence_differences", lambda *a, **k: (([], 5188), None))
    result = runner._decide_by_evidence(_survivor(mutant), mutant, tmp_path, tmp_path, 60.0, None)
    assert result.outcome is Outcome.SURVIVED and "MAX_NFA_STATES: no item of the compile domain" in result.detail


def test_a_header_s_default_is_a_bound_only_where_the_mutated_node_reads_it():
    text = (generation.REFERENCE_DIR / "nfa.py").read_text(encoding="utf-8").splitlines()
    line = next(n for n, t in enumerate(text, 1) if t.startswith("def build_nfa("))
    span = statement_lines("nfa.py", line)
    assert bounds.bounds_read("nfa.py", span) == {"MAX_NFA_STATES"}   # the whole header reads it
    star = text[line - 1].index("*")
    assert bounds.bounds_read("nfa.py", span, site=((line, star), (line, star + 1))) == frozenset()
    default = text[line - 1].index("MAX_NFA_STATES")
    assert bounds.bounds_read("nfa.py", span, site=((line, default), (line, default + 14))) == {"MAX_NFA_STATES"}


def test_a_non_bound_equivalent_keeps_its_evidence(tmp_path, monkeypatch):
    mutant = _not_a_bound()
    monkeypatch.setattr(runner, "_evidence_differences", lambda *a, **k: (([], 5), None))
    picked = _pick_without_edges("compile", "MAX_NESTING")
    result = runner._decide_by_evidence(_survivor(mutant), mutant, tmp_path, tmp_path, 60.0, picked)
    assert result.outcome is Outcome.EQUIVALENT and result.evidence["size"] == picked.size


@pytest.mark.parametrize(("mutant", "kind", "bound"), [(_named, "compile", "MAX_NESTING"),
                                                        (_schema_depth, "schema", "MAX_DEPTH"),
                                                        (_vocab_size, "vocab", "MAX_VOCAB_SIZE")])
def test_the_domain_holds_the_edge_and_the_bound_mutant_differs_there(mutant, kind, bound, tmp_path):
    import oracles.automaton as reference

    mutant = mutant()
    edge = set(evidence.edge_indices(kind, bound))
    assert len(edge) >= 2 and bounds.unreached(kind, frozenset({bound}), None) is None
    expected = [evidence._hash(evidence._attempt(thunk)) if i in edge else None
                for i, (_, thunk) in enumerate(evidence.items(reference, kind))]
    assert evidence.first_difference(reference, kind, expected) == ([], len(edge))
    differs, _ = evidence.first_difference(load(materialize_generated(mutant, tmp_path)), kind, expected)
    assert differs, f"{mutant.id} equals the reference at {bound}'s edge"


def _no_infection_map(mutant, kind: str) -> InfectionMap:
    return InfectionMap("d", {}, {"test_hand_example": frozenset({mutant.id})}, {"size": 3, "infected": {}},
                        {kind: {"size": 10, "infected": {}}})


def test_no_infection_is_no_evidence_on_a_bound_the_domain_does_not_reach():
    mutant = _named()
    picked = _pick_without_edges("compile", "MAX_NESTING")
    plan = runner.infected_plan(runner.Plan(evidence=picked), _no_infection_map(mutant, "compile"), mutant)
    assert plan.infection is not None and plan.infection["evidence"] is None
    other = _not_a_bound()
    plan = runner.infected_plan(runner.Plan(evidence=picked), _no_infection_map(other, "compile"), other)
    assert plan.infection["evidence"]["kind"] == runner.NO_INFECTION


def _recorded(mutant, executed: set[int], size: int) -> dict:
    """A compile record in which the items ``executed`` (of ``size``) run the mutant's statement."""
    span = sorted(statement_lines(mutant.site.file, mutant.site.start[0]))
    return {"compile": {"hashes": ["h"] * size, "every": {}, "sets": [{}, {mutant.site.file: span}],
                        "items": [1 if i in executed else 0 for i in range(size)]}}


def test_the_plan_decides_the_bound_before_the_run_fans_out_and_the_task_reads_it(tmp_path, monkeypatch):
    from harness.mutants import coverage

    mutant = _named()
    edge = evidence.edge_indices("compile", "MAX_NESTING")
    size = max(edge) + 1
    options = runner.GeneratedOptions(coverage=coverage.CoverageMap("d", {}, None, _recorded(mutant, {0, 1}, size)))
    unreached = runner.plan(options, mutant)
    assert unreached.bound.startswith(bounds.UNREACHED) and "MAX_NESTING" in unreached.bound
    options = runner.GeneratedOptions(coverage=coverage.CoverageMap("d", {}, None,
                                                                    _recorded(mutant, {0, edge[0]}, size)))
    reached = runner.plan(options, mutant)
    assert reached.bound == "" and reached.evidence.chosen == (0, edge[0])
    # the task takes the plan's word (nothing parsed there): "" runs the evidence, a reason does not
    monkeypatch.setattr(runner, "_evidence_differences", lambda *a, **k: (([], 2), None))
    monkeypatch.setattr(bounds, "reason_for", lambda *a: pytest.fail("decided in the plan"))
    assert runner._decide_by_evidence(_survivor(mutant), mutant, tmp_path, tmp_path, 60.0, reached.evidence,
                                      reached.bound).outcome is Outcome.EQUIVALENT
    result = runner._decide_by_evidence(_survivor(mutant), mutant, tmp_path, tmp_path, 60.0, unreached.evidence,
                                        unreached.bound)
    assert result.outcome is Outcome.SURVIVED and result.detail.endswith(unreached.bound)
    sent = runner.mutant_task(mutant, timeout=30.0, evidence=unreached.evidence, bound=unreached.bound).payload
    assert sent["bound"] == unreached.bound
