"""What a student sees of the Gradescope results, and one time budget for a run (issue 26
items 5 and 6).

- the bundle's settings carry Gradescope's visibility values (its specification: hidden,
  after_due_date, after_published, visible) for the results and for each test, and every
  results document validates against the committed schema;
- a student never reads the sandbox's internals (the confinement line, rlimits, "root: it
  can write every file", the grader's scratch paths): they are in a hidden, 0-point test
  for the course staff, and in the run's log;
- one budget (``harness.policy``: run_budget_seconds = Gradescope's 600 s less 60 s) for
  the submission's check and the student's own tests together: the tests get what the
  check left, are stopped at it with nothing left running, and the header states it.

In-process with a fake check (``grade_submission``) and a fake ``grade-tests`` verb, except
the last test (slow): a real syntax-error submission with the real strong student suite,
which alone takes minutes, under a 60 s budget.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
import time
import zipfile
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest

from harness.cli import main
from harness.exitcodes import ExitCode
from harness.grading.autograder import gradescope, runner, visibility
from harness.grading.autograder.config import CONFIG_NAME, AutograderConfig
from harness.grading.autograder.grading import Grade, TestOutcome
from harness.policy import POLICY, GradingPolicy
from harness.suite.catalogue import NAMES

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads(gradescope.SCHEMA_PATH.read_text())
SCRATCH = "/tmp/constrain-harness-grade-k2j4x9/submission"
HEADER = (f"{POLICY.header()} (wall backstop 540 s)\n"
          f"constrain-harness check: {SCRATCH}/python/tinyllm/infer/constrain.py --ref-deps\n"
          f"{POLICY.header()}\n"
          "seed: 1234 (check --seed 1234 replays this run)\n"
          "confinement: UNCONFINED (--unconfined): no wall: the candidate runs as root: it can write every file "
          "of the machine, no namespaces; rlimits CPU 60 s, AS 2048 MB, FSIZE 64 MB, NPROC 64, CORE 0")
INTERNALS = ("confinement", "rlimits", "root: it can write", "UNCONFINED", "constrain-harness-grade-", "/tmp/")


def valid(results: dict) -> dict:
    jsonschema.Draft202012Validator(SCHEMA).validate(results)
    return results


def fake_grade(**statuses) -> Grade:
    tests = tuple(TestOutcome(n, statuses.get(n, "passed"),
                              reason=f'File "{SCRATCH}/constrain.py", line 3: wrong' if n in statuses else "")
                  for n in NAMES)
    return Grade("failed" if statuses else "passed", tests, exit_code=1 if statuses else 0, seconds=3.0,
                 header=HEADER, module="python/tinyllm/infer/constrain.py", output="check's own output")


def run_in(root: Path, monkeypatch, config: AutograderConfig, grade: Grade, check_seconds: float = 0.0) -> dict:
    def graded(folder, options):
        time.sleep(check_seconds)   # the check's share of the budget
        return grade

    monkeypatch.setattr(runner, "grade_submission", graded)
    (root / "submission").mkdir(exist_ok=True)
    log = io.StringIO()
    assert runner.run(root, config=config, log=log) == 0
    results = valid(json.loads((root / "results" / "results.json").read_text()))
    results["_log"] = log.getvalue()
    return results


def student_visible(results: dict) -> str:
    """Everything a student can ever read: the top output and every test that is not hidden."""
    return "\n".join([results["output"], *(t.get("output", "") + t["name"] for t in results["tests"]
                                           if t.get("visibility", results.get("visibility")) != "hidden")])


# --------------------------------------------------------------------------- visibility (item 5)


@pytest.mark.e2e
def test_tests_are_visible_now_or_after_the_due_date_as_the_bundle_says(tmp_path, monkeypatch):
    config = AutograderConfig(visibility="after_due_date", test_visibility={"test_hand_example": "visible"})
    results = run_in(tmp_path, monkeypatch, config, fake_grade(test_vocab_bytes="failed"))
    shown = {t["name"]: t["visibility"] for t in results["tests"]}
    assert results["visibility"] == "after_due_date"
    assert shown.pop("test_hand_example") == "visible" and shown.pop(visibility.STAFF_TEST) == "hidden"
    assert set(shown.values()) == {"after_due_date"} and set(shown) == set(NAMES) - {"test_hand_example"}
    assert results["score"] == 15.0   # visibility never changes a score


@pytest.mark.e2e
def test_a_student_never_reads_the_sandbox_internals_and_the_staff_test_keeps_them(tmp_path, monkeypatch):
    results = run_in(tmp_path, monkeypatch, AutograderConfig(), fake_grade(test_vocab_bytes="failed"))
    seen = student_visible(results)
    assert not [word for word in INTERNALS if word in seen], seen
    assert "policy: default grading" in results["output"] and visibility.SEED_KEPT in results["output"]
    assert "time budget: 540 s of elapsed time" in results["output"]
    failed = {t["name"]: t for t in results["tests"]}["test_vocab_bytes"]
    assert failed["output"].splitlines()[0] == 'FAILED: File "constrain.py", line 3: wrong'   # the student's path
    assert failed["output"].splitlines()[1:] == [line for line in failed["output"].splitlines()[1:]
                                                 if line.startswith("hint: ")]   # then only the diagnosed hint
    staff = results["tests"][-1]
    assert (staff["name"], staff["visibility"], staff["score"], staff["max_score"]) == \
        (visibility.STAFF_TEST, "hidden", 0.0, 0.0)
    assert all(word in staff["output"] for word in ("confinement:", "rlimits", "root: it can write", SCRATCH))
    assert "check's own output" in staff["output"] and "confinement:" in results["_log"]   # the instructors' log


def test_the_student_header_keeps_the_policy_and_budget_once_and_says_the_seed_is_the_staffs():
    header = visibility.student_header(HEADER + "\n" + POLICY.budget_line())
    assert header.splitlines() == [f"{POLICY.header()} (wall backstop 540 s)", visibility.SEED_KEPT,
                                   POLICY.budget_line()]
    assert visibility.student_header(f"{POLICY.header()}\n") == POLICY.header()   # no seed line: none said


@pytest.mark.e2e
def test_the_run_seed_is_in_the_staff_test_only_never_where_a_student_reads(tmp_path, monkeypatch):
    """Issue 48: the seed mixes the course secret into the upload's hash; a student who read
    it could replay the run offline and try uploads until the random inputs miss a bug."""
    seed = 3_141_592_653
    header = HEADER.replace("seed: 1234 (check --seed 1234", f"seed: {seed} (check --seed {seed}")
    grade = fake_grade(test_vocab_bytes="failed", test_hand_example="timeout")
    results = run_in(tmp_path, monkeypatch, AutograderConfig(), replace(grade, header=header))
    seen = student_visible(results)
    assert str(seed) not in seen and visibility.SEED_KEPT in results["output"], seen
    staff = results["tests"][-1]
    assert staff["visibility"] == "hidden" and f"check --seed {seed} replays this run" in staff["output"]


@pytest.mark.parametrize("settings, message", [
    ({"visibility": "public"}, "visibility must be one of hidden, after_due_date, after_published, visible"),
    ({"test_visibility": {"test_hand_exampel": "visible"}}, "did you mean test_hand_example"),
    ({"test_visibility": {"test_hand_example": "later"}}, "test_hand_example: visibility must be one of"),
])
def test_bad_visibility_settings_are_refused_with_the_reason(settings, message):
    with pytest.raises(ValueError, match=message):
        AutograderConfig.from_json(settings)


@pytest.mark.e2e
def test_build_writes_the_visibility_settings_into_the_bundle(tmp_path):
    out = io.StringIO()
    code = main(["autograder", "build", "--out", str(tmp_path / "a.zip"), "--visibility", "after_due_date",
                 "--test-visibility", "test_hand_example=visible"], out, io.StringIO())
    assert code == ExitCode.OK, out.getvalue()
    settings = json.loads(zipfile.ZipFile(tmp_path / "a.zip").read(CONFIG_NAME))
    assert (settings["visibility"], settings["test_visibility"]) == ("after_due_date", {"test_hand_example": "visible"})
    assert settings["wall"] == POLICY.run_budget_seconds == 540.0
    assert "tests: 15 after due date, the others visible" in out.getvalue()
    err = io.StringIO()
    assert main(["autograder", "build", "--out", str(tmp_path / "b.zip"), "--test-visibility", "visible"],
                io.StringIO(), err) == ExitCode.USAGE
    assert "expected TEST=VALUE" in err.getvalue() and not (tmp_path / "b.zip").exists()


# --------------------------------------------------------------------------- one time budget (item 6)


def test_the_policy_states_one_budget_below_the_platforms_timeout():
    assert POLICY.run_budget_seconds == POLICY.platform_wall_seconds - POLICY.platform_margin_seconds == 540.0
    assert AutograderConfig().wall == POLICY.run_budget_seconds
    with pytest.raises(ValueError, match="must be less than platform_wall_seconds"):
        GradingPolicy(platform_margin_seconds=600.0)


FAKE_GRADE_TESTS = """
import json, os, sys, time
args = sys.argv[1:]
if args[:2] == ["grade-tests", "--help"]:
    sys.exit(0)
record = os.environ["FAKE_RECORD"]
with open(record, "w") as f:
    json.dump({"argv": args, "pid": os.getpid()}, f)
if os.environ.get("FAKE_SLEEP"):
    child = __import__("subprocess").Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    with open(record + ".child", "w") as f:
        f.write(str(child.pid))
    time.sleep(float(os.environ["FAKE_SLEEP"]))   # a suite that would take far longer than the budget
out = args[args.index("--gradescope") + 1]
json.dump({"score": 1.0, "output": "1 of 2 chaffs caught (INCOMPLETE)", "tests": [
    {"name": "chaff group s01-s08", "score": 1.0, "max_score": 2.0, "output": "caught 1"}]}, open(out, "w"))
"""


def fake_verb(tmp_path: Path, monkeypatch, sleep: float | None) -> Path:
    fake = tmp_path / "fake_cli.py"
    fake.write_text(FAKE_GRADE_TESTS)
    record = tmp_path / "record.json"
    monkeypatch.setenv("FAKE_RECORD", str(record))
    if sleep:
        monkeypatch.setenv("FAKE_SLEEP", str(sleep))
    monkeypatch.setattr(runner.isolated, "environment", lambda: dict(os.environ))
    monkeypatch.setattr(runner.isolated, "command", lambda module, *a, **k: [sys.executable, str(fake)])
    monkeypatch.setattr(runner, "MIN_STUDENT_TESTS_SECONDS", 1.0)
    (tmp_path / "root" / "submission" / runner.STUDENT_TESTS).mkdir(parents=True)
    return record


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.e2e
def test_the_student_tests_get_what_the_check_left_of_the_one_budget(tmp_path, monkeypatch):
    record = fake_verb(tmp_path, monkeypatch, sleep=None)
    results = run_in(tmp_path / "root", monkeypatch, AutograderConfig(wall=20.0), fake_grade(), check_seconds=2.0)
    argv = json.loads(record.read_text())["argv"]
    budget = float(argv[argv.index("--budget") + 1])
    assert 10.0 < budget <= 18.0                                  # 20 s less the check's 2 s (and start-up)
    assert float(argv[argv.index("--timeout") + 1]) <= budget
    assert results["score"] == 17.0 and results["tests"][-2]["name"] == "your tests: chaff group s01-s08"
    assert "time budget: 20 s of elapsed time for the submission's check and the student's own tests" \
        in results["output"]


@pytest.mark.e2e
def test_a_submission_and_suite_that_would_exceed_the_budget_end_within_it(tmp_path, monkeypatch):
    record = fake_verb(tmp_path, monkeypatch, sleep=300.0)
    start = time.monotonic()
    results = run_in(tmp_path / "root", monkeypatch, AutograderConfig(wall=3.0), fake_grade(), check_seconds=1.0)
    elapsed = time.monotonic() - start
    assert elapsed < 3.0 + 5.0, elapsed                            # the budget, and the time to stop a tree
    assert re.search(r"your tests \(python/tests/l8-7-constrain\): not graded: grade-tests took longer than the "
                     r"\d+ s left of the time budget, and was stopped", results["output"]), results["output"]
    assert results["score"] == 16.0 and results["tests"][-1]["name"] == visibility.STAFF_TEST
    pids = [json.loads(record.read_text())["pid"], int(Path(str(record) + ".child").read_text())]
    assert not any(alive(pid) for pid in pids)                      # nothing of grade-tests is left running


@pytest.mark.e2e
def test_a_check_that_spends_the_budget_leaves_the_student_tests_ungraded_with_the_reason(tmp_path, monkeypatch):
    record = fake_verb(tmp_path, monkeypatch, sleep=None)
    monkeypatch.setattr(runner, "MIN_STUDENT_TESTS_SECONDS", 30.0)
    results = run_in(tmp_path / "root", monkeypatch, AutograderConfig(wall=20.0), fake_grade(), check_seconds=0.0)
    assert not record.exists()                                      # never started
    assert "not graded: the time budget of 20 s ran out: grading your module left" in results["output"]
    assert "your tests need at least 30" in results["output"]


@pytest.mark.e2e
@pytest.mark.slow
def test_a_real_strong_suite_under_a_short_budget_ends_within_it(tmp_path):
    """The strong suite alone takes minutes (every wheat twice, 27 chaffs); under a 60 s
    budget the run ends within it whatever the machine's load, with valid results."""
    root = tmp_path / "root"
    suite = root / "submission" / runner.STUDENT_TESTS
    suite.mkdir(parents=True)
    for path in (ROOT / "tests" / "student_suites" / "strong").iterdir():
        if path.is_file():
            (suite / path.name).write_bytes(path.read_bytes())
    (root / "submission" / "constrain.py").write_text("def regex_to_dfa(pattern:\n")   # no check run: all budget left
    start = time.monotonic()
    assert runner.run(root, config=AutograderConfig(wall=60.0), log=io.StringIO()) == 0
    elapsed = time.monotonic() - start
    results = valid(json.loads((root / "results" / "results.json").read_text()))
    assert elapsed < 60.0 + 15.0, elapsed
    assert "time budget: 60 s" in results["output"]
    theirs = [t for t in results["tests"] if t["name"].startswith("your tests: ")]
    assert theirs or "your tests (python/tests/l8-7-constrain): not graded: grade-tests took longer" \
        in results["output"], results["output"]


@pytest.mark.e2e
def test_prairielearn_students_do_not_read_the_sandbox_internals_either(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "grade_submission", lambda folder, options: fake_grade(test_vocab_bytes="failed"))
    (tmp_path / "student").mkdir()
    log = io.StringIO()
    assert runner.run(tmp_path, platform="prairielearn", config=AutograderConfig(), log=log) == 0
    results = json.loads((tmp_path / "results" / "results.json").read_text())
    seen = json.dumps({k: v for k, v in results.items()})
    assert not [word for word in INTERNALS if word in seen], seen
    assert results["score"] == 0.9375 and "confinement:" in log.getvalue()
