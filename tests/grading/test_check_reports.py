"""The reports of `check` (harness/grading/report.py), from hand-built results: no child runs."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from harness.exitcodes import ExitCode
from harness.grading import report as reports
from harness.grading.check import CheckOptions, CheckResult, Verdict, _exit_code
from harness.policy import SEED_TEST
from harness.suite.catalogue import CATALOGUE, NAMES


def make_result(statuses: dict[str, str], load=None, **extra) -> CheckResult:
    result = CheckResult(CheckOptions(impl="sub/constrain.py"), load=load or {"status": "ok"}, **extra)
    for entry in CATALOGUE:
        status = statuses.get(entry.name, "passed")
        reason = "" if status == "passed" else f"why {entry.name}"
        result.tests.append(Verdict(entry.name, entry.kinds, status, reason,
                                        "  pattern:  'a'\n  expected: True" if status == "failed" else ""))
    result.exit_code = int(_exit_code(result))
    return result


CRASHED = {"test_hand_example": "failed", "test_canonical_form": "crashed", "test_apply_mask": "timeout",
           "test_vocab_bytes": "not run"}


def test_the_catalogue_is_the_specs_table():
    assert len(NAMES) == 16 and len(set(NAMES)) == 16
    assert NAMES[0] == "test_hand_example" and NAMES[-1] == "test_vocab_bytes"
    assert {k for e in CATALOGUE for k in e.kinds} == {"unit", "smoke", "golden", "property", "boundary"}


@pytest.mark.parametrize("statuses, load, extra, code", [
    ({}, None, {}, ExitCode.OK),
    ({"test_apply_mask": "skipped"}, None, {}, ExitCode.OK),
    ({"test_apply_mask": "failed"}, None, {}, ExitCode.FAILED),
    ({"test_apply_mask": "error"}, None, {}, ExitCode.FAILED),
    ({}, None, {"tamper": [{"test": None, "changes": ["re.fullmatch rebound"]}]}, ExitCode.FAILED),
    ({}, None, {"integrity": ["golden/masks_golden.json changed; restored"]}, ExitCode.TAMPERED),
    (CRASHED, None, {"integrity": ["golden/planted.json: added (file); restored"]}, ExitCode.TAMPERED),
    (CRASHED, None, {}, ExitCode.CRASHED),
    ({"test_hand_example_masks": "failed"}, {"status": "ok", "problems": ["TokenIndex: missing (a class)"]}, {},
     ExitCode.FAILED),  # a missing name fails the tests that need it; the others run
    ({n: "not run" for n in NAMES}, {"status": "usage", "reason": "no such file"}, {}, ExitCode.USAGE),
    ({n: "not run" for n in NAMES}, {"status": "error", "reason": "import failed"}, {}, ExitCode.CRASHED),
])
def test_exit_codes_follow_the_one_table(statuses, load, extra, code):
    assert make_result(statuses, load, **extra).exit_code == code


def test_the_table_has_a_row_per_test_and_ends_with_totals_and_verdict():
    text = reports.render_table(make_result(CRASHED))
    lines = text.splitlines()
    assert lines[-1] == "verdict: crashed or timed out (exit 3)"
    assert lines[-2].startswith("16 tests: 12 passed, 1 failed, 1 crashed, 1 timeout, 1 not run")
    row = next(line for line in lines if "test_hand_example " in line)
    assert "unit, smoke" in row and "FAIL" in row and "why test_hand_example" in row
    assert "  pattern:  'a'" in text  # the counterexample under the table
    assert "hint: the spec's pitfall 3." in text


def test_the_json_report_carries_every_field(tmp_path):
    path = tmp_path / "r.json"
    reports.write_json(make_result(CRASHED), path)
    doc = json.loads(path.read_text())
    assert doc["format"] == "constrain-harness-check" and doc["format_version"] == 1
    assert doc["exit_code"] == 3 and doc["verdict"] == "crashed or timed out"
    assert doc["counts"] == {"passed": 12, "failed": 1, "error": 0, "skipped": 0, "crashed": 1, "timeout": 1,
                             "not run": 1}
    first = doc["tests"][0]
    assert set(first) == {"name", "kinds", "checks", "status", "reason", "details", "duration", "pitfalls", "notes"}
    assert first["checks"].startswith("section 3's DFA")
    assert [t["name"] for t in doc["tests"]] == list(NAMES)


def test_junit_xml_counts_failures_and_errors(tmp_path):
    path = tmp_path / "r.xml"
    reports.write_junit(make_result(CRASHED), path)
    suite = ET.parse(path).getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("16", "1", "3")
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert cases["test_hand_example"].find("failure").get("message") == "why test_hand_example"
    assert cases["test_canonical_form"].find("error").get("type") == "crashed"
    assert cases["test_vocab_bytes"].find("error").get("type") == "not run"
    assert list(cases["test_constraint_lifecycle"]) == []


def test_gradescope_scores_one_point_per_passed_test(tmp_path):
    path = tmp_path / "results.json"
    reports.write_gradescope(make_result(CRASHED), path)
    doc = json.loads(path.read_text())
    assert (doc["score"], sum(t["max_score"] for t in doc["tests"])) == (12.0, 16.0)
    schema = json.loads((Path(reports.__file__).parent / "autograder" / "gradescope_results.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(doc)
    assert [t["name"] for t in doc["tests"]] == [*NAMES, SEED_TEST]   # last, the hidden test holding the run seed
    assert doc["tests"][-1]["visibility"] == "hidden" and doc["tests"][-1]["max_score"] == 0
    statuses = {t["name"]: t["status"] for t in doc["tests"]}
    assert statuses["test_canonical_form"] == "failed" and statuses["test_apply_mask"] == "failed"
    assert all(set(t) >= {"name", "score", "max_score", "status", "output"} for t in doc["tests"])
    assert doc["output"].endswith("verdict: crashed or timed out (exit 3)")


def test_gradescope_scores_the_tests_that_ran_and_zero_on_tampering():
    missing = reports.to_gradescope(make_result({"test_hand_example_masks": "failed"},
                                                {"status": "ok", "problems": ["TokenIndex: missing (a class)"]}))
    assert missing["score"] == 15  # the other tests ran and count
    tampered = reports.to_gradescope(make_result({}, integrity=["golden/planted.json: added (file); restored"]))
    assert tampered["score"] == 0 and "changed the harness's files" in tampered["output"]


def test_notes_and_candidate_text_reach_the_reports_escaped(tmp_path):
    result = make_result({"test_apply_mask": "failed"})
    result.tests[0].notes = ["contract decision not met: step_out_of_range_valueerror: raised IndexError"]
    result.tests[10].reason = "bad\r\x1b[32mPASS\x1b[0m\nverdict: passed (exit 0)"
    text = reports.render_table(result)
    assert "note (test_hand_example): contract decision not met: step_out_of_range_valueerror" in text
    assert "\x1b" not in text and "\r" not in text and text.splitlines()[-1] == "verdict: failed (exit 1)"
    assert reports.to_json(result)["tests"][0]["notes"] == result.tests[0].notes


@pytest.mark.parametrize("returncode, killed, words", [
    (-24, None, "SIGXCPU (the CPU-time limit)"),
    (-11, None, "SIGSEGV (a segmentation fault)"),
    (0, None, "exited with status 0 in the middle of the test"),
    (-9, "wall-clock limit: 5 s", "killed by the harness: wall-clock limit: 5 s"),
])
def test_how_a_child_ended_is_said_in_words(tmp_path, returncode, killed, words):
    from harness.grading.check import _how_it_ended

    log = tmp_path / "child.log"
    log.write_text("")
    assert words in _how_it_ended(returncode, killed, log)


@pytest.mark.parametrize("seconds", ["9.87", "10.02", "123.45", "7"])
def test_an_output_tail_holds_the_same_lines_however_long_the_run_took(tmp_path, seconds):
    # the tail is cut on whole lines, counting pytest's "in 9.87s" at one width: how long the run
    # took must not move which lines a report keeps (same run, same report, timings aside)
    from harness.grading.check import _tail

    body = "".join(f"line {i:04d} of the log\n" for i in range(400))
    log = tmp_path / "child.log"
    log.write_text(body + f"==== 3 failed, 13 passed in {seconds}s ====\n")
    tail = _tail(log, limit=1000)
    assert tail.endswith(f"in {seconds}s ====\n") and tail.startswith("line ")
    first = int(tail.split()[1])
    assert first == 400 - (1000 - len("==== 3 failed, 13 passed in <time> ====\n")) // len("line 0000 of the log\n")
    assert len(tail) <= 1000 + len(seconds)


def test_an_output_tail_of_one_long_line_keeps_its_end(tmp_path):
    from harness.grading.check import _tail

    log = tmp_path / "child.log"
    log.write_text("x" * 5000 + "END")
    assert _tail(log, limit=100) == "x" * 97 + "END"
