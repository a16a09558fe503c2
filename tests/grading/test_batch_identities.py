"""Identities checked, never guessed (issue 50 item 6).

The attacks of the issue: a student sets their Gradescope display name to a classmate's
(with a roster keyed by name, the Canvas export held two rows for the classmate's id, 16
then 0, with no warning); a Canvas roster's "Last, First" against Gradescope's "First
Last" (every student "no submission", nothing reported unmatched). Then what the TA reads:
feedback files named after the student, stating the score after every deduction.

The class here is records (``harness.grading.batch.records``' shape) and a Gradescope
export's metadata, so the identities are tested without grading anything; one CLI run
grades three cheap submissions (syntax errors) to check what the terminal says.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.exitcodes import ExitCode
from harness.grading.batch import feedback
from harness.grading.batch.course import Course
from harness.grading.batch.gradebook import canvas_csv, plain_csv
from harness.grading.batch.late import LatePolicy, parse_due
from harness.grading.batch.options import CourseOptions
from harness.grading.batch.roster import Person, Roster, Upload, name_keys, read_metadata, read_roster

DUE = "2026-12-01T23:59:00-08:00"


def record(student: str, passed: int) -> dict:
    return {"student": student, "verdict": "passed" if passed == 16 else "failed", "passed": passed, "total": 16,
            "problem": "", "module": "", "failed_tests": [], "statuses": {}, "tests": [], "notes": [],
            "decisions": [], "decision_count": 0, "load": {}, "seconds": 1.0}


def submissions(records: list[dict]) -> list:
    return [type("Submission", (), {"student": r["student"], "path": None})() for r in records]


def annotated(course: Course, records: list[dict]) -> list[dict]:
    return course.annotate(records, submissions(records))


def canvas_rows(course: Course, records: list[dict]) -> list[list[str]]:
    text = canvas_csv(course.gradebook_rows(annotated(course, records)), "Lab", "", course.points)
    return list(csv.reader(io.StringIO(text, newline="")))[2:]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


ATTACK_METADATA = """\
submission_1:
  :submitters:
  - :name: Ada Lovelace
    :email: ada@uni.example
submission_2:
  :submitters:
  - :name: Ada Lovelace
    :email: mallory@uni.example
"""
ATTACK = [record("submission_1", 16), record("submission_2", 0)]


def test_a_display_name_set_to_a_classmates_never_gets_a_second_row_for_the_classmate(tmp_path):
    uploads = read_metadata(write(tmp_path, "submission_metadata.yml", ATTACK_METADATA))
    roster = read_roster(write(tmp_path, "roster.csv", "Student,ID\n\"Lovelace, Ada\",77\n\"Hopper, Mallory\",78\n"))
    course = Course(uploads=uploads, roster=roster)
    rows = canvas_rows(course, ATTACK)
    ada = [r for r in rows if r[1] == "77"]
    assert len(ada) == 1 and ada[0][5] == "", rows          # one row for Ada's id, and no score guessed
    found = course.identities(annotated(course, ATTACK))
    assert found["shared"] == {"Lovelace, Ada": ["submission_1", "submission_2"]}
    assert len(found["weak"]) == 2 and all("name only" in w for w in found["weak"])
    assert found["no_submission"] == ["Hopper, Mallory"]
    lines = course.identity_lines(annotated(course, ATTACK))
    assert any("two or more submissions match Lovelace, Ada: submission_1, submission_2" in line for line in lines)
    plain = {r["submission"]: r for r in csv.DictReader(io.StringIO(
        plain_csv(course.gradebook_rows(annotated(course, ATTACK)), 16), newline=""))}
    assert plain["submission_1; submission_2"]["verdict"].startswith("not written: 2 submissions match")


def test_the_override_writes_a_row_per_submission_and_says_so(tmp_path):
    uploads = read_metadata(write(tmp_path, "submission_metadata.yml", ATTACK_METADATA))
    roster = Roster((Person("Lovelace, Ada", canvas_id="77"),))
    course = Course(uploads=uploads, roster=roster, allow_duplicates=True)
    assert [r[5] for r in canvas_rows(course, ATTACK) if r[1] == "77"] == ["16", "0"]
    assert "written once per submission" in " ".join(course.identity_lines(annotated(course, ATTACK)))


def test_an_email_keyed_roster_finds_the_impostor_by_their_own_email(tmp_path):
    uploads = read_metadata(write(tmp_path, "submission_metadata.yml", ATTACK_METADATA))
    roster = Roster((Person("Ada Lovelace", email="ada@uni.example", canvas_id="77"),
                     Person("Mallory Hopper", email="MALLORY@uni.example", canvas_id="78")))
    course = Course(uploads=uploads, roster=roster)
    rows = {r[1]: r[5] for r in canvas_rows(course, ATTACK)}
    assert rows == {"77": "16", "78": "0"}
    found = course.identities(annotated(course, ATTACK))
    assert found == {"weak": [], "shared": {}, "unmatched": [], "no_submission": []}
    assert annotated(course, ATTACK)[1]["matched"] == "email"


def test_gradescopes_user_id_wins_over_a_changed_display_name(tmp_path):
    metadata = ATTACK_METADATA.replace("    :email: mallory@uni.example", "    :email: mallory@uni.example\n"
                                       "    :id: 555")
    uploads = read_metadata(write(tmp_path, "submission_metadata.yml", metadata))
    assert uploads["submission_2"].people[0].user_id == "555"
    roster = read_roster(write(tmp_path, "roster.csv", "Name,User ID,Email\nAda Lovelace,444,\n"
                                                       "Mallory Hopper,555,\n"))
    course = Course(uploads=uploads, roster=roster)
    records = annotated(course, ATTACK)
    assert records[1]["matched"] == "Gradescope user id" and records[0]["matched"] == "name only (weak)"
    assert course.identities(records)["shared"] == {}


def test_canvas_last_first_is_gradescopes_first_last():
    assert name_keys("Lovelace, Ada") == ("lovelace, ada", "ada lovelace")
    assert name_keys("  ada   LOVELACE ") == ("ada lovelace",)
    roster = Roster((Person("Lovelace, Ada", canvas_id="77"), Person("Hopper, Grace", canvas_id="78")))
    uploads = {"submission_1": Upload((Person("Ada Lovelace", email="ada@x"),)),
               "submission_2": Upload((Person("grace hopper", email="grace@x"),))}
    course = Course(uploads=uploads, roster=roster)
    records = [record("submission_1", 16), record("submission_2", 8)]
    rows = {r[1]: r[5] for r in canvas_rows(course, records)}
    assert rows == {"77": "16", "78": "8"}                     # nobody is "no submission"
    found = course.identities(annotated(course, records))
    assert found["no_submission"] == [] and found["unmatched"] == [] and len(found["weak"]) == 2


def test_a_name_two_roster_students_share_matches_neither_and_is_reported():
    roster = Roster((Person("Sam Lee", canvas_id="1"), Person("Sam Lee", canvas_id="2")))
    course = Course(uploads={"submission_1": Upload((Person("Sam Lee", email="sam@x"),))}, roster=roster)
    records = [record("submission_1", 16)]
    found = course.identities(annotated(course, records))
    assert found["unmatched"] == ["submission_1: Sam Lee (a name 2 roster students share: not matched)"]
    assert found["no_submission"] == ["Sam Lee", "Sam Lee"]
    assert [r[5] for r in canvas_rows(course, records) if r[1] in ("1", "2")] == ["", ""]   # nobody guessed


def test_a_sid_shared_by_two_roster_rows_decides_nothing():
    roster = Roster((Person("A One", sid="9", email="a@x"), Person("B Two", sid="9", email="b@x")))
    assert roster.locate(Person(sid="9")).index is None
    assert roster.locate(Person(sid="9", email="b@x")).index == 1


def test_feedback_files_are_named_after_the_student_and_state_the_score_after_the_deduction(tmp_path):
    roster = Roster((Person("Ada Lovelace", sid="1001", email="ada@uni.example"),))
    late = parse_due("2026-12-02T08:00:00-08:00")
    course = Course(uploads={"submission_12345678": Upload((Person("Ada Lovelace", "1001", "ada@uni.example"),),
                                                           late)},
                    roster=roster, due=parse_due(DUE), policy=LatePolicy.parse("penalty:10"))
    records = annotated(course, [record("submission_12345678", 16)])
    [path] = feedback.write_all(records, tmp_path / "fb", "full")
    assert path.name == "Ada_Lovelace_1001.md"
    text = path.read_text()
    assert text.startswith("# Feedback: Ada Lovelace\n")
    # 16/16 for the tests, 8 h 1 min late: one day started, -10%: 14.4 of 16
    assert "**Score: 14.4 / 16** (16 for the tests, then late by 8 h 1 min (1 day started, -10%))" in text


def test_a_feedback_file_without_a_deduction_says_none_was_applied(tmp_path):
    course = Course()
    records = annotated(course, [record("bob", 12)])
    [path] = feedback.write_all(records, tmp_path, "none")
    assert path.name == "bob.md"
    assert "**Score: 12 / 16** (after every deduction: none applied)" in path.read_text()


def gradebook_args(tmp_path: Path) -> CourseOptions:
    return CourseOptions(gradebook=tmp_path / "grades.csv", canvas_gradebook=tmp_path / "canvas.csv",
                         assignment="Lab")


def write_books(course: Course, records: list[dict], tmp_path: Path) -> tuple[bool, str]:
    err, announce = io.StringIO(), io.StringIO()
    ok = course.write_gradebooks(annotated(course, records), gradebook_args(tmp_path), err, announce)
    return ok, err.getvalue()


def test_a_roster_student_with_no_submission_refuses_the_gradebooks_unless_the_ta_allows_it(tmp_path):
    roster = Roster((Person("Ada Lovelace", email="ada@x", canvas_id="77"),
                     Person("Ned Nash", email="ned@x", canvas_id="79")))
    uploads = {"submission_1": Upload((Person("Ada Lovelace", email="ada@x"),))}
    records = [record("submission_1", 16)]
    ok, err = write_books(Course(uploads=uploads, roster=roster), records, tmp_path)
    assert not ok
    assert "gradebook not written" in err and "no submission from Ned Nash" in err and "--allow-missing-students" in err
    assert not (tmp_path / "grades.csv").exists() and not (tmp_path / "canvas.csv").exists()
    ok, err = write_books(Course(uploads=uploads, roster=roster, allow_missing=True), records, tmp_path)
    assert ok and err == ""
    rows = {r[1]: r[5] for r in list(csv.reader((tmp_path / "canvas.csv").open()))[2:]}
    assert rows == {"77": "16", "79": ""}                          # Ned listed, no score guessed
    plain = {r["name"]: r["verdict"] for r in csv.DictReader((tmp_path / "grades.csv").open())}
    assert plain["Ned Nash"] == "no submission"


def test_two_submissions_for_one_student_refuse_the_gradebooks_unless_the_ta_allows_it(tmp_path):
    uploads = read_metadata(write(tmp_path, "submission_metadata.yml", ATTACK_METADATA))
    roster = Roster((Person("Lovelace, Ada", canvas_id="77"),))
    ok, err = write_books(Course(uploads=uploads, roster=roster), ATTACK, tmp_path)
    assert not ok
    assert "two or more submissions match Lovelace, Ada (submission_1, submission_2)" in err
    assert "--allow-duplicate-students" in err and "--allow-missing-students" not in err
    assert not (tmp_path / "canvas.csv").exists()
    # the missing override does not stand for the duplicate one
    assert not write_books(Course(uploads=uploads, roster=roster, allow_missing=True), ATTACK, tmp_path)[0]
    ok, err = write_books(Course(uploads=uploads, roster=roster, allow_duplicates=True), ATTACK, tmp_path)
    assert ok and err == ""
    assert [r[5] for r in list(csv.reader((tmp_path / "canvas.csv").open()))[2:] if r[1] == "77"] == ["16", "0"]


def test_a_gradebook_not_asked_for_is_never_refused(tmp_path):
    roster = Roster((Person("Ned Nash", email="ned@x"),))
    err = io.StringIO()
    assert Course(roster=roster).write_gradebooks([], CourseOptions(), err, io.StringIO()) and err.getvalue() == ""


@pytest.mark.e2e
def test_the_batch_says_which_identities_are_weak_or_shared_and_exits_2_on_a_refused_gradebook(tmp_path):
    folder = tmp_path / "export"
    for sub in ("submission_1", "submission_2", "submission_3"):
        (folder / sub).mkdir(parents=True)
        (folder / sub / "constrain.py").write_text("def regex_to_dfa(pattern:\n")
    (folder / "submission_metadata.yml").write_text(ATTACK_METADATA + "submission_3:\n  :submitters:\n"
                                                    "  - :name: Lin Wu\n    :email: lin@uni.example\n")
    roster = write(tmp_path, "roster.csv", "Name\nAda Lovelace\nLin Wu\nNed Nash\n")
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", "--batch", str(folder), "--roster", str(roster), "--jobs", "2",
                 "--canvas-gradebook", str(tmp_path / "canvas.csv"), "--json", str(tmp_path / "grades.json"),
                 "--feedback", str(tmp_path / "feedback")], out, err)
    # the gradebook refused: never exit 0 (exit 2, as any output asked for and not written), the rest written
    assert code == ExitCode.USAGE, out.getvalue() + err.getvalue()
    graded = json.loads((tmp_path / "grades.json").read_text())
    assert sorted(s["student"] for s in graded["students"]) == ["submission_1", "submission_2", "submission_3"]
    assert graded["course"]["no_submission"] == ["Ned Nash"]
    assert len(list((tmp_path / "feedback").iterdir())) == 3
    said = out.getvalue()
    assert "identities: two or more submissions match Ada Lovelace: submission_1, submission_2" in said
    assert "identities: matched by display name only (weak" in said
    assert "identities: on the roster, no submission: Ned Nash; no gradebook written" in said
    assert "gradebook not written" in err.getvalue() and not (tmp_path / "canvas.csv").exists()
    out, err = io.StringIO(), io.StringIO()        # resumed (nothing graded again), both overrides given
    code = main(["check", "--batch", str(folder), "--roster", str(roster), "--jobs", "2", "--resume",
                 "--allow-duplicate-students", "--allow-missing-students",
                 "--canvas-gradebook", str(tmp_path / "canvas.csv")], out, err)
    assert code == ExitCode.OK, err.getvalue()
    assert "no score written for them (--allow-missing-students)" in out.getvalue()
    rows = list(csv.reader((tmp_path / "canvas.csv").open()))[2:]
    assert [r[0] for r in rows] == ["Ada Lovelace", "Ada Lovelace", "Lin Wu", "Ned Nash"] and rows[-1][5] == ""
