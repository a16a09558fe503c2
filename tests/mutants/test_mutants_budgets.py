"""Each catalogue test's CPU budget for a generated mutant, calibrated from the reference's own CPU
(``harness.mutants.budgets``): the rule, where the figures come from (the coverage map's recording)
and where they go (the catalogue run's ``test_budgets`` and load budget), the fallback of a map
recorded without them and the switch that turns them off. The same verdicts both ways on a sample:
``test_mutants_budget_verdicts.py`` (slow)."""

from __future__ import annotations

import json

import pytest

from harness.mutants import budgets, coverage, generation, runner
from harness.mutants.apply import materialize_generated
from harness.policy import POLICY
from harness.run import CatalogueRun
from tests.support.helpers import confined

FIGURES = {"load": 0.4, "tests": {"test_hand_example": {"candidate": 0.05, "grader": 0.3},
                                  "test_matches_python_re": {"candidate": 0.6, "grader": 0.1},
                                  "test_deep_matching_equals_python_re": {"candidate": 5.0, "grader": 2.9}}}


@pytest.mark.unit
def test_a_budget_is_four_times_the_references_cpu_and_a_second_never_above_todays(monkeypatch):
    monkeypatch.delenv(budgets.OFF_VARIABLE, raising=False)
    today = runner.test_cpu_seconds(runner.GENERATED_TIMEOUT)   # 10 CPU s: a third of the run's 30
    found = budgets.budgets_for(FIGURES, today)
    assert found["tests"] == {"test_hand_example": 4 * 0.05 + 1, "test_matches_python_re": 4 * 0.6 + 1,
                              "test_deep_matching_equals_python_re": today}   # 21 > 10: today's
    assert found["load"] == 4 * 0.4 + 1
    assert budgets.budgets_for({**FIGURES, "load": 20.0}, today)["load"] == POLICY.load_cpu_seconds   # 81 > 60
    assert budgets.budgets_for(FIGURES, 2.0)["tests"]["test_matches_python_re"] == 2.0   # today's bounds it


@pytest.mark.unit
def test_no_figures_or_the_switch_is_todays_budget(monkeypatch):
    monkeypatch.delenv(budgets.OFF_VARIABLE, raising=False)
    assert budgets.budgets_for(None, 10.0) is None
    monkeypatch.setenv(budgets.OFF_VARIABLE, "1")
    assert budgets.budgets_for(FIGURES, 10.0) is None


def _mutant():
    site = generation.only(generation.enumerate_sites(modules=["determinize"]),
                           ["determinize.ReplaceComparisonOperator_NotEq_LtE.1"])[0]
    return generation.build(site)[0]


@pytest.mark.unit
def test_the_plan_takes_the_budgets_from_the_maps_figures_and_an_old_map_has_none(monkeypatch, tmp_path):
    """A map recorded with the figures keeps them (save, load) and the plan carries the budgets; a map
    recorded before them (no ``cpu`` in its file) or with malformed ones loads without: today's budgets."""
    monkeypatch.delenv(budgets.OFF_VARIABLE, raising=False)
    mutant = _mutant()
    cmap = coverage.CoverageMap(coverage.reference_digest(), {"test_hand_example": {"determinize.py": frozenset()}},
                                cpu=FIGURES)
    path = tmp_path / "map.json"
    cmap.save(path)
    back = coverage.CoverageMap.load(path)
    assert back.cpu == FIGURES
    assert runner.plan(runner.GeneratedOptions(coverage=back), mutant).budgets == \
        budgets.budgets_for(FIGURES, runner.test_cpu_seconds(runner.GENERATED_TIMEOUT))
    for stored in (None, {"load": 0.4}, {"load": -1, "tests": {}}, {"load": 0.4, "tests": {"t": {"candidate": "1"}}}):
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc.pop("cpu") if stored is None else doc.update(cpu=stored)
        path.write_text(json.dumps(doc), encoding="utf-8")
        old = coverage.CoverageMap.load(path)
        assert old is not None and old.cpu is None, stored
        assert runner.plan(runner.GeneratedOptions(coverage=old), mutant).budgets is None
    monkeypatch.setenv(budgets.OFF_VARIABLE, "1")
    assert runner.plan(runner.GeneratedOptions(coverage=back), mutant).budgets is None


@pytest.mark.unit
def test_a_catalogue_run_carries_each_tests_budget_and_the_loads(monkeypatch, tmp_path):
    """``run_catalogue_against`` puts the plan's budgets in the run value the grader child reads
    (``--run``): each test's in ``test_budgets``, the load's as the policy's ``load_cpu_seconds``;
    without budgets, today's (none per test, the policy's load)."""
    sent = []

    def run(cmd, timeout, candidate_cpu=0.0, env=None, zygote=False):
        sent.append(CatalogueRun.from_json(cmd[cmd.index("--run") + 1]))
        return 0, ""
    monkeypatch.setattr(runner, "_run", run)
    chosen = budgets.budgets_for(FIGURES, 10.0)
    runner.run_catalogue_against(tmp_path, ("test_hand_example",), False, 30.0, budgets=chosen)
    runner.run_catalogue_against(tmp_path, ("test_hand_example",), False, 30.0)
    given, plain = sent
    assert given.budget_of("test_hand_example") == 1.2 and given.budget_of("test_apply_mask") == 10.0
    assert given.load_cpu_seconds == chosen["load"]
    assert plain.test_budgets == () and plain.budget_of("test_hand_example") == 10.0
    assert plain.load_cpu_seconds == POLICY.load_cpu_seconds


@pytest.mark.e2e
@confined
def test_a_spinning_mutant_is_stopped_at_its_tests_own_budget_and_at_its_loads(tmp_path):
    """Behind the wall, the grader child gives a test's calls the run's budget of that test (a
    mutant whose ``test_every_state_is_live`` loops: "timeout", the reason naming 1.5 CPU s), and a
    load the run's load budget (a mutant whose import loops: refused at load, naming 2 CPU s)."""
    ids = ["determinize.ReplaceComparisonOperator_NotEq_LtE.1", "parser.ReplaceBinaryOperator_BitOr_Pow.1"]
    sites = generation.only(generation.enumerate_sites(modules=["determinize", "parser"]), ids)
    spins, loops_at_load = (generation.build(site)[0] for site in sites)
    root = tmp_path
    chosen = {"load": 2.0, "tests": {"test_every_state_is_live": 1.5}}
    records: dict[str, dict] = {}
    found, problem = runner.run_catalogue_against(materialize_generated(spins, root), ("test_every_state_is_live",),
                                                  False, 30.0, records=records, budgets=chosen)
    assert problem is None and found == {"test_every_state_is_live": "timeout"}
    assert "more than 1.5 CPU s" in records["test_every_state_is_live"]["reason"]
    found, problem = runner.run_catalogue_against(materialize_generated(loops_at_load, root), ("test_hand_example",),
                                                  False, 30.0, budgets=chosen)
    assert problem.startswith("load: ") and "more than 2 CPU s" in problem and runner.at_its_own_limit(problem)


@pytest.mark.unit
def test_a_task_carries_the_budgets_to_its_worker(monkeypatch):
    """On Dask (``mutants.tasks``) the plan's budgets go with the task as data and reach ``run_generated``."""
    from harness.mutants import tasks

    mutant = _mutant()
    chosen = budgets.budgets_for(FIGURES, 10.0)
    payload = json.loads(json.dumps(runner.mutant_task(mutant, timeout=30.0, budgets=chosen).payload))
    seen = {}
    monkeypatch.setattr(runner, "run_generated", lambda *a, **k: seen.update(k) or runner.MutantResult(
        mutant.id, runner.Outcome.KILLED, (), ["load"], {}, 0.0, "", "load"))
    tasks.run_task(payload)
    assert seen["budgets"] == chosen
