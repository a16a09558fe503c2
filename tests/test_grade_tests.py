"""grade-tests (issue 13): a student's suite graded against wheats and chaffs.

The default run grades small matrices (the example suites of ``tests/student_suites``
against one or two wheats and a few chaffs) and checks the gate and the reports in
process; ``tests/test_grade_tests_slow.py`` grades every example suite against every
chaff. Each grading asserts the harness's files unchanged and no process left.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.check import protected_roots
from harness.cli import main
from harness.gradetests import reports
from harness.gradetests.grade import GradeOptions, grade
from harness.gradetests.hints import hint
from harness.gradetests.relay import Gate, public_names
from harness.sandbox import channel, confine
from tests.test_check_isolation import left_over

ROOT = Path(__file__).resolve().parents[1]
SUITES = ROOT / "tests" / "student_suites"
confined = pytest.mark.skipif(confine.unavailable() is not None,
                              reason=f"no confinement can start here: {confine.unavailable()}")


def tree_digest() -> str:
    digest = hashlib.sha256()
    for root in [*protected_roots(), SUITES]:
        for path in sorted([root, *root.rglob("*")]):
            if "__pycache__" in path.parts:
                continue
            digest.update(str(path.relative_to(ROOT)).encode() + b"\0")
            digest.update(path.read_bytes() if path.is_file() and not path.is_symlink() else b"dir")
    return digest.hexdigest()


@pytest.fixture
def harness_unchanged():
    before = tree_digest()
    yield
    assert tree_digest() == before, "the harness's files (or the example suites) changed"


def graded(suite: str, **options):
    result = grade(GradeOptions(suite=SUITES / suite, seed=1, **options))
    assert left_over(result.marker) == [], f"processes of the {suite} suite are still running"
    assert result.tampered == []
    return result


# ------------------------------------------------------------------ small matrices (confined)


@confined
def test_a_wrong_test_is_invalid_and_the_rest_is_scored(harness_unchanged, tmp_path):
    result = graded("wheat_failing", wheats=("reference", str(ROOT / "tests/candidates/brzozowski.py")),
                    chaffs=("s01", "s05", "s10", "s13"))
    g = result.grade
    assert [i.test for i in g.invalid] == ["test_mixed.py::test_hand_example_has_eight_states"]
    bad = g.invalid[0]
    assert bad.wheat == "reference" and bad.outcome == "failed"
    assert "8 states" in bad.message and "assert 7 == 8" in bad.message
    assert bad.input == "constrain.regex_to_dfa('(cat|car|dog)s?')"
    assert sorted(g.caught) == ["s10", "s13"]          # 'a+' refuses b'' ; '^a' is refused
    assert g.caught["s10"] == ["test_mixed.py::test_plus_needs_one"]
    assert (g.total, g.score, g.flaky) == (4, 0.5, {})
    assert g.matrix["s01"]["test_mixed.py::test_hand_example_has_eight_states"] == "not run"  # invalid: not run
    text = reports.table(result, "pitfall")
    assert "INVALID test_mixed.py::test_hand_example_has_eight_states: failed on wheat reference" in text
    assert "score: 2/4 chaffs caught (50%)" in text and "survived: s01: pitfall 1:" in text
    assert "survived: s05: pitfall 4: EOS allowed everywhere" in text
    _check_reports(result)


def _check_reports(result) -> None:
    g = result.grade
    data = reports.to_json(result, "full")
    json.dumps(data)
    assert data["score"] == {"caught": 2, "total": 4, "fraction": 0.5, "incomplete": False}
    assert {c["id"]: c["hint"] for c in data["chaffs"]}["s01"] == hint("s01", "full")
    gradescope = reports.to_gradescope(result, "pitfall", max_score=40)
    assert gradescope["score"] == 20.0
    assert sum(t["max_score"] for t in gradescope["tests"]) == pytest.approx(40)
    assert sum(t["score"] for t in gradescope["tests"]) == pytest.approx(20)
    assert {t["name"] for t in gradescope["tests"]} >= {"pitfall 1", "pitfall 4", "pitfall 6", "pitfall 7"}
    stryker = reports.to_stryker(result)
    statuses = {m["id"]: m["status"] for f in stryker["files"].values() for m in f["mutants"]}
    assert statuses == {"s01": "Survived", "s05": "Survived", "s10": "Killed", "s13": "Killed"}
    assert stryker["schemaVersion"] == "2"
    page = reports.to_html(result, "none")
    assert "<script" not in page and "http" not in page.replace("https://git.io", "") and "2/4 chaffs caught" in page
    assert all(t in page for t in g.tests)


@confined
def test_a_suite_cannot_tell_implementations_apart_except_by_behaviour(harness_unchanged, copies_elsewhere):
    # copies_elsewhere: copies of the harness planted outside the checkout, which the suite's walk must not find
    result = graded("snooping", wheats=("reference",), chaffs=("s01", "s05"))
    g = result.grade
    assert len(g.tests) == 8 and g.invalid == [], [(i.test, i.message) for i in g.invalid]
    assert g.caught == {}, "the snooping suite told a chaff apart without its behaviour"
    assert all(o == "passed" for row in g.matrix.values() for o in row.values())


def test_the_snooping_probes_do_see_an_unprotected_implementation(tmp_path):
    """The control: the same suite against the reference imported in its own process
    (no wall) finds the reference by its file, source and error messages."""
    suite = tmp_path / "snooping"
    shutil.copytree(SUITES / "snooping", suite)
    code = ("import sys, types, oracles.automaton as m, pytest; sys.modules['tinyllm'] = types.ModuleType('tinyllm'); "
            "sys.modules['tinyllm.infer'] = types.ModuleType('tinyllm.infer'); "
            "sys.modules['tinyllm.infer'].constrain = m; "
            "sys.modules['tinyllm.infer.constrain'] = m; "
            f"sys.exit(pytest.main([{str(suite)!r}, '-q', '-p', 'no:cacheprovider', '-p', 'no:randomly', '--rootdir', "
            f"{str(suite)!r}, '-c', '/dev/null', '-k', 'module_file or source or error_messages']))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
    assert "3 failed" in proc.stdout, proc.stdout[-2000:]


@confined
def test_the_suite_gets_the_graders_packages_and_no_harness_file(tmp_path):
    """CI's venv lies inside the checkout the sandbox hides: the suite still runs that
    venv's interpreter (its packages: numpy, pytest), while the checkout's files stay
    hidden (the venv's editable-install hook points at them and finds nothing)."""
    from harness.gradetests.implementations import wheat
    from harness.gradetests.suite_run import run_suite

    suite = tmp_path / "interpreter"
    suite.mkdir()
    (suite / "test_interpreter.py").write_text(
        "import importlib.util, os, sys\n\nimport numpy\n\n\n"
        "def test_the_graders_interpreter():\n"
        f"    assert sys.prefix == {sys.prefix!r}, sys.prefix\n"
        f"    assert numpy.__version__ == {__import__('numpy').__version__!r}\n\n\n"
        "def test_no_harness_file():\n"
        f"    assert not os.path.exists({str(ROOT / 'harness')!r})\n"
        f"    assert not os.path.exists({str(ROOT / 'oracles')!r})\n"
        "    assert importlib.util.find_spec('harness') is None\n"
        "    assert importlib.util.find_spec('oracles') is None\n")
    result = run_suite(suite, wheat("reference"), timeout=60)
    assert result.verdict == "completed", (result.verdict, result.detail, result.output)
    assert result.outcomes == {"test_interpreter.py::test_the_graders_interpreter": "passed",
                               "test_interpreter.py::test_no_harness_file": "passed"}, result.messages


@confined
def test_a_suite_that_always_fails_scores_zero(harness_unchanged):
    result = graded("always_fails", wheats=("reference",), chaffs=("s10",))
    g = result.grade
    assert g.valid == [] and len(g.invalid) == 2 and g.score == 0.0
    assert g.chaff_verdicts == {"s10": "skipped"} and g.caught == {}
    assert reports.to_gradescope(result, "none")["score"] == 0.0
    assert "no test is valid" in reports.table(result, "none")


@confined
def test_a_suite_that_hangs_gets_a_verdict_and_the_grading_goes_on(harness_unchanged):
    start = time.monotonic()
    result = graded("hangs", wheats=("reference",), chaffs=("s10",), timeout=5.0, budget=60.0)
    g = result.grade
    assert time.monotonic() - start < 45
    assert g.valid == ["test_hangs.py::test_fine"]
    assert [(i.test, i.outcome) for i in g.invalid] == [("test_hangs.py::test_hangs_forever", "timeout")]
    assert {r.verdict for r in g.wheat_runs["reference"]} == {"timeout"}
    assert g.chaff_verdicts == {"s10": "completed"} and g.caught == {}   # the hanging test is not run on chaffs
    assert g.matrix["s10"] == {"test_hangs.py::test_fine": "passed", "test_hangs.py::test_hangs_forever": "not run"}


# ------------------------------------------------------------------ the gate, in process


def test_the_gate_serves_the_contract_and_nothing_else():
    gate = Gate(public_names(), hide=["mutant_s05", "/tmp/constrain-chaffs-x"])
    assert gate.refusal(["getattr", 1, "regex_to_dfa", [], {}]) is None
    for request, why in [(["getattr", 1, "__file__", [], {}], "private"), (["getattr", 1, "os", [], {}], "contract"),
                         (["repr", 1, None, [], {}], "not served"), (["load", 0, "oracles", [True], {}], "not served"),
                         (["getattr", 7, "trans", [], {}], "no object #7"), (["call", 1, None, [], {}], "contract"),
                         ("junk", "malformed")]:
        assert why in gate.refusal(request), request
    reply = gate.clean(["ok", channel.Handle(2, "DFA", ("step", "_private")), None])
    assert reply[1].methods == ("step",)
    assert gate.refusal(["call", 2, "step", [0, b"a"], {}]) is None
    assert "cannot be passed" in gate.refusal(["call", 2, "step", [channel.Handle(1, "module")], {}])
    assert "cannot be passed" in gate.refusal(["call", 2, "step", [channel.Described("pickle", {})], {}])
    # the seed's tokenizer shapes are data the implementation's side rebuilds (harness.suite.shapes)
    assert gate.refusal(["call", 2, "step", [channel.Described("shape", {"kind": "SeedTokenizer"})], {}]) is None
    assert gate.clean(["ok", [channel.Handle(3, "module")], None])[0] == "err"
    error = gate.clean(["err", {"type": "ValueError", "kinds": ["ValueError"], "message": "in mutant_s05/x.py",
                                "where": "compile.py:12 in parse"}, None])[1]
    assert error == {"type": "ValueError", "kinds": ["ValueError"], "message": "in <implementation>/x.py"}


def test_hints_at_each_level():
    assert hint("s05", "none") == ""
    assert hint("s05", "pitfall").startswith("pitfall 4: EOS allowed everywhere, or a dead sink kept as a state")
    assert hint("s05", "full") == "index: EOS allowed everywhere (e.g. in state 0 of the hand example)"
    assert hint("s19", "pitfall").startswith("apply_mask: what test_apply_mask checks")
    with pytest.raises(ValueError, match="--hints"):
        hint("s05", "everything")


def test_bad_options_are_usage_errors(tmp_path):
    for argv, needle in [([str(tmp_path / "missing")], "not a folder"),
                         ([str(tmp_path), "--module", "a..b"], "--module"),
                         ([str(tmp_path), "--timeout", "100", "--budget", "10"], "--timeout"),
                         ([str(tmp_path), "--chaffs", "s99"], "unknown catalogue mutant"),
                         ([str(tmp_path), "--wheats", "nowhere.py"], "--wheats")]:
        err = io.StringIO()
        assert main(["grade-tests", *argv], io.StringIO(), err) == 2, argv
        assert needle in err.getvalue(), (argv, err.getvalue())


def test_validity_flakiness_and_catches_follow_the_rules():
    from harness.gradetests.scoring import score
    from harness.gradetests.suite_run import RunResult

    def run(impl, role, **outcomes):
        return RunResult(impl, role, "completed", collected=list(outcomes), outcomes=dict(outcomes),
                         messages={t: f"{t} broke" for t, o in outcomes.items() if o == "failed"})

    wheats = {"reference": [run("reference", "wheat", a="passed", b="passed", c="passed", d="skipped"),
                            run("reference", "wheat", a="passed", b="failed", c="passed", d="skipped")],
              "fair": [run("fair", "wheat", a="passed", b="passed", c="failed", d="skipped")] * 2}
    chaffs = {"s01": run("s01", "chaff", a="passed", b="failed", c="failed", d="passed"),
              "s02": run("s02", "chaff", a="timeout", b="passed", c="passed", d="passed"),
              "s03": run("s03", "chaff", a="passed", b="passed", c="passed", d="failed"),
              "s04": RunResult("s04", "chaff", "not run", "the total budget (10 s) was spent")}
    g = score(wheats, chaffs)
    assert g.tests == ["a", "b", "c", "d"] and g.valid == ["a", "d"]
    got = [(i.test, i.wheat, i.message) for i in g.invalid]
    assert got == [("b", "reference", "b broke"), ("c", "fair", "c broke")]
    assert g.flaky == {"b": "reference"}
    assert g.caught == {"s02": ["a"], "s03": ["d"]}      # s01 failed only invalid tests
    assert (g.total, g.score, g.incomplete) == (4, 0.5, True)
    nothing_valid = score({"reference": [run("reference", "wheat", a="failed")] * 2},
                          {"s01": run("s01", "chaff", a="failed")})
    assert nothing_valid.score == 0.0 and nothing_valid.caught == {}


def test_unconfined_the_report_warns_that_nothing_is_hidden(harness_unchanged, monkeypatch):
    """--unconfined (no bubblewrap) hides no file from the suite: the header says so, and
    the snooping suite's filesystem probe indeed finds the chaffs there."""
    monkeypatch.setenv("CONSTRAIN_HARNESS_UNCONFINED", "1")
    result = graded("snooping", wheats=("reference",), chaffs=("s01",))
    assert result.mode == "unconfined" and result.confinement.startswith("UNCONFINED")
    assert "WARNING: no bubblewrap: the suite could read the implementations' files" in reports.table(result, "none")
    assert "test_snoop.py::test_filesystem" in {i.test for i in result.grade.invalid}


def test_a_run_that_cannot_start_within_the_budget_is_not_run():
    from harness.gradetests.grade import _Runner
    from harness.gradetests.implementations import wheat

    seen = []
    runner = _Runner(GradeOptions(suite=SUITES / "weak", budget=30.0, timeout=10.0), "m", [], time.monotonic() + 1.0,
                     1, lambda done, total, run: seen.append((done, total, run.verdict)))
    result = runner.run_one(wheat("reference"), None)
    assert (result.verdict, result.detail) == ("not run", "the total budget (30 s) was spent")
    assert seen == [(1, 1, "not run")]
