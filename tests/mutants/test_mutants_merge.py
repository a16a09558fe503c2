"""mutants --generated --merge (harness.mutants.merge): runs of one plan on several Pythons, one report.

The rule is checked on hand-made records, branch by branch, against the issue's statement of it:
killed if killed on any Python; not covered only if no Python's run executes it; equivalent only
if equivalent with evidence on every Python whose run executes it; otherwise survived."""

from __future__ import annotations

import io
import json

import pytest

from harness.cli import main
from harness.mutants import generation, merge
from harness.mutants.runner import MutantResult, Outcome
from harness.report import escape
from tests.support.helpers import without_oracle_memo

EVIDENCE = {"kind": "compile", "domain": "the sweep", "size": 5085}


def _result(outcome: str, tier: str = "", killed_by=(), evidence=None, key: str = "m") -> MutantResult:
    return MutantResult(key, Outcome(outcome), (), list(killed_by), {t: "failed" for t in killed_by}, 1.0, "",
                        tier, evidence)


def test_killed_on_any_python_names_that_python_its_tier_and_killers():
    found = merge.merge_one({"3.10": _result("killed", "deep", ["test_deep_matching_equals_python_re"]),
                             "3.11": _result("not covered")})
    assert found.result.outcome is Outcome.KILLED and found.pythons == ("3.10",)
    assert found.result.tier == "deep" and found.result.killed_by == ["test_deep_matching_equals_python_re"]
    assert found.result.detail.startswith("on Python 3.10: killed")
    found = merge.merge_one({"3.11": _result("survived"), "3.13": _result("killed", "default", ["test_x"])})
    assert (found.result.outcome, found.pythons) == (Outcome.KILLED, ("3.13",))


def test_a_kill_on_two_pythons_shows_the_default_tier_s_then_a_kill_before_a_timeout():
    found = merge.merge_one({"3.10": _result("killed", "deep", ["test_deep"]),
                             "3.13": _result("killed", "default", ["test_hand_example"])})
    assert (found.pythons, found.result.tier) == (("3.13",), "default")
    found = merge.merge_one({"3.10": _result("timeout", "default"), "3.13": _result("killed", "deep", ["t"])})
    assert (found.result.outcome, found.pythons) == (Outcome.KILLED, ("3.13",))
    found = merge.merge_one({"3.10": _result("timeout", "deep"), "3.11": _result("equivalent", evidence=EVIDENCE)})
    assert (found.result.outcome, found.pythons) == (Outcome.TIMEOUT, ("3.10",))   # a timeout is its tier's kill


def test_not_covered_only_when_no_python_s_run_executes_it():
    found = merge.merge_one({"3.11": _result("not covered"), "3.10": _result("not covered")})
    assert found.result.outcome is Outcome.NOT_COVERED and found.pythons == ("3.10", "3.11")
    found = merge.merge_one({"3.11": _result("not covered"), "3.10": _result("survived")})
    assert (found.result.outcome, found.pythons) == (Outcome.SURVIVED, ("3.10",))


def test_equivalent_only_when_equivalent_with_evidence_on_every_python_executing_it():
    found = merge.merge_one({"3.11": _result("not covered"), "3.10": _result("equivalent", evidence=EVIDENCE)})
    assert (found.result.outcome, found.pythons, found.result.evidence) == (Outcome.EQUIVALENT, ("3.10",), EVIDENCE)
    found = merge.merge_one({"3.10": _result("equivalent", evidence=EVIDENCE),
                             "3.13": _result("equivalent", evidence=EVIDENCE)})
    assert (found.result.outcome, found.pythons) == (Outcome.EQUIVALENT, ("3.10", "3.13"))
    found = merge.merge_one({"3.10": _result("equivalent", evidence=EVIDENCE), "3.11": _result("survived")})
    assert (found.result.outcome, found.pythons) == (Outcome.SURVIVED, ("3.11",))
    found = merge.merge_one({"3.10": _result("equivalent", evidence=EVIDENCE), "3.11": _result("survived (unproven)")})
    assert (found.result.outcome, found.pythons) == (Outcome.UNPROVEN, ("3.11",))


def test_survived_beats_unproven_and_a_runner_error_alone_stays_an_error():
    found = merge.merge_one({"3.10": _result("survived (unproven)"), "3.11": _result("survived")})
    assert (found.result.outcome, found.pythons) == (Outcome.SURVIVED, ("3.11",))
    found = merge.merge_one({"3.10": _result("error"), "3.11": _result("not covered")})
    assert (found.result.outcome, found.pythons) == (Outcome.ERROR, ("3.10",))
    found = merge.merge_one({"3.10": _result("error"), "3.11": _result("equivalent", evidence=EVIDENCE)})
    assert found.result.outcome is Outcome.ERROR   # never equivalent: 3.10's run gave no verdict
    with pytest.raises(ValueError, match="no result"):
        merge.merge_one({})


def test_python_versions_order_as_numbers():
    found = merge.merge_one({"3.9": _result("not covered"), "3.10": _result("not covered")})
    assert found.pythons == ("3.9", "3.10")


# --- files ------------------------------------------------------------------------------------

PLAN = {"module": ["parser"], "operators": [], "sample": None, "seed": 1}


def _options(**changed) -> dict:
    return {"mode": "generated", "timeout": 30.0, "deep": True, "every_test": False, "build": "b" * 64,
            "plan": dict(PLAN), **changed}


def _state(path, python, records, **changed):
    header = {"format": "constrain-harness-mutant-state", "format_version": 1, "python": python,
              "options": {**_options(**changed), "mutants": [r["id"] for r in records]}}
    lines = [header] + [{"expected": [], "killed_by": [], "tests": {}, "seconds": 1.0, "detail": "", "tier": "",
                         **r} for r in records]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _ids(plan):
    return ["parser.A.0", "parser.A.1", "parser.A.2"]


def test_runs_of_one_plan_merge_per_id(tmp_path):
    a = _state(tmp_path / "py310.jsonl", "3.10", [{"id": "parser.A.0", "outcome": "killed", "tier": "deep",
                                                   "killed_by": ["test_deep"]},
                                                  {"id": "parser.A.1", "outcome": "not covered"}])
    b = _state(tmp_path / "py311.jsonl", "3.11", [{"id": "parser.A.0", "outcome": "not covered"},
                                                  {"id": "parser.A.2", "outcome": "survived"}])
    runs = merge.read_runs([a, b], plan_ids=_ids)
    merged = merge.merge(runs)
    assert {key: (m.result.outcome, m.pythons) for key, m in merged.items()} == {
        "parser.A.0": (Outcome.KILLED, ("3.10",)), "parser.A.1": (Outcome.NOT_COVERED, ("3.10",)),
        "parser.A.2": (Outcome.SURVIVED, ("3.11",))}
    assert merge.runs_text(runs) == ("Merged runs: Python 3.10 (py310.jsonl, 2 mutants); "
                                     "Python 3.11 (py311.jsonl, 2 mutants).")


@pytest.mark.parametrize("changed, named", [({"timeout": 60.0}, "timeout"), ({"build": "c" * 64}, "build"),
                                            ({"deep": False}, "deep"), ({"plan": {**PLAN, "seed": 2}}, "plan")])
def test_runs_of_other_plans_options_or_builds_are_refused_naming_the_file(tmp_path, changed, named):
    a = _state(tmp_path / "a.jsonl", "3.10", [{"id": "parser.A.0", "outcome": "killed"}])
    b = _state(tmp_path / "b.jsonl", "3.11", [{"id": "parser.A.0", "outcome": "killed"}], **changed)
    with pytest.raises(ValueError, match=rf"{b}.*other {named}"):
        merge.read_runs([a, b], plan_ids=_ids)


def test_two_runs_of_one_python_or_an_id_outside_the_plan_are_refused(tmp_path):
    a = _state(tmp_path / "a.jsonl", "3.11", [{"id": "parser.A.0", "outcome": "killed"}])
    b = _state(tmp_path / "b.jsonl", "3.11", [{"id": "parser.A.1", "outcome": "killed"}])
    with pytest.raises(ValueError, match=rf"{b} and {a} were both run on Python 3.11"):
        merge.read_runs([a, b], plan_ids=_ids)
    c = _state(tmp_path / "c.jsonl", "3.10", [{"id": "parser.Z.9", "outcome": "killed"}])
    with pytest.raises(ValueError, match=rf"{c} holds 1 mutant id\(s\) the plan does not: parser.Z.9"):
        merge.read_runs([a, c], plan_ids=_ids)


def test_files_that_cannot_merge_are_refused_naming_the_file(tmp_path):
    a = _state(tmp_path / "a.jsonl", "3.10", [{"id": "parser.A.0", "outcome": "killed"}])
    with pytest.raises(ValueError, match="two or more"):
        merge.read_runs([a], plan_ids=_ids)
    missing = tmp_path / "missing.jsonl"
    with pytest.raises(ValueError, match=f"cannot read {missing}"):
        merge.read_runs([a, missing], plan_ids=_ids)
    other = tmp_path / "other.jsonl"
    other.write_text('{"format": "something else"}\n')
    with pytest.raises(ValueError, match=f"{other} is not a constrain-harness mutant state"):
        merge.read_runs([a, other], plan_ids=_ids)
    catalogue = _state(tmp_path / "catalogue.jsonl", "3.11", [], mode="catalogue")
    with pytest.raises(ValueError, match=f"{catalogue} is not the state of a --generated run"):
        merge.read_runs([a, catalogue], plan_ids=_ids)
    old = tmp_path / "old.jsonl"
    old.write_text(json.dumps({"format": "constrain-harness-mutant-state", "format_version": 1,
                               "options": _options()}) + "\n")
    with pytest.raises(ValueError, match=f"{old} records no Python"):
        merge.read_runs([a, old], plan_ids=_ids)
    broken = _state(tmp_path / "broken.jsonl", "3.11", [{"id": "parser.A.1", "outcome": "no such outcome"}])
    with pytest.raises(ValueError, match=f"{broken} holds a record that is not a mutant result"):
        merge.read_runs([a, broken], plan_ids=_ids)


# --- the report and the verb ------------------------------------------------------------------

def _two_real_sites():
    return generation.enumerate_sites(modules=["parser"], operators=["NumberReplacer"])[:2]


def test_the_merged_report_says_which_pythons_ran_and_where_each_verdict_was_reached(tmp_path):
    first, second = (site.id for site in _two_real_sites())
    a = _state(tmp_path / "py310.jsonl", "3.10", [{"id": first, "outcome": "killed", "tier": "deep",
                                                   "killed_by": ["test_deep"]},
                                                  {"id": second, "outcome": "not covered"}],
               plan={**PLAN, "operators": ["NumberReplacer"]})
    b = _state(tmp_path / "py311.jsonl", "3.11", [{"id": first, "outcome": "not covered"},
                                                  {"id": second, "outcome": "not covered"}],
               plan={**PLAN, "operators": ["NumberReplacer"]})
    runs = merge.read_runs([a, b])             # the real plan: every NumberReplacer site of parser.py
    merged = merge.merge(runs)
    built = merge.lookup_for(runs, jobs=1)
    assert set(built) == {first, second}
    killed = merge.to_report(runs, merged, built)
    doc = json.loads(killed.native["json"]())
    assert [r["python"] for r in doc["runs"]] == ["3.10", "3.11"]
    assert {row["id"]: (row["outcome"], row["python"]) for row in doc["mutants"]} == {
        first: ("killed", ["3.10"]), second: ("not covered", ["3.10", "3.11"])}
    markdown = killed.native["markdown"]()
    assert "Merged runs: Python 3.10 (py310.jsonl, 2 mutants); Python 3.11 (py311.jsonl, 2 mutants)." in markdown
    cell = escape.markdown_cell
    assert f"| {cell(first)} | {cell('killed:deep')} | {cell('3.10')} |" in markdown
    page = killed.native["html"]()
    assert "Where each verdict was reached" in page and "Merged runs: Python 3.10" in page
    assert killed.terminal.startswith("Merged runs: Python 3.10")


def test_the_verb_merges_and_refuses_what_it_cannot(tmp_path):
    first, second = (site.id for site in _two_real_sites())
    plan = {**PLAN, "operators": ["NumberReplacer"]}
    a = _state(tmp_path / "py310.jsonl", "3.10", [{"id": first, "outcome": "killed", "tier": "default",
                                                   "killed_by": ["test_hand_example"]}], plan=plan)
    b = _state(tmp_path / "py313.jsonl", "3.13", [{"id": second, "outcome": "equivalent", "evidence": EVIDENCE}],
               plan=plan)
    out, err = io.StringIO(), io.StringIO()
    assert main(["mutants", "--generated", "--merge", str(a), str(b), "--json", str(tmp_path / "m.json")],
                out, err) == 0, err.getvalue()
    doc = json.loads((tmp_path / "m.json").read_text())
    assert {row["id"]: row["python"] for row in doc["mutants"]} == {first: ["3.10"], second: ["3.13"]}
    assert "Merged runs: Python 3.10" in out.getvalue()
    for extra in (["--only", first], ["--state", str(tmp_path / "s.jsonl")], ["--resume"], ["--every-test"],
                  ["--timeout", "5"]):
        err = io.StringIO()
        assert main(["mutants", "--generated", "--merge", str(a), str(b), *extra], io.StringIO(), err) == 2
        assert "--merge runs nothing" in err.getvalue()
    err = io.StringIO()
    assert main(["mutants", "--merge", str(a), str(b)], io.StringIO(), err) == 2
    assert "--merge needs --generated" in err.getvalue()
    same = _state(tmp_path / "again.jsonl", "3.10", [{"id": second, "outcome": "survived"}], plan=plan)
    err = io.StringIO()
    assert main(["mutants", "--generated", "--merge", str(a), str(same)], io.StringIO(), err) == 2
    assert "were both run on Python 3.10" in err.getvalue()


@pytest.mark.e2e
def test_two_real_runs_on_two_pythons_merge_into_one_report(tmp_path, monkeypatch):
    """Two real mutants of ``parse`` (the subset parser's result dropped; every pattern too deep),
    run by the verb on this Python and on a faked other one, each with a hand-made coverage map
    in which only one of them is executed there; the merge names, per mutant, the Python that
    killed it. A mutant no test of a run executes runs nothing there ("not covered")."""
    from harness.mutants import coverage

    without_oracle_memo(monkeypatch)   # two verb runs of two mutants: each warm grader's recording run ~4-5 CPU s
    here = coverage.python_version()
    other = "3.99"
    dropped, too_deep = "parser.ReplaceReturnValue.7", "parser.AddNot.4"
    lines = {key: set(coverage.statement_lines("parser.py", site.start[0])) for key, site in
             ((s.id, s) for s in generation.enumerate_sites(modules=["parser"]) if s.id in (dropped, too_deep))}

    def run(python: str, executed: str) -> tuple:
        monkeypatch.setattr(coverage, "python_version", lambda: python)
        cmap = coverage.CoverageMap(coverage.reference_digest(),
                                    {"test_hand_example": {"parser.py": frozenset(lines[executed])}}, None, {})
        cmap.save(tmp_path / f"map{python}.json")
        state, out, err = tmp_path / f"py{python}.jsonl", io.StringIO(), io.StringIO()
        code = main(["mutants", "--generated", "--module", "parser", "--only", f"{dropped},{too_deep}", "--jobs",
                     "1", "--no-deep", "--no-self-check", "--coverage-file", str(tmp_path / f"map{python}.json"),
                     "--state", str(state)], out, err)
        monkeypatch.undo()
        return code, state, out.getvalue() + err.getvalue()

    code, mine, text = run(here, dropped)
    assert code == 1 and "not covered" in text, text          # too_deep: no test executes it here
    code, theirs, text = run(other, too_deep)
    assert code == 1 and "not covered" in text, text
    out, err = io.StringIO(), io.StringIO()
    assert main(["mutants", "--generated", "--merge", str(mine), str(theirs), "--json", str(tmp_path / "m.json")],
                out, err) == 0, out.getvalue() + err.getvalue()
    rows = {row["id"]: row for row in json.loads((tmp_path / "m.json").read_text())["mutants"]}
    assert {key: (row["outcome"], row["tier"], row["python"]) for key, row in rows.items()} == {
        dropped: ("killed", "default", [here]), too_deep: ("killed", "default", [other])}
    assert rows[too_deep]["killed_by"] == ["test_hand_example"]
    assert f"Python {here} (py{here}.jsonl, 2 mutants)" in out.getvalue()
    with pytest.raises(ValueError, match=f"run on Python {here}, this is Python {other}"):
        monkeypatch.setattr(coverage, "python_version", lambda: other)
        from harness.mutants.state import MutantState
        MutantState.open(mine, json.loads(mine.read_text().splitlines()[0])["options"], resume=True)
