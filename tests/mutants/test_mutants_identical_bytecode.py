"""Trivial Compiler Equivalence (issue 52 item 4): a generated mutant whose compiled module is the
reference's is equivalent with evidence "identical bytecode" and runs nothing; mutants whose compiled
modules are one another's share one run's verdict (``harness.mutants.identical_bytecode``,
``runner._settle_by_bytecode``)."""

from __future__ import annotations

import json

import pytest

from harness.mutants import course, generation, identical_bytecode, report, runner
from harness.mutants.apply import REFERENCE_DIR
from harness.mutants.runner import GeneratedOptions, MutantResult, Outcome
from harness.mutants.state import MutantState
from tests.support.helpers import without_oracle_memo

FILE = "determinize.py"
LINE = "MAX_DFA_STATES = 20_000"


def _hand_made(replacement: str, occurrence: int):
    """A generated mutant of ``determinize.py`` with its ``MAX_DFA_STATES`` line replaced (a made-up
    site: only its id and file matter here)."""
    text = (REFERENCE_DIR / FILE).read_text(encoding="utf-8")
    assert text.count(LINE) == 1
    site = generation.Site(FILE, "core/NumberReplacer", occurrence, (41, 17), (41, 23))
    return generation.GeneratedMutant(site, text.replace(LINE, replacement), LINE, replacement)


FOLDS_TO_THE_REFERENCE = _hand_made("MAX_DFA_STATES = 20 * 1000", 900)   # Python folds it: 20000
DIFFERS = _hand_made("MAX_DFA_STATES = 20 * 1001", 901)
ONE = _hand_made("MAX_DFA_STATES = 1", 902)   # every DFA of two states is refused: killed at once
SAME_AS_ONE = _hand_made("MAX_DFA_STATES = 2 - 1", 903)   # folds to 1: ONE's program


def test_the_key_is_what_runs_not_the_text():
    key = identical_bytecode.module_key
    assert key("x = 2 * 3\n", "a.py") == key("x = 6\n", "a.py")
    assert key("x = 2 * 3\n", "a.py") != key("x = 7\n", "a.py")
    assert key("if not a is b:\n    f()\n", "a.py") == key("if a is not b:\n    f()\n", "a.py")
    assert key("x = 1\n\n\ny = 2\n", "a.py") == key("x = 1\ny = 2\n", "b.py")   # lines and the file name left out
    assert key("x = 1\n", "a.py") != key("x = 1.0\n", "a.py") != key("x = True\n", "a.py")
    assert key("x = 0.0\n", "a.py") != key("x = -0.0\n", "a.py")
    assert key("def f(a):\n    return a\n", "a.py") != key("def g(a):\n    return a\n", "a.py")   # its name
    assert key("def f(a):\n    return a\n", "a.py") != key("def f(b):\n    return b\n", "a.py")   # a keyword name
    assert key("assert x\n", "a.py") != key("pass\n", "a.py")   # asserts kept, as an import compiles them
    assert key("x = (\n", "a.py") is None


def test_a_mutant_folded_to_the_reference_is_equivalent_and_one_that_differs_is_not():
    assert identical_bytecode.is_reference(FOLDS_TO_THE_REFERENCE, REFERENCE_DIR)
    assert not identical_bytecode.is_reference(DIFFERS, REFERENCE_DIR)
    assert not identical_bytecode.is_reference(ONE, REFERENCE_DIR)
    assert identical_bytecode.duplicates([DIFFERS, ONE, SAME_AS_ONE], REFERENCE_DIR) == {SAME_AS_ONE.id: ONE.id}
    assert identical_bytecode.duplicates([SAME_AS_ONE, ONE], REFERENCE_DIR) == {ONE.id: SAME_AS_ONE.id}   # in order
    same, duplicates = identical_bytecode.sort([FOLDS_TO_THE_REFERENCE, DIFFERS], REFERENCE_DIR)
    assert (same, duplicates) == ({FOLDS_TO_THE_REFERENCE.id}, {})


def _scripted_runs(monkeypatch) -> list[str]:
    """``run_generated`` answering without a process: DIFFERS survives, ONE is killed by a test."""
    ran: list[str] = []

    def fake(mutant, root, timeout, **kwargs):
        ran.append(mutant.id)
        if mutant.id == ONE.id:
            return MutantResult(mutant.id, Outcome.KILLED, (), ["test_determinize"], {"test_determinize": "failed"},
                                0.5, "", "default")
        return MutantResult(mutant.id, Outcome.SURVIVED, (), [], {"test_determinize": "passed"}, 0.5)
    monkeypatch.setattr(runner, "run_generated", fake)
    return ran


def test_the_runner_runs_neither_an_equivalent_by_bytecode_nor_a_duplicate(monkeypatch, tmp_path):
    ran = _scripted_runs(monkeypatch)
    mutants = [FOLDS_TO_THE_REFERENCE, DIFFERS, ONE, SAME_AS_ONE]
    state = MutantState.open(tmp_path / "state.jsonl", {"test": 1}, resume=False)
    results = {r.id: r for r in runner.run_all(mutants, jobs=2, generated=GeneratedOptions(deep=False), state=state)}
    assert sorted(ran) == sorted([DIFFERS.id, ONE.id])
    equivalent = results[FOLDS_TO_THE_REFERENCE.id]
    assert equivalent.outcome is Outcome.EQUIVALENT and equivalent.evidence["kind"] == identical_bytecode.KIND
    duplicate = results[SAME_AS_ONE.id]
    assert (duplicate.outcome, duplicate.tier, duplicate.killed_by) == (Outcome.KILLED, "default", ["test_determinize"])
    assert duplicate.detail == f"{runner.DUPLICATE_NOTE}{ONE.id} (identical bytecode)"
    assert results[DIFFERS.id].outcome is Outcome.SURVIVED
    saved = [json.loads(line) for line in (tmp_path / "state.jsonl").read_text().splitlines()[1:]]
    assert {r["id"] for r in saved} == {m.id for m in mutants}   # every verdict kept, the copies too
    assert [r["cpu_seconds"] for r in saved if r["id"] in (FOLDS_TO_THE_REFERENCE.id, SAME_AS_ONE.id)] == [0.0, 0.0]
    # resumed with the first already done: the duplicate's copy comes from the state, nothing runs again
    ran.clear()
    kept = [line for line in (tmp_path / "state.jsonl").read_text().splitlines() if SAME_AS_ONE.id not in line]
    (tmp_path / "resumed.jsonl").write_text("\n".join(kept) + "\n")
    resumed = runner.run_all(mutants, jobs=1, generated=GeneratedOptions(deep=False),
                             state=MutantState.open(tmp_path / "resumed.jsonl", {"test": 1}, resume=True))
    assert ran == [] and resumed[3].detail == duplicate.detail and resumed[3].killed_by == ["test_determinize"]


def test_the_slow_path_switch_runs_every_mutant(monkeypatch):
    ran = _scripted_runs(monkeypatch)
    monkeypatch.setattr(runner, "BY_BYTECODE", False)
    runner.run_all([FOLDS_TO_THE_REFERENCE, ONE, SAME_AS_ONE], jobs=1, generated=GeneratedOptions(deep=False))
    assert sorted(ran) == sorted([FOLDS_TO_THE_REFERENCE.id, ONE.id, SAME_AS_ONE.id])


def test_the_reports_show_the_evidence_kind_and_the_duplicate(monkeypatch):
    _scripted_runs(monkeypatch)
    mutants = [FOLDS_TO_THE_REFERENCE, ONE, SAME_AS_ONE]
    results = runner.run_all(mutants, jobs=1, generated=GeneratedOptions(deep=False))
    lookup = {m.id: m for m in mutants}
    markdown = course.to_markdown(results, lookup)
    assert f"**{identical_bytecode.KIND}**" in markdown   # the evidence kinds, each with its domain
    assert f"| {identical_bytecode.KIND} | the compiled module |" in markdown
    assert "identical bytecode" in course.to_html(results, lookup)
    stryker = report.to_stryker(results, lookup)
    reasons = {m["id"]: m.get("statusReason") for f in stryker["files"].values() for m in f["mutants"]}
    assert reasons[SAME_AS_ONE.id].startswith(f"{runner.DUPLICATE_NOTE}{ONE.id}")
    assert identical_bytecode.DOMAIN in reasons[FOLDS_TO_THE_REFERENCE.id]
    rates = report.kill_rates(results, lookup)["total"]["all"]
    assert (rates["equivalent"], rates["default"]) == (1, 2)


def _fast_and_slow(monkeypatch, mutants) -> tuple[dict, dict]:
    """Both runs without the oracle memo (its four recording runs, one a warm grader, were ~17 of
    this test's ~22 CPU s; the claim is the duplicate's verdict, which the memo does not change)."""
    without_oracle_memo(monkeypatch)
    options = GeneratedOptions(deep=False, first_kill=True)

    def verdicts(by_bytecode: bool) -> dict:
        monkeypatch.setattr(runner, "BY_BYTECODE", by_bytecode)
        return {r.id: r for r in runner.run_all(mutants, jobs=2, generated=options)}
    return verdicts(True), verdicts(False)


@pytest.mark.e2e
def test_a_duplicate_gets_the_verdict_the_slow_path_gives_it(monkeypatch):
    """The slow path (every mutant run) against the new one: the duplicate is killed, by the same
    test, as when it runs itself."""
    fast, slow = _fast_and_slow(monkeypatch, [ONE, SAME_AS_ONE])
    for mutant in (ONE, SAME_AS_ONE):
        assert (fast[mutant.id].outcome, fast[mutant.id].tier) == (slow[mutant.id].outcome, slow[mutant.id].tier)
        assert fast[mutant.id].outcome is Outcome.KILLED
    assert slow[SAME_AS_ONE.id].killed_by == slow[ONE.id].killed_by == fast[SAME_AS_ONE.id].killed_by


@pytest.mark.e2e
@pytest.mark.slow
def test_an_equivalent_by_bytecode_is_never_killed_by_the_slow_path(monkeypatch):
    """Run whole (the default tier, the corpus, the evidence domain: ~10 CPU s), the mutant folded to
    the reference is not killed, and with evidence it is equivalent there too."""
    fast, slow = _fast_and_slow(monkeypatch, [FOLDS_TO_THE_REFERENCE])
    assert fast[FOLDS_TO_THE_REFERENCE.id].outcome is Outcome.EQUIVALENT
    assert slow[FOLDS_TO_THE_REFERENCE.id].outcome is Outcome.EQUIVALENT, slow
