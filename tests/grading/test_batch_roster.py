"""A course's grading loop around ``check --batch`` (issue 26 item 4): the Gradescope export's
metadata and a roster, the due date and late policy, the gradebooks (plain and Canvas's
import CSV), identical and near-identical submissions, ``--regrade``.

One end-to-end run (module-scoped) grades a sample Gradescope export built here: a
``submission_metadata.yml`` as Gradescope writes it (Ruby's colon keys, nanosecond
timestamps with zones, a ``!ruby/hash`` tag), two submissions that are the same program
with other comments, docstrings, whitespace and variable names, and a late group
submission with a syntax error. Submissions that only load (no test can pass) keep it
cheap. The arithmetic of the late policy is checked against values worked out by hand.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from harness.cli import main
from harness.exitcodes import ExitCode
from harness.grading.batch import similarity
from harness.grading.batch.course import Course
from harness.grading.batch.late import LatePolicy, parse_due
from harness.grading.batch.options import CourseOptions
from harness.grading.batch.roster import Person, Roster, read_metadata, read_roster
from harness.grading.batch.state import state_path

ROOT = Path(__file__).resolve().parents[2]
DUE = "2026-12-01T23:59:00-08:00"

METADATA = """\
---
submission_1001:
  :submitters:
  - :name: Ada Lovelace
    :sid: '1001'
    :email: ada@uni.example
  :created_at: 2026-11-30 22:10:05.123456789 -08:00
  :score: 0.0
  :status: processed
  :results: !ruby/hash:ActiveSupport::HashWithIndifferentAccess
    score: 0.0
  :history: []
submission_1002:
  :submitters:
  - :name: Brendan Eich
    :sid: '1002'
    :email: brendan@uni.example
  :created_at: 2026-12-01 23:58:59.000000000 -08:00
submission_1003:
  :submitters:
  - :name: Carla Cole
    :sid: '1003'
    :email: carla@uni.example
  - :name: Dan Dorn
    :sid: '1004'
    :email: dan@uni.example
  :created_at: 2026-12-03 09:00:00.000000000 -08:00
submission_1004:
  :submitters:
  - :name: Eve Evans
    :sid: '1005'
    :email: eve@uni.example
  :created_at: 2026-12-02 08:00:00.000000000 -08:00
"""

ROSTER = """\
Name,SID,Email,Section
Ada Lovelace,1001,ada@uni.example,A1
Brendan Eich,1002,brendan@uni.example,A1
Carla Cole,1003,carla@uni.example,B2
Dan Dorn,1004,dan@uni.example,B2
Eve Evans,1005,eve@uni.example,B2
Finn Fox,1006,finn@uni.example,B2
"""

# one program twice: comments, a docstring, blank lines, spacing and a local name differ
FIRST = '''\
import numpy as np


def regex_to_dfa(pattern):
    # a stub: every pattern gets one accepting state
    table = np.zeros((1, 256), dtype=np.int32)
    return table
'''
SECOND = '''\
"""My constrain module."""
import numpy as np
def regex_to_dfa(pattern):
    """Build the DFA."""
    trans=np.zeros( (1,256),dtype=np.int32 )   # TODO: the real thing


    return trans
'''


def batch(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", "--batch", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def export(folder: Path, reference: bool = True) -> Path:
    """A Gradescope export: a folder per submission and submission_metadata.yml; the
    fourth submission is the reference in the spec's layout (16/16), when asked."""
    for sub, text in (("submission_1001", FIRST), ("submission_1002", SECOND),
                      ("submission_1003", "def regex_to_dfa(pattern:\n")):
        (folder / sub).mkdir(parents=True)
        (folder / sub / "constrain.py").write_text(text)
    if reference:
        shutil.copytree(ROOT / "oracles" / "automaton",
                        folder / "submission_1004" / "python" / "tinyllm" / "infer" / "constrain",
                        ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "submission_metadata.yml").write_text(METADATA)
    return folder


@pytest.fixture(scope="module")
def graded_export(tmp_path_factory):
    work = tmp_path_factory.mktemp("roster")
    folder = export(work / "export")
    (work / "roster.csv").write_text(ROSTER)
    files = {name: work / name for name in ("grades.csv", "grades.json", "grades.html", "grades.md",
                                            "gradebook.csv", "canvas.csv")}
    code, out, err = batch(str(folder), "--jobs", "2", "--timeout", "30", "--roster", str(work / "roster.csv"),
                           "--due", DUE, "--late-policy", "penalty:10,cap:30",
                           "--csv", str(files["grades.csv"]), "--json", str(files["grades.json"]),
                           "--html", str(files["grades.html"]), "--md", str(files["grades.md"]),
                           "--gradebook", str(files["gradebook.csv"]), "--canvas-gradebook", str(files["canvas.csv"]),
                           "--assignment", "Lab 8.7", "--canvas-assignment-id", "4242",
                           "--allow-missing-students")   # Finn Fox, on the roster, submitted nothing
    return folder, files, code, out, err


@pytest.mark.e2e
def test_the_export_metadata_names_every_submission_and_is_not_a_submission(graded_export):
    folder, files, code, out, err = graded_export
    assert code == ExitCode.OK, out + err
    doc = json.loads(files["grades.json"].read_text())
    students = {s["student"]: s for s in doc["students"]}
    assert list(students) == ["submission_1001", "submission_1002", "submission_1003", "submission_1004"]
    assert doc["ignored"] == []                                   # the metadata file is the course's, not ignored
    assert (students["submission_1001"]["name"], students["submission_1001"]["sid"]) == ("Ada Lovelace", "1001")
    assert students["submission_1003"]["name"] == "Carla Cole; Dan Dorn"   # a group submission
    assert students["submission_1001"]["submitted"] == "2026-11-30T22:10:05.123456-08:00"
    assert doc["course"]["no_submission"] == ["Finn Fox"] and doc["course"]["unmatched"] == []


@pytest.mark.e2e
def test_the_late_group_submission_is_flagged_in_every_output(graded_export):
    folder, files, code, out, err = graded_export
    doc = json.loads(files["grades.json"].read_text())
    late = {s["student"]: s["late"] for s in doc["students"]}
    # 2026-12-03 09:00 is 1 d 9 h 1 min after 2026-12-01 23:59: two days started, 10% each
    assert late == {"submission_1001": "on time", "submission_1002": "on time",
                    "submission_1003": "late by 1 d 9 h (2 days started, -20%)",
                    "submission_1004": "late by 8 h 1 min (1 day started, -10%)"}
    assert doc["course"]["late"] == ["submission_1003", "submission_1004"]
    reference = {s["student"]: s for s in doc["students"]}["submission_1004"]
    assert (reference["verdict"], reference["passed"]) == ("passed", 16)          # the grade is the grade
    assert (reference["raw_score"], reference["deduction"], reference["score"]) == (16.0, 10.0, 14.4)
    flag = "late by 1 d 9 h"
    assert flag in out                                                            # the terminal table
    rows = {r["student"]: r for r in csv.DictReader(files["grades.csv"].open())}
    assert rows["submission_1003"]["late"].startswith(flag) and rows["submission_1001"]["late"] == "on time"
    assert flag in files["grades.html"].read_text() and flag in files["grades.md"].read_text()
    book = list(csv.DictReader(files["gradebook.csv"].open()))
    assert [r["name"] for r in book if r["late"].startswith(flag)] == ["Carla Cole", "Dan Dorn"]
    assert [r[0] for r in csv.reader(files["canvas.csv"].open())] == ["Student", "Points Possible", "Ada Lovelace",
                                                                      "Brendan Eich", "Carla Cole", "Dan Dorn",
                                                                      "Eve Evans", "Finn Fox"]


@pytest.mark.e2e
def test_the_identical_submissions_are_flagged_and_the_others_are_not(graded_export):
    folder, files, code, out, err = graded_export
    doc = json.loads(files["grades.json"].read_text())
    similar = {s["student"]: s.get("similar", "") for s in doc["students"]}
    assert similar == {"submission_1001": "identical to submission_1002",
                       "submission_1002": "identical to submission_1001", "submission_1003": "",
                       "submission_1004": ""}
    assert "identical to submission_1002" in out and "identical to submission_1002" in files["grades.html"].read_text()


@pytest.mark.e2e
def test_the_canvas_gradebook_has_canvas_columns_points_and_one_row_per_student(graded_export):
    folder, files, *_ = graded_export
    rows = list(csv.reader(files["canvas.csv"].open()))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lab 8.7 (4242)"]
    assert rows[1] == ["Points Possible", "", "", "", "", "16"]
    body = {r[0]: r for r in rows[2:]}
    assert list(body) == ["Ada Lovelace", "Brendan Eich", "Carla Cole", "Dan Dorn", "Eve Evans", "Finn Fox"]
    assert body["Ada Lovelace"][2:5] == ["1001", "", "A1"]                          # SID -> SIS User ID, section
    assert body["Carla Cole"][5] == body["Dan Dorn"][5] == "0"                      # a syntax error scores 0
    assert body["Eve Evans"][5] == "14.4"                                           # 16/16, one day late: -10%
    assert body["Finn Fox"][5] == ""                                                # no submission: left ungraded
    plain = {r["name"]: r for r in csv.DictReader(files["gradebook.csv"].open())}
    assert plain["Finn Fox"]["verdict"] == "no submission" and plain["Ada Lovelace"]["points_possible"] == "16"
    assert (plain["Eve Evans"]["raw_score"], plain["Eve Evans"]["score"]) == ("16", "14.4")


@pytest.mark.e2e
def test_regrade_forces_one_unchanged_student_in_a_resumed_batch(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("ann", "ben", "cal"):
        (folder / f"{name}.py").write_text("def f(:\n")
    assert batch(str(folder))[0] == ExitCode.OK
    before = json.loads(state_path(folder).read_text())["records"]
    code, out, err = batch(str(folder), "--resume", "--regrade", "ben")
    assert code == ExitCode.OK, err
    assert "1 to grade (2 already graded" in out and "(regraded on request: ben)" in out
    assert "] ben: syntax error" in err and "ann:" not in err and "cal:" not in err    # the progress lines
    after = json.loads(state_path(folder).read_text())["records"]
    assert after["ann"] == before["ann"] and after["cal"] == before["cal"]
    code, out, err = batch(str(folder), "--resume", "--regrade", "bne")
    assert code == ExitCode.USAGE and "--regrade 'bne': no such student or submission; did you mean ben?" in err


def test_regrade_finds_a_student_by_roster_name_sid_or_email(tmp_path):
    folder = export(tmp_path / "export", reference=False)
    for name in ("Brendan Eich", "1002", "BRENDAN@uni.example"):
        course = Course.open(_args(regrade=[name]), folder)
        from harness.grading.batch.submissions import discover

        subs = discover(folder, skip=course.skip).submissions
        assert course.regrade_targets(subs) == {"submission_1002"}


def _args(**given):
    return CourseOptions(**given)


# --------------------------------------------------------------------------- the late policy, by hand


@pytest.mark.parametrize("policy, late_by, expected", [
    ("flag", timedelta(minutes=1), (True, 1, 0.0)),
    ("penalty:10", timedelta(hours=23, minutes=59), (True, 1, 10.0)),
    ("penalty:10", timedelta(days=1, seconds=1), (True, 2, 20.0)),
    ("penalty:25,cap:50", timedelta(days=6), (True, 6, 50.0)),
    ("penalty:10,grace:15", timedelta(minutes=14), (False, 0, 0.0)),
    ("penalty:10,grace:15", timedelta(minutes=16), (True, 1, 10.0)),
    ("none", timedelta(days=30), (False, 0, 0.0)),
    ("flag", timedelta(0), (False, 0, 0.0)),
])
def test_the_late_policy_counts_days_started_and_caps_the_deduction(policy, late_by, expected):
    due = parse_due(DUE)
    lateness = LatePolicy.parse(policy).assess(due + late_by, due)
    assert (lateness.late, lateness.days, lateness.deduction) == expected


def test_a_late_penalty_scales_the_score_and_zones_are_compared_as_instants():
    due = parse_due(DUE)
    course = Course(uploads=read_metadata_text(METADATA), due=due, policy=LatePolicy.parse("penalty:10"))
    record = {"student": "submission_1003", "verdict": "failed", "passed": 12, "total": 16, "problem": ""}
    out = course._annotated(record, "")
    assert (out["raw_score"], out["deduction"], out["score"]) == (12.0, 20.0, 9.6)   # 12 points, -20%
    utc = due.astimezone(timezone.utc)                                               # 07:59 the next day, UTC
    assert LatePolicy().assess(utc + timedelta(seconds=1), due).late and not LatePolicy().assess(utc, due).late


def read_metadata_text(text: str) -> dict:
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "submission_metadata.yml"
        path.write_text(text)
        return read_metadata(path)


@pytest.mark.parametrize("text, message", [
    ("2026-12-01T23:59:00", "has no time zone"),
    ("tomorrow", "is not an ISO 8601 date-time"),
])
def test_a_due_date_without_a_zone_or_malformed_is_refused(text, message):
    with pytest.raises(ValueError, match=message):
        parse_due(text)


@pytest.mark.parametrize("text, message", [
    ("penalty", "penalty needs a number"), ("penalty:0", r"percentage in \(0, 100\]"),
    ("flag,cap:10", "cap:C applies only to penalty"), ("late", "kind must be one of none, flag, penalty"),
    ("penalty:5,grace:-1", "grace must be in"), ("penalty:5,bonus:3", "unknown item 'bonus:3'"),
])
def test_a_bad_late_policy_is_a_value_error_naming_the_item(text, message):
    with pytest.raises(ValueError, match=message):
        LatePolicy.parse(text)


def test_batch_usage_errors_for_the_course_options(tmp_path):
    (tmp_path / "ann.py").write_text("def f(:\n")
    code, _, err = batch(str(tmp_path), "--late-policy", "flag")
    assert code == ExitCode.USAGE and "--late-policy needs --due" in err
    code, _, err = batch(str(tmp_path), "--due", "2026-12-01 23:59")
    assert code == ExitCode.USAGE and "has no time zone" in err
    (tmp_path / "submission_metadata.yml").write_text("submission_1: [not, a, mapping]\n")
    code, _, err = batch(str(tmp_path))
    assert code == ExitCode.USAGE and "submission_1: expected a mapping with :submitters:" in err


# --------------------------------------------------------------------------- roster and metadata


def test_the_metadata_reader_keeps_people_and_aware_times_and_ignores_ruby_tags(tmp_path):
    uploads = read_metadata_text(METADATA)
    assert uploads["submission_1003"].people == (Person("Carla Cole", "1003", "carla@uni.example"),
                                                 Person("Dan Dorn", "1004", "dan@uni.example"))
    assert uploads["submission_1001"].submitted == datetime(2026, 12, 1, 6, 10, 5, 123456, tzinfo=timezone.utc)


@pytest.mark.parametrize("text, message", [
    ("submission_1:\n  :x: &x [1, 2]\n  :y: &y [*x, *x, *x, *x]\n  :submitters:\n  - :name: *y\n",
     "submission_1: :name: must be text, not list"),   # an alias structure is never printed
    ("submission_1:\n  :submitters: []\n  :created_at: [2026]\n", ":created_at: must be a time"),
    ("submission_1:\n  :submitters: []\n  :created_at: 2026-12-01\n", "is a date without a time"),
    ("submission_1:\n  :submitters: []\n  :created_at: '2026-12-01 10:00:00'\n", "has no time zone"),
    ("- just\n- a list\n", "expected a mapping of submission folders"),
    ("a: [unclosed\n", "not valid YAML"),
])
def test_metadata_that_is_not_gradescopes_shape_is_refused_naming_the_entry(text, message):
    with pytest.raises(ValueError, match=message):
        read_metadata_text(text)


def test_a_canvas_export_works_as_a_roster_and_matching_ignores_case(tmp_path):
    path = tmp_path / "canvas_export.csv"
    path.write_text("\ufeffStudent,ID,SIS User ID,SIS Login ID,Section,Lab 1 (11)\n"
                    "    Points Possible,,,,,10\n"
                    '"Lovelace, Ada",77,1001,alovelace,A1,9\n')
    roster = read_roster(path)
    assert roster.people == (Person("Lovelace, Ada", "1001", "", "A1", "77", "alovelace"),)
    assert roster.find(" lovelace,  ADA ") == roster.people[0] and roster.find("1001") == roster.people[0]
    path.write_text("Favourite colour\nblue\n")
    with pytest.raises(ValueError, match="no name, SID or email column"):
        read_roster(path)


def test_a_folder_named_after_an_email_local_part_is_matched():
    roster = Roster((Person("Ada Lovelace", "1001", "ada@uni.example"),))
    assert roster.match("ada", None) == roster.people and roster.match("nobody", None) == ()


# --------------------------------------------------------------------------- similarity


def test_near_identical_is_found_and_independent_implementations_are_not():
    # the reference's parser and compiler (31 KB; the whole reference, 146 KB, cost five times the CPU)
    reference = "\n".join((ROOT / "oracles" / "automaton" / name).read_text() for name in ("parser.py", "compile.py"))
    lines = reference.splitlines()
    edited = "\n".join(line + "\n" for line in lines if not line.lstrip().startswith("#"))   # no comment lines
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith("return ") and i > len(lines) // 2)
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
    changed = "\n".join(lines[:at] + [f"{indent}unused_value = 41 + 1"] + lines[at:])   # one statement more
    brzozowski = (ROOT / "harness" / "grading" / "gradetests" / "wheats" / "brzozowski.py").read_text()
    sim = similarity.compare({"ref": reference, "edited": edited, "changed": changed, "other": brzozowski})
    assert sim.groups == [("edited", "ref")]                       # comments and blank lines only: identical
    assert {(a, b) for a, b, _ in sim.pairs} == {("changed", "edited"), ("changed", "ref")}
    assert all(similarity.NEAR <= score < 1 for *_, score in sim.pairs)
    assert "other" not in sim.flags()                              # another algorithm is not flagged


def test_a_syntax_error_is_compared_by_its_bytes_only():
    assert similarity.normalized_tokens("def f(:\n") is None
    sim = similarity.compare({"a": "def f(:\n", "b": "def f(:\n", "c": "def f( :\n"})
    assert sim.groups == [("a", "b")] and sim.pairs == []


def test_past_the_pairwise_bound_identical_groups_are_still_found(monkeypatch):
    monkeypatch.setattr(similarity, "MAX_COMPARED", 3)
    program = "def f(x):\n    total = 0\n    for i in range(x):\n        total += i * i\n    return total\n"
    sources = {f"s{i}": program.replace("total", f"t{i}") for i in range(6)}   # renamed: identical all
    sim = similarity.compare(sources)
    assert sim.compared == 3 and sim.groups == [tuple(sorted(sources))] and sim.pairs == []
