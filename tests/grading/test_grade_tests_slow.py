"""grade-tests, full matrices (``-m slow``): every example suite against every default
wheat and every catalogue chaff s01-s27, through the command line with every report."""

from __future__ import annotations

import io
import json

import pytest

from harness.cli import main
from tests.grading.test_grade_tests import graded
from tests.support.helpers import SUITES, confined, left_over

pytestmark = [pytest.mark.slow, pytest.mark.e2e, confined, pytest.mark.usefixtures("harness_unchanged")]
HARNESS_DIGEST_BYTECODE = False  # grading imports harness modules in this process while it runs (conftest.py)


def test_the_strong_suite_is_valid_and_catches_every_chaff(tmp_path):
    out = io.StringIO()
    files = {k: tmp_path / f"g.{k}" for k in ("json", "gradescope", "stryker", "html")}
    code = main(["grade-tests", str(SUITES / "strong"), "--seed", "3", "--hints", "full",
                 *[x for k, p in files.items() for x in (f"--{k}", str(p))]], out, io.StringIO())
    assert code == 0, out.getvalue()[-3000:]
    data = json.loads(files["json"].read_text())
    assert len(data["tests"]) == 32 and data["invalid"] == [] and data["flaky"] == {}
    assert data["score"] == {"caught": 27, "total": 27, "fraction": 1.0, "incomplete": False}
    assert json.loads(files["gradescope"].read_text())["score"] == 100.0
    statuses = {m["status"] for f in json.loads(files["stryker"].read_text())["files"].values() for m in f["mutants"]}
    assert statuses == {"Killed"}
    assert "27/27 chaffs caught" in files["html"].read_text() and "27/27 chaffs caught (100%)" in out.getvalue()


def test_the_weak_suite_is_valid_and_catches_only_what_it_reaches():
    g = graded("weak").grade
    assert len(g.valid) == 3 and g.invalid == []
    assert sorted(g.caught) == ["s10"]   # only 'a+' refusing b'' reaches a mutant
    assert g.total == 27


def test_the_snooping_suite_catches_no_chaff():
    g = graded("snooping").grade
    assert g.invalid == [] and g.caught == {} and g.total == 27


@pytest.mark.parametrize("level, needle", [("none", "  survived: s05\n"),
                                           ("pitfall", "survived: s05: pitfall 4: EOS allowed everywhere"),
                                           ("full", "survived: s05: index: EOS allowed everywhere (e.g. in state 0")])
def test_each_hint_level_as_the_student_sees_it(level, needle):
    out = io.StringIO()
    assert main(["grade-tests", str(SUITES / "weak"), "--hints", level, "--chaffs", "s05,s10", "--seed", "1",
                 "--wheats", "reference"], out, io.StringIO()) == 1
    assert needle in out.getvalue(), out.getvalue()


def test_a_suite_that_crashes_and_floods_gets_a_verdict():
    result = graded("crashes", chaffs=("s01", "s10"))
    g = result.grade
    assert g.valid == ["test_crashes.py::test_floods_stdout", "test_crashes.py::test_never_reached"]
    # a crash costs only its own test: a new process runs the tests after it (test_never_reached passes)
    assert [(i.test, i.outcome) for i in g.invalid] == [("test_crashes.py::test_kills_its_process", "crashed")]
    run = g.wheat_runs["reference"][0]
    assert run.verdict == "crashed" and run.processes == 2 and len(run.output) < 9000 and "more bytes" in run.output
    assert set(g.chaff_verdicts.values()) == {"crashed"}  # every test runs on chaffs too (the same selection)


def test_a_test_file_failing_to_import_on_a_chaff_catches_it(tmp_path):
    (tmp_path / "test_c.py").write_text(
        "from tinyllm.infer import constrain\n"
        "assert not constrain.regex_to_dfa('a+').matches(b''), 'module-level check'\n"
        "def test_one():\n    assert constrain.DEAD == -1\n")
    g = graded_folder(tmp_path, wheats=("reference",), chaffs=("s01", "s10"))
    assert g.valid == ["test_c.py::test_one"] and sorted(g.caught) == ["s10"]
    assert g.matrix["s10"]["test_c.py::test_one"] == "error" and g.chaff_verdicts["s10"] == "collection error"


def graded_folder(folder, **options):
    from harness.grading.gradetests.grade import GradeOptions, grade

    result = grade(GradeOptions(suite=folder, seed=1, **options))
    assert left_over(result.marker) == [] and result.tampered == []
    return result.grade
