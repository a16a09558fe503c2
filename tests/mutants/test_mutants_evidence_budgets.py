"""Each evidence item's CPU budget in a mutant's evidence child, calibrated from the reference's own CPU
on the item (``budgets.item_budget``, ``evidence.Pick.budgets``, ``evidence.within_budget``): the rule,
where the figures come from (the evidence record, ``evidence.record_lines``: checked in
``test_mutants_evidence_pick``), the fallback of a record without them, the switch, the child's
``--against`` file, and (e2e) a mutant whose evidence item spins, stopped at that item's budget with the
verdict its child's own limit gives. The same verdicts both ways on a sample:
``test_mutants_budget_verdicts.py`` (slow)."""

from __future__ import annotations

import dataclasses
import json
import os
import resource
import signal
import subprocess
import sys
import time

import pytest

import oracles.automaton as reference
from harness.mutants import budgets, coverage, evidence, generation, runner
from harness.mutants.apply import materialize_generated
from harness.mutants.runner import MutantResult, Outcome

SPINS = "parser.ReplaceBinaryOperator_Add_Mod.2"
"""``pos = start + 1`` made ``start % 1`` in ``_end_of_bracket``: the nest scan of a pattern of more than
400 ``(`` with a bracket after the first loops for ever (the compile domain's ``[(][(]...``)."""
SPINNING_PATTERN = "[(]" * 450 + "[("


def _mutant(mutant_id: str = SPINS):
    module = mutant_id.split(".")[0]
    return generation.build(generation.only(generation.enumerate_sites(modules=[module]), [mutant_id])[0])[0]


def _record(span: frozenset[int], cpu) -> dict:
    """A compile evidence record of three items, the first and third executing ``span`` of parser.py."""
    found = {"hashes": ["h0", "h1", "h2"], "every": {}, "sets": [{"parser.py": sorted(span)}, {}], "items": [0, 1, 0]}
    return {"compile": found if cpu is None else {**found, "cpu": cpu}}


@pytest.mark.unit
def test_an_items_budget_is_four_times_the_references_cpu_and_a_second_never_above_the_childs_limit():
    assert budgets.item_budget(0.05, 30.0) == 4 * 0.05 + 1
    assert budgets.item_budget(0.0, 30.0) == 1.0
    assert budgets.item_budget(8.0, 30.0) == 30.0   # 33 > 30: the child's limit today
    picked = evidence.Pick("compile", 4, (1, 3), ["h0", "h1", "h2", "h3"], "parser.py:1-1", [9.0, 0.02, 9.0, 10.0])
    assert picked.budgets(30.0) == [None, 1.08, None, 30.0]   # the chosen items only
    assert dataclasses.replace(picked, cpu=None).budgets(30.0) is None
    sent = json.loads(json.dumps(picked.to_json()))   # as a task carries it to a worker
    assert sent["cpu"] == {"1": 0.02, "3": 10.0}
    assert evidence.Pick.from_json(sent).budgets(30.0) == picked.budgets(30.0)
    sent.pop("cpu")   # a pick of a record made before the figures
    assert evidence.Pick.from_json(sent).budgets(30.0) is None


@pytest.mark.unit
def test_the_pick_takes_the_records_figures_and_an_old_record_has_none():
    span = frozenset({187})
    picked = evidence.pick(_record(span, [0.5, 0.1, 0.25]), "compile", "parser.py", span)
    assert picked.chosen == (0, 2) and picked.budgets(30.0) == [3.0, None, 2.0]
    for stored in (None, [0.5, 0.1], [0.5, -1, 0.25], [0.5, "0.1", 0.25], [0.5, True, 0.25], {"0": 0.5}):
        old = evidence.pick(_record(span, stored), "compile", "parser.py", span)
        assert old.chosen == (0, 2) and old.cpu is None and old.budgets(30.0) is None, stored


@pytest.mark.unit
def test_the_plan_carries_the_figures_and_the_switch_drops_them(monkeypatch):
    # the site of SPINS, by hand (the plan reads the site alone; enumerating parser's sites is ~1 CPU s)
    site = generation.Site("parser.py", "core/ReplaceBinaryOperator_Add_Mod", 2, (187, 16), (187, 17))
    mutant = generation.GeneratedMutant(site, "", "pos = start + 1", "pos = start % 1")
    span = coverage.statement_lines("parser.py", mutant.site.start[0])
    cmap = coverage.CoverageMap(coverage.reference_digest(), {}, None, _record(span, [0.5, 0.1, 0.25]))
    options = runner.GeneratedOptions(coverage=cmap)
    monkeypatch.delenv(budgets.OFF_VARIABLE, raising=False)
    assert runner.plan(options, mutant).evidence.budgets(30.0) == [3.0, None, 2.0]
    monkeypatch.setenv(budgets.OFF_VARIABLE, "1")
    off = runner.plan(options, mutant).evidence
    assert off.chosen == (0, 2) and off.budgets(30.0) is None


@pytest.mark.unit
def test_the_child_is_sent_each_items_budget_and_reads_it(monkeypatch, tmp_path):
    """``_evidence_differences`` writes the chosen items' hashes and budgets to the child's ``--against``
    file (``evidence.read_against`` reads it back); a pick without figures writes the hashes alone."""
    seen = []

    def child(package, args, timeout, module):
        seen.append(evidence.read_against(args[args.index("--against") + 1]))
        return {"differs": [], "computed": 2}, None
    monkeypatch.setattr(runner, "fingerprint_child", child)
    picked = evidence.Pick("compile", 3, (0, 2), ["h0", "h1", "h2"], "parser.py:1-1", [0.5, 0.1, 0.25])
    for given in (picked, dataclasses.replace(picked, cpu=None)):
        assert runner._evidence_differences(tmp_path, tmp_path, 30.0, "compile", given) == (([], 2), None)
    assert seen == [(["h0", None, "h2"], [3.0, None, 2.0]), (["h0", None, "h2"], None)]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"hashes": "h0"}), encoding="utf-8")
    with pytest.raises(ValueError, match="bad.json: an evidence child's reference must be"):
        evidence.read_against(bad)
    with pytest.raises(ValueError, match="evidence budgets: 1 for 3 items of the constraint domain"):
        evidence.first_difference(reference, "constraint", ["h0", None, "h2"], [1.0])


SPIN_UNDER_BUDGET = """
import resource, sys
from harness.mutants import evidence
resource.setrlimit(resource.RLIMIT_CPU, (20, 25))   # the child's own limit
with evidence.within_budget(float(sys.argv[1])):
    while True:
        pass
"""


@pytest.mark.e2e
def test_an_item_past_its_budget_ends_the_process_by_sigxcpu_below_its_own_limit():
    """The item's limit is the process's ``RLIMIT_CPU`` lowered: a loop ends by SIGXCPU (the signal the
    runner reads as "timeout") within a whole second of its budget, not at the process's 20 s; the limit
    is put back after an item that ends, and a budget at or past the limit, or none, leaves it alone."""
    child = subprocess.Popen([sys.executable, "-c", SPIN_UNDER_BUDGET, "0.3"], stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = -1   # reaped here (wait4: its own CPU)
    problem = child.stderr.read()[-300:]
    child.stderr.close()
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGXCPU, (status, problem)
    assert usage.ru_utime + usage.ru_stime < 15   # not the process's own limit (20 s)
    before = resource.getrlimit(resource.RLIMIT_CPU)
    with evidence.within_budget(2.0):
        lowered = resource.getrlimit(resource.RLIMIT_CPU)
    assert lowered[0] <= time.process_time() + 3 and lowered[1] == before[1]
    assert resource.getrlimit(resource.RLIMIT_CPU) == before
    with evidence.within_budget(None):
        assert resource.getrlimit(resource.RLIMIT_CPU) == before
    for bad in (0, -1.0, float("nan"), float("inf"), "1", True):
        with pytest.raises(ValueError, match="an evidence item's CPU budget must be a positive number"):
            with evidence.within_budget(bad):
                pass


@pytest.mark.e2e
def test_a_spinning_evidence_item_stops_at_its_own_budget_with_the_verdict_of_the_childs_limit(tmp_path):
    """``parser.ReplaceBinaryOperator_Add_Mod.2`` loops on the compile domain's ``[(]`` x 450 ``[(``. Its
    evidence child with that item's budget from the reference's CPU on it ends a few CPU s in; without
    figures it runs to its own limit (here 3 CPU s instead of the run's 30, to keep the test cheap; on a
    loaded machine the wall backstop may end it first: the same "timeout"): the same verdict both ways,
    unproven with the evidence undecided (the deep pass then runs)."""
    mutant = _mutant()
    package = materialize_generated(mutant, tmp_path)
    labels = [label for label, _ in evidence.items(reference, "compile")]
    index = labels.index(f"pattern {SPINNING_PATTERN!r}")
    _, thunk = list(evidence.items(reference, "compile"))[index]
    before = time.process_time()
    answer = evidence._hash(evidence._attempt(thunk))
    cpu = time.process_time() - before   # the reference's own CPU on the item (no tracer here)
    hashes = [""] * len(labels)
    hashes[index] = answer
    picked = evidence.Pick("compile", len(labels), (index,), hashes, "parser.py:187-187", [cpu] * len(labels))
    survivor = MutantResult(mutant.id, Outcome.SURVIVED, (), [], {}, 0.0, "", "")
    found = {}
    for name, pick, timeout in (("budget", picked, runner.GENERATED_TIMEOUT),
                                ("own limit", dataclasses.replace(picked, cpu=None), 3.0)):
        runner.task_cpu(reset=True)
        children = _children_cpu()
        result = runner._decide_by_evidence(survivor, mutant, package, tmp_path, timeout, pick, bound="")
        # the child's CPU: a warm grader's fork (task_cpu) or a process of this one's (a cold run)
        found[name] = (result.outcome, result.detail, runner.task_cpu() + _children_cpu() - children)
    (outcome, detail, spent), (outcome_own, detail_own, _) = found["budget"], found["own limit"]
    assert (outcome, detail) == (outcome_own, detail_own) == (
        Outcome.SURVIVED, f"{runner.UNPROVEN_NOTE}equal on the corpus; compile evidence undecided: timeout")
    budget = picked.budgets(runner.GENERATED_TIMEOUT)[index]
    # the child's own start (~1 CPU s), then the item to the next whole second past its budget, far
    # below the child's limit (30 CPU s, which the wall backstop, 30 x its factor, cannot end first)
    assert budget < 2 and 1 < spent < 4.5, found


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
