"""``check --batch DIR`` (issue 18): a class's folder graded N at a time, reports,
resuming after an interruption.

One end-to-end run (module-scoped) grades a small class with --jobs 2: the reference as a
folder in the spec's layout, a wrong candidate and a crash on import as files, a syntax
error, an empty folder and a stray file. The verdicts are what the spec and the
candidates' documentation say (tests/candidates/README.md); the CSV, JSON, HTML and the
histogram must agree with the per-test statuses. The resume tests use submissions that
need no check run (syntax errors), so they cost nothing.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from harness.cli import main
from harness.exitcodes import ExitCode
from harness.grading.autograder.grading import Grade, TestOutcome
from harness.grading.batch import report as reports
from harness.grading.batch import runner
from harness.grading.batch.records import record
from harness.grading.batch.state import state_path
from harness.grading.batch.submissions import Submission, discover, fingerprint
from harness.suite.catalogue import NAMES

ROOT = Path(__file__).resolve().parents[2]
CANDIDATES = ROOT / "tests" / "candidates"


def batch(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", "--batch", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    work = tmp_path_factory.mktemp("batch")
    folder = work / "class"
    shutil.copytree(ROOT / "oracles" / "automaton", folder / "alice" / "python" / "tinyllm" / "infer" / "constrain",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(CANDIDATES / "wrong_numbering.py", folder / "bob.py")
    (folder / "carol.py").write_text("def regex_to_dfa(pattern:\n")
    (folder / "dave").mkdir()
    shutil.copy2(CANDIDATES / "exits_on_import.py", folder / "erin.py")
    (folder / "grades.xlsx").write_text("not a submission")
    files = {ext: work / f"grades.{ext}" for ext in ("csv", "json", "html", "md")}
    files["feedback"] = work / "feedback"
    code, out, err = batch(str(folder), "--jobs", "2", "--timeout", "30", "--csv", str(files["csv"]),
                           "--json", str(files["json"]), "--html", str(files["html"]), "--md", str(files["md"]),
                           "--feedback", str(files["feedback"]))
    return folder, files, code, out, err


@pytest.mark.e2e
def test_every_student_gets_the_verdict_the_spec_and_the_candidates_documentation_give(graded_class):
    folder, files, code, out, err = graded_class
    assert code == ExitCode.OK, out + err
    doc = json.loads(files["json"].read_text())
    students = {s["student"]: s for s in doc["students"]}
    assert list(students) == ["alice", "bob", "carol", "dave", "erin"]
    assert (students["alice"]["verdict"], students["alice"]["passed"]) == ("passed", 16)
    assert students["bob"]["verdict"] == "failed" and "test_hand_example" in students["bob"]["failed_tests"]
    assert students["carol"]["verdict"] == "syntax error"
    assert "SyntaxError in carol.py line 1" in students["carol"]["notes"][0]
    assert students["dave"]["verdict"] == "no submission"
    assert students["erin"]["verdict"] == "crashed" and students["erin"]["passed"] == 0
    assert doc["ignored"] == ["grades.xlsx (neither a folder nor a .py file)"]
    assert "ignored (not a submission): grades.xlsx (neither a folder nor a .py file)" in out
    assert all(f"] {name}: " in err for name in students)                     # the progress lines
    assert "5 students: " in out and "1 passed" in out and "1 syntax error" in out


@pytest.mark.e2e
def test_the_histogram_counts_failed_tests_among_the_submissions_that_ran(graded_class):
    folder, files, *_ = graded_class
    doc = json.loads(files["json"].read_text())
    no_verdict = ("not run", "not reported")
    ran = [s for s in doc["students"] if not s["problem"] and set(s["statuses"].values()) - set(no_verdict)]
    assert {s["student"] for s in ran} == {"alice", "bob"} and doc["not_run"] == 3   # erin's import ran nothing
    expected = {name: sum(s["statuses"][name] not in ("passed", *no_verdict) for s in ran) for name in NAMES}
    assert {row["test"]: row["failed"] for row in doc["histogram"]} == expected
    assert expected["test_hand_example"] == 1                                 # bob's numbering (erin's tests never ran)
    assert {row["test"]: row["ran"] for row in doc["histogram"]} == dict.fromkeys(NAMES, 2)
    counts = [row["failed"] for row in doc["histogram"]]
    assert counts == sorted(counts, reverse=True)


@pytest.mark.e2e
def test_csv_and_html_carry_the_same_rows(graded_class):
    folder, files, *_ = graded_class
    rows = list(csv.DictReader(files["csv"].open()))
    assert [r["student"] for r in rows] == ["alice", "bob", "carol", "dave", "erin"]
    assert tuple(rows[0]) == reports.CSV_FIELDS and rows[0]["passed"] == "16" and rows[0]["total"] == "16"
    page = files["html"].read_text()
    failed_chart = page[page.index('aria-label="failed tests across the class"'):]
    assert page.count("<tr><td>") == 5 and page.count("<svg") == 3
    assert failed_chart[:failed_chart.index("</svg>")].count("<rect") == 16


@pytest.mark.e2e
def test_every_student_reads_why_and_the_diagnosis_in_every_format(graded_class):
    folder, files, code, out, err = graded_class
    doc = json.loads(files["json"].read_text())
    views = {s["student"]: s["feedback"] for s in doc["students"]}
    assert views["bob"]["diagnosis"][0]["pitfall"] == 3                        # wrong_numbering: spec pitfall 3
    assert set(views["bob"]["diagnosis"][0]["explains"]) == set(doc["students"][1]["failed_tests"])
    assert views["carol"]["load"].startswith("syntax error at carol.py:1: ")
    assert "the process ended while your module was being imported" in views["erin"]["load"]
    bob = (files["feedback"] / "bob.md").read_text()
    assert "Most likely: **pitfall 3: numbering in another order** (strong evidence" in bob
    assert "numbered in another order" in bob and "rlimit" not in bob and "bubblewrap" not in bob
    assert sorted(p.name for p in files["feedback"].iterdir()) == [f"{n}.md" for n in ("alice", "bob", "carol",
                                                                                        "dave", "erin")]
    rows = {r["student"]: r for r in csv.DictReader(files["csv"].open())}
    assert "pitfall 3: numbering in another order" in rows["bob"]["diagnosis"]
    assert "edge 0 --b'c'--> differs from section 3" in rows["bob"]["feedback"]
    md = files["md"].read_text()
    assert "| 2 | bob | FAIL | 11/16 | pitfall 3: numbering in another order (strong)" in md
    assert "root causes across the class" in out and "wrote 5 feedback files" in out


@pytest.mark.e2e
def test_resume_grades_nothing_twice_and_regrades_a_changed_upload(graded_class):
    folder, files, *_ = graded_class
    code, out, _ = batch(str(folder), "--resume", "--timeout", "30", "--jobs", "2")
    assert code == ExitCode.OK and "5 submissions, 0 to grade (5 already graded" in out
    (folder / "carol.py").write_text("def regex_to_dfa(pattern):\n    raise ValueError('todo'\n")
    code, out, err = batch(str(folder), "--resume", "--timeout", "30", "--jobs", "2")
    assert "1 to grade (4 already graded" in out and "carol: syntax error" in err
    code, out, err = batch(str(folder), "--resume", "--timeout", "20")
    assert code == ExitCode.USAGE and "written with other options (timeout)" in err


@pytest.mark.e2e
def test_an_interrupted_batch_keeps_what_finished_and_resume_grades_the_rest(tmp_path, monkeypatch):
    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("ann", "ben", "cal", "dee"):
        (folder / f"{name}.py").write_text("def f(:\n")
    seen = []

    def interrupt_after_two(self, record):
        seen.append(record["student"])
        if len(seen) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(runner.Progress, "update", interrupt_after_two)
    code, out, err = batch(str(folder), "--jobs", "1")
    assert code == ExitCode.FAILED and "rerun with --resume" in err
    state = json.loads(state_path(folder).read_text())
    assert sorted(state["records"]) == sorted(seen)                           # saved before the interruption
    monkeypatch.undo()
    code, out, err = batch(str(folder), "--resume", "--jobs", "1")
    assert code == ExitCode.OK and "2 to grade (2 already graded" in out
    assert sorted(json.loads(state_path(folder).read_text())["records"]) == ["ann", "ben", "cal", "dee"]


@pytest.mark.e2e
def test_without_resume_a_batch_starts_afresh(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "ann.py").write_text("def f(:\n")
    assert batch(str(folder))[0] == ExitCode.OK
    _, out, _ = batch(str(folder))
    assert "1 submissions, 1 to grade" in out


@pytest.mark.e2e
@pytest.mark.parametrize("argv, message", [
    (["--jobs", "0"], "--jobs must be between 1 and 64"),
    (["--impl", "x.py"], "--impl cannot be combined with --batch"),
    (["--deep", "--only", "test_apply_mask"], "--only, --deep cannot be combined with --batch"),
])
def test_bad_batch_options_are_usage_errors(tmp_path, argv, message):
    code, _, err = batch(str(tmp_path), *argv)
    assert code == ExitCode.USAGE and message in err


@pytest.mark.e2e
def test_a_folder_and_a_file_for_one_student_is_refused(tmp_path):
    (tmp_path / "ann").mkdir()
    (tmp_path / "ann.py").write_text("")
    code, _, err = batch(str(tmp_path))
    assert code == ExitCode.USAGE and "both a folder and a .py file for ann" in err


@pytest.mark.e2e
def test_a_state_that_is_not_ours_is_refused_on_resume(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "ann.py").write_text("def f(:\n")
    state_path(folder).write_text('{"format": "something else"}')
    code, _, err = batch(str(folder), "--resume")
    assert code == ExitCode.USAGE and "is not a constrain-harness batch state" in err


def test_fingerprints_change_with_content_and_names_not_with_time(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "constrain.py").write_text("x = 1\n")
    sub = Submission("a", tmp_path / "a")
    first = fingerprint(sub)
    (tmp_path / "a" / "constrain.py").touch()
    assert fingerprint(sub) == first
    (tmp_path / "a" / "constrain.py").write_text("x = 2\n")
    assert fingerprint(sub) != first
    (tmp_path / "a" / "constrain.py").rename(tmp_path / "a" / "other.py")
    assert fingerprint(sub) != first


def test_csv_cells_a_spreadsheet_would_evaluate_are_defused(tmp_path):
    tests = tuple(TestOutcome(n, "passed") for n in NAMES)
    grade = Grade("crashed", tests, notes=("=HYPERLINK(\"http://x\")", "+1"))
    rows = [record("=cmd|' /C calc'!A0", grade, "f")]
    reports.write_csv(rows, tmp_path / "g.csv")
    (row,) = list(csv.DictReader((tmp_path / "g.csv").open()))
    assert row["student"].startswith("'=") and row["notes"].startswith("'=")
    assert "&lt;script&gt;" in reports.to_html(reports.to_json([record("<script>", grade, "f")], tmp_path, {}, []))


def test_discovery_skips_hidden_entries_and_the_reports_themselves(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "ann.py").write_text("")
    (tmp_path / "out.json").write_text("")
    found = discover(tmp_path, skip=frozenset({(tmp_path / "out.json").resolve()}))
    assert [s.student for s in found.submissions] == ["ann"] and found.ignored == ()
