"""grade-tests' wheat validity per reading (issue 24, item 1): where the spec's text allows two
readings (``harness.grading.gradetests.readings.SPEC_READINGS``), a student's test written to one of them
is valid if it passes every wheat of that reading, and is reported with the reading it assumes;
a test no reading allows stays invalid."""

from __future__ import annotations

import json

import pytest

from harness.grading.gradetests import readings
from harness.grading.gradetests.implementations import WHEATS, default_wheats
from harness.grading.gradetests.scoring import score
from harness.grading.gradetests.suite_run import RunResult
from harness.suite import tiers
from tests.grading.test_grade_tests import graded
from tests.suite.test_fairness import BY_NAME
from tests.support.helpers import confined

RAW = {"enum_const_raw_utf8": "raw_utf8", "python_only_syntax_refused": "refused"}
LITERAL = {"enum_const_raw_utf8": "ascii_escapes", "python_only_syntax_refused": "python_meaning"}
PYTHON = {"enum_const_raw_utf8": "raw_utf8", "python_only_syntax_refused": "python_meaning"}
GROUPS = {"reference": RAW, "brzozowski": RAW, "fair_literal_sre": LITERAL, "fair_sre_tablefill": PYTHON}

HARNESS_DIGEST_BYTECODE = False  # as in test_grade_tests.py (conftest.py)


def test_the_readings_are_decisions_and_each_wheat_declares_exactly_its_departures():
    assert set(readings.SPEC_READINGS) <= set(tiers.DECISIONS)
    declared = {w.id: readings.declared_readings(w.spec) for w in default_wheats()}
    assert declared["reference"] == readings.defaults()
    for name, reading in BY_NAME.items():  # the gallery's departures (tests/suite/test_fairness.py)
        departs = {d for d, r in declared[name].items() if r != readings.SPEC_READINGS[d][0]}
        assert departs == reading.departs & set(readings.SPEC_READINGS), name


def test_a_declaration_outside_the_readings_is_refused(tmp_path):
    bad = tmp_path / "wheat.py"
    bad.write_text('SPEC_READINGS = {"enum_const_raw_utf8": "latin1"}\n')
    with pytest.raises(ValueError, match="not a reading of"):
        readings.declared_readings(str(bad))
    bad.write_text("SPEC_READINGS = dict(a=1)\n")
    with pytest.raises(ValueError, match="literal dict"):
        readings.declared_readings(str(bad))


@pytest.mark.parametrize("failed_on, assumed", [
    (set(), []),
    ({"reference", "brzozowski", "fair_sre_tablefill"}, ["enum_const_raw_utf8=ascii_escapes"]),
    ({"fair_literal_sre"}, ["enum_const_raw_utf8=raw_utf8"]),   # the largest group of the two that excuse it
    ({"reference", "brzozowski"}, ["python_only_syntax_refused=python_meaning"]),
    ({"reference", "brzozowski", "fair_literal_sre"},         # both readings of each, taken by one wheat
     ["enum_const_raw_utf8=raw_utf8, python_only_syntax_refused=python_meaning"]),
    ({"reference", "fair_literal_sre"}, None),                 # brzozowski reads as the reference and passes
    ({"brzozowski"}, None),                                    # the reference reads as brzozowski and passes
    ({"fair_sre_tablefill", "fair_literal_sre", "reference", "brzozowski"}, None),
])
def test_the_rule(failed_on, assumed):
    got = readings.assumption(failed_on, GROUPS)
    assert (got if got is None else got[:1]) == assumed


def _run(wheat: str, outcomes: dict[str, str]) -> RunResult:
    return RunResult(wheat, "wheat", "ran", collected=list(outcomes), outcomes=outcomes)


def test_score_keeps_a_test_of_one_reading_and_says_which():
    tests = ["t.py::literal", "t.py::raw", "t.py::neither"]
    outcome = {"reference": ("failed", "passed", "failed"), "brzozowski": ("failed", "passed", "failed"),
               "fair_literal_sre": ("passed", "failed", "failed"), "fair_sre_tablefill": ("failed", "passed", "failed")}
    runs = {w: [_run(w, dict(zip(tests, o)))] * 2 for w, o in outcome.items()}
    grade = score(runs, {}, GROUPS)
    assert grade.valid == tests[:2] and [i.test for i in grade.invalid] == ["t.py::neither"]
    assert grade.assumes == {"t.py::literal": ["enum_const_raw_utf8=ascii_escapes"],
                             "t.py::raw": ["enum_const_raw_utf8=raw_utf8"]}
    assert not score(runs, {}).assumes and len(score(runs, {}).invalid) == 3  # without readings: as before


def test_a_test_counts_only_against_chaffs_of_the_reading_it_assumes():
    """Issue 48: a test valid under a reading the reference does not take fails on every
    catalogue chaff (each is the reference's code) by the reading alone: it catches none."""
    tests = ["t.py::literal", "t.py::raw"]
    outcome = {"reference": ("failed", "passed"), "brzozowski": ("failed", "passed"),
               "fair_literal_sre": ("passed", "failed"), "fair_sre_tablefill": ("failed", "passed")}
    runs = {w: [_run(w, dict(zip(tests, o)))] * 2 for w, o in outcome.items()}
    chaffs = {c: RunResult(c, "chaff", "completed", collected=tests, outcomes=dict(zip(tests, o)))
              for c, o in {"s01": ("failed", "passed"), "s10": ("failed", "failed")}.items()}
    grade = score(runs, chaffs, GROUPS)
    assert grade.valid == tests and grade.caught == {"s10": ["t.py::raw"]}
    assert grade.notes == ["t.py::literal assumes a reading no chaff takes (enum_const_raw_utf8=ascii_escapes): "
                           "it is graded against none"]
    literal_chaffs = score(runs, chaffs, GROUPS, {"s01": LITERAL, "s10": LITERAL})  # chaffs of that reading
    assert literal_chaffs.caught == {"s01": ["t.py::literal"], "s10": ["t.py::literal"]}
    assert [n.split(" assumes")[0] for n in literal_chaffs.notes] == ["t.py::raw"]


@pytest.mark.e2e
@confined
def test_a_suite_testing_only_a_reading_no_chaff_takes_catches_nothing(harness_unchanged):
    """It caught every chaff before (27/27 with every chaff). One chaff: every chaff is the reference's
    code but for its own mistake, so each fails the test by the reading alike (s01 and s10 until
    2026-12-08, both failed, both not caught)."""
    wheats = ("reference", str(WHEATS / "brzozowski.py"), str(WHEATS / "fair_sre_tablefill.py"))
    g = graded("tells_by_reading", wheats=wheats, chaffs=("s10",)).grade
    test = "test_reading.py::test_a_named_group_has_pythons_meaning"
    assert g.valid == [test] and g.assumes[test] == ["python_only_syntax_refused=python_meaning"]
    assert g.matrix == {"s10": {test: "failed"}}  # by the reading
    assert g.caught == {} and g.score == 0.0 and "it is graded against none" in g.notes[0]


@pytest.mark.e2e
@confined
def test_a_suite_of_each_reading_and_one_of_neither(harness_unchanged, tmp_path):  # noqa: F811
    """The literal formula and raw UTF-8 are both valid, each labelled with its reading; Latin-1
    is invalid; every report says so."""
    from harness.grading.gradetests.report import table, to_gradescope, to_json

    wheats = ("reference", *(str(WHEATS / f"{w}.py") for w in ("fair_literal_sre", "fair_sre_tablefill",
                                                                 "fair_thompson_moore")))
    result = graded("readings", wheats=wheats, chaffs=("s22",))
    g = result.grade
    literal, raw, latin1 = (f"test_readings.py::test_enum_value_is_written_{w}" for w in
                            ("as_the_literal_json_dumps_call", "as_raw_utf8", "in_latin1"))
    assert g.valid == [literal, raw], (g.valid, [vars(i) for i in g.invalid])
    assert [i.test for i in g.invalid] == [latin1]
    assert g.assumes[literal] == ["enum_const_raw_utf8=ascii_escapes"]
    assert g.assumes[raw] == ["enum_const_raw_utf8=raw_utf8"]  # fair_sre_tablefill tells the two decisions apart
    assert json.loads(json.dumps(to_json(result, "full")))["assumes"] == g.assumes
    assert f"READING {literal}: valid under the spec's reading enum_const_raw_utf8=ascii_escapes" in \
        table(result, "full")
    validity = next(t for t in to_gradescope(result, "full")["tests"] if t["name"].startswith("validity"))
    assert "valid under the spec's reading enum_const_raw_utf8=raw_utf8" in validity["output"]
