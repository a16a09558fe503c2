"""A seed no student can choose (issue 48 item 2): batch and Gradescope runs key the run seed
with a course secret.

The attack: the default run seed (``submission_seed``) is a public hash of the upload, so a
student tries comment after comment offline until the seeded draws miss their bug. Under a
course secret the seed is ``course_seed(secret, upload)``: it differs from the public seed and
from the seed under another secret, a resumed batch keeps its secret (the same upload, the
same seed), and the seed each record names is the one check ran with (``check --seed N``
replays it). The secret itself reaches no student: not a feedback file, not a report, not
results.json, and a hostile submission that hunts for it inside the sandbox (the state file
or the bundle's secret file by their paths, every process's environment and command line)
finds nothing. Each hostile run asserts the harness's files unchanged and nothing left running.

The oracle for a seed is ``harness.suite.seeding``'s documented formula (HMAC-SHA256 over the
upload's content under the secret), recomputed here with ``hmac`` itself.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import os
import re
import shutil
import stat
import tempfile
import zipfile
from pathlib import Path

import pytest

from harness.cli import main
from harness.exitcodes import ExitCode
from harness.grading.autograder import bundle, runner
from harness.grading.autograder.config import SECRET_NAME, AutograderConfig
from harness.grading.autograder.grading import GradeOptions
from harness.grading.batch.state import BatchState, state_path
from harness.policy import SEED_KEPT
from harness.policy import SEED_TEST as POLICY_SEED_TEST
from harness.suite import seeding
from tests.support.helpers import ROOT, confined, left_over

HEX64 = re.compile(r"\b[0-9a-f]{64}\b")


def expected_seed(secret: str, data: bytes) -> int:
    """The documented formula for a one-file upload, computed independently."""
    mac = hmac.new(bytes.fromhex(secret), b"constrain-harness run seed\0", hashlib.sha256)
    mac.update(b"\0" + hashlib.sha256(data).digest())
    return int.from_bytes(mac.digest()[:4], "big")


# --------------------------------------------------------------------------- the formula


def test_the_course_seed_is_keyed_pure_and_not_the_public_seed(tmp_path):
    upload = tmp_path / "constrain.py"
    upload.write_bytes(b"# one\n")
    first, second = seeding.new_course_secret(), seeding.new_course_secret()
    assert first != second and HEX64.fullmatch(first)
    seed = seeding.course_seed(first, str(upload))
    assert seed == expected_seed(first, b"# one\n")
    assert seed != seeding.submission_seed(str(upload))            # not what a student computes offline
    assert seed != seeding.course_seed(second, str(upload))       # another course, another seed
    moved = tmp_path / "elsewhere" / "constrain.py"
    moved.parent.mkdir()
    moved.write_bytes(b"# one\n")
    assert seeding.course_seed(first, str(moved)) == seed          # the content decides, not the path
    upload.write_bytes(b"# two\n")
    assert seeding.course_seed(first, str(upload)) == expected_seed(first, b"# two\n") != seed


@pytest.mark.parametrize("bad, error", [(None, TypeError), (b"\x00" * 32, TypeError), ("ab" * 31, ValueError),
                                        ("AB" * 32, ValueError), ("zz" * 32, ValueError)])
def test_a_malformed_secret_is_refused_without_repeating_it(bad, error):
    with pytest.raises(error, match="course secret") as caught:
        seeding.course_seed(bad, None)
    if isinstance(bad, str):
        assert bad not in str(caught.value)
    if bad is not None:   # None is GradeOptions' "no secret: the public seed"
        with pytest.raises(error):
            GradeOptions(course_secret=bad)


def test_check_gets_the_keyed_seed_and_never_the_secret(tmp_path):
    import json

    from harness.grading.check import CheckOptions

    upload = tmp_path / "constrain.py"
    upload.write_bytes(b"# mine\n")
    secret = seeding.new_course_secret()
    request = GradeOptions(course_secret=secret).check_request(upload, tmp_path / "report.json")
    options = CheckOptions.from_document(json.loads(request)["options"])
    assert options.seed == expected_seed(secret, b"# mine\n")
    assert secret not in request
    assert GradeOptions().check_options(upload).seed is None   # no secret: check's own default


def test_the_secret_is_in_no_repr():
    secret = seeding.new_course_secret()
    assert secret not in repr(GradeOptions(course_secret=secret))
    assert secret not in repr(BatchState(Path("s.json"), Path("."), {}, {}, secret))
    assert GradeOptions(course_secret=secret).run_seed(None) is None


# --------------------------------------------------------------------------- the hostile submission

HUNTER = '''
"""Hunts for the course secret from inside the sandbox, then fails to import saying what it found."""
import os, re
HEX = re.compile(r"[0-9a-f]{{64}}")
found, tried = [], []
def look(path):
    try:
        with open(path, "rb") as f:
            text = f.read(1 << 20).decode("latin-1")
    except Exception as exc:
        tried.append(f"{{path.rsplit('/', 1)[-1]}}:{{type(exc).__name__}}")
        return
    tried.append(f"{{path.rsplit('/', 1)[-1]}}:read")
    found.extend(HEX.findall(text))
for path in {paths!r}:
    look(path)
for pid in os.listdir("/proc"):
    if pid.isdigit():
        look(f"/proc/{{pid}}/environ")
        look(f"/proc/{{pid}}/cmdline")
found.extend(HEX.findall(" ".join(os.environ.values())))
raise RuntimeError(("LEAKED " + " ".join(found)) if found else ("nothing found; tried " + " ".join(tried[:8])))
'''


def hunter(*paths: Path) -> str:
    return HUNTER.format(paths=[str(p) for p in paths])


@pytest.fixture
def visible_folder():
    """A class folder for the hostile uploads (0755). It used to lie inside the checkout, which
    every sandbox bound: the batch now refuses a class, its reports or its state inside the
    checkout whoever runs it (``tests/grading/test_batch_class_data.py``), and the sandbox holds only
    the harness's packages, so the uploads hunt for the secret where the grader keeps it."""
    folder = Path(tempfile.mkdtemp(prefix=".course-seed-test-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def every_text(*roots: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for root in roots
                     for p in ([root] if root.is_file() else sorted(root.rglob("*"))) if p.is_file())


def batch(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(["check", "--batch", *argv], out, err), out.getvalue(), err.getvalue()


# --------------------------------------------------------------------------- check --batch


@pytest.mark.e2e
@confined
def test_a_batch_keys_its_seeds_with_a_secret_no_student_reads(harness_unchanged, visible_folder, monkeypatch):
    monkeypatch.setenv("CONSTRAIN_HARNESS_MARKER", marker := "course-seed-" + os.urandom(4).hex())
    folder = visible_folder / "class"
    folder.mkdir(mode=0o755)
    state = state_path(folder)
    mallory = hunter(state, state.with_name(state.name + ".partial"))
    (folder / "mallory.py").write_text(mallory)
    (folder / "trudy.py").write_text("# trudy\n" + mallory)
    reports = {ext: visible_folder / f"class.{ext}" for ext in ("json", "csv", "html", "md")}
    feedback = visible_folder / "feedback"
    written = [f"--{ext}={path}" for ext, path in reports.items()] + [f"--feedback={feedback}"]
    code, out, err = batch(str(folder), "--jobs", "1", *written)
    assert code == ExitCode.OK, out + err
    assert left_over(marker) == []

    secret = json.loads(state.read_text())["course_secret"]
    records = {r["student"]: r for r in json.loads(reports["json"].read_text())["students"]}
    students_read = every_text(feedback)
    assert students_read and "nothing found" in students_read   # trudy ran after mallory's state was saved
    assert secret not in students_read + every_text(*reports.values()) + out + err
    assert HEX64.fullmatch(secret) and stat.S_IMODE(state.stat().st_mode) == 0o600
    for student, record in records.items():
        data = (folder / f"{student}.py").read_bytes()
        assert record["verdict"] == "crashed"                     # its documented failure: it raises on import
        assert record["seed"] == expected_seed(secret, data)      # the seed check ran with, in the staff's report
        assert record["seed"] != seeding.submission_seed(str(folder / f"{student}.py"))
        assert "nothing found" in json.dumps(record) and "LEAKED" not in json.dumps(record)
        assert str(record["seed"]) not in students_read           # the seed is the staff's, not the student's

    # resumed: the same secret, so a student regraded from a changed upload gets its seed under it
    (folder / "trudy.py").write_text("# trudy, again\n" + mallory)
    code, out, err = batch(str(folder), "--jobs", "1", "--resume", f"--json={reports['json']}")
    assert code == ExitCode.OK, out + err
    assert "1 to grade" in out and json.loads(state.read_text())["course_secret"] == secret
    again = {r["student"]: r for r in json.loads(reports["json"].read_text())["students"]}
    assert again["mallory"]["seed"] == records["mallory"]["seed"]
    assert again["trudy"]["seed"] == expected_seed(secret, (folder / "trudy.py").read_bytes())

    # a batch started afresh: a new secret, so another seed for the same upload (mallory's: trudy's
    # upload leaves, one hunt fewer, 1.3 CPU s)
    (folder / "trudy.py").unlink()
    code, out, err = batch(str(folder), "--jobs", "1", f"--json={reports['json']}")
    assert code == ExitCode.OK, out + err
    fresh = json.loads(state.read_text())["course_secret"]
    assert fresh != secret
    third = {r["student"]: r for r in json.loads(reports["json"].read_text())["students"]}
    assert third["mallory"]["seed"] == expected_seed(fresh, (folder / "mallory.py").read_bytes())
    assert third["mallory"]["seed"] != records["mallory"]["seed"]
    assert left_over(marker) == []


def test_a_resumed_state_without_a_secret_keeps_no_record(tmp_path):
    """A state written before course secrets: its records were graded under the public seed."""
    folder = tmp_path / "class"
    folder.mkdir()
    state_path(folder).write_text(json.dumps({"format": "constrain-harness-batch-state", "format_version": 1,
                                              "dir": str(folder), "options": {}, "records": {"a": {}}}))
    state = BatchState.open(folder, {}, resume=True)
    assert state.records == {} and HEX64.fullmatch(state.course_secret)
    doc = json.loads(state_path(folder).read_text())
    doc["course_secret"] = "not hex"
    state_path(folder).write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="no usable course secret") as caught:
        BatchState.open(folder, {}, resume=True)
    assert "not hex" not in str(caught.value)


@pytest.mark.e2e  # starts processes
def test_a_state_candidates_could_read_as_this_user_is_refused(tmp_path, monkeypatch):
    """As an ordinary user a candidate runs under the grader's own uid: mode 0600 does not stop
    it, so the state must not lie in a folder every sandbox binds (the checkout here)."""
    monkeypatch.setenv("CONSTRAIN_HARNESS_AS_USER", "1")
    inside = BatchState.open(ROOT / "tests" / "candidates", {}, resume=False)
    with pytest.raises(ValueError, match="sandbox can read"):
        inside.check_secret_hidden()
    BatchState.open(tmp_path / "class", {}, resume=False).check_secret_hidden()   # /tmp: hidden from every sandbox
    code, out, err = batch(str(ROOT / "tests" / "candidates"), "--jobs", "1")
    assert code == ExitCode.USAGE and "sandbox can read" in err   # the class itself is refused first
    assert not state_path(ROOT / "tests" / "candidates").exists()


# --------------------------------------------------------------------------- Gradescope


@pytest.mark.e2e  # starts processes
def test_every_bundle_gets_its_own_owner_only_secret(tmp_path, monkeypatch):
    def fake_wheel(out_dir, root=None):   # the wheel's build is tested in test_autograder.py
        wheel = Path(out_dir) / "constrain_harness-0.1.0-py3-none-any.whl"
        wheel.write_bytes(b"wheel")
        return wheel

    monkeypatch.setattr(bundle, "build_wheel", fake_wheel)
    secrets_seen = []
    for name in ("a.zip", "b.zip"):
        info = bundle.build_bundle(tmp_path / name, AutograderConfig())
        assert SECRET_NAME in info.files
        with zipfile.ZipFile(info.path) as z:
            member = z.getinfo(SECRET_NAME)
            assert stat.S_IMODE(member.external_attr >> 16) == 0o600
            secrets_seen.append(z.read(SECRET_NAME).decode().strip())
            assert secrets_seen[-1] not in z.read("constrain-harness-autograder.json").decode()
    assert all(HEX64.fullmatch(s) for s in secrets_seen) and secrets_seen[0] != secrets_seen[1]


@pytest.mark.e2e
@confined
def test_gradescope_keys_the_seed_and_no_student_output_holds_the_secret(harness_unchanged, visible_folder,
                                                                         monkeypatch):
    monkeypatch.setenv("CONSTRAIN_HARNESS_MARKER", marker := "course-seed-" + os.urandom(4).hex())
    root = visible_folder / "autograder"
    for part in ("source", "submission", "results"):
        (root / part).mkdir(parents=True, mode=0o755)
    root.chmod(0o755)
    secret = seeding.new_course_secret()
    secret_file = root / "source" / SECRET_NAME
    secret_file.write_text(secret + "\n")
    secret_file.chmod(0o644)   # as an unzip may leave it: the runner makes it the owner's alone
    upload = hunter(secret_file)
    (root / "submission" / "constrain.py").write_text(upload)
    log = io.StringIO()
    assert runner.run(root, config=AutograderConfig(), log=log) == 0
    assert left_over(marker) == []
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o400
    text = (root / "results" / "results.json").read_text()
    results = json.loads(text)
    assert secret not in text + log.getvalue()
    assert "LEAKED" not in text and "nothing found" in text
    seed = expected_seed(secret, upload.encode())
    assert seed != seeding.submission_seed(str(root / "submission" / "constrain.py"))
    staff = next(t for t in results["tests"] if t["name"] == runner.visibility.STAFF_TEST)
    assert staff["visibility"] == "hidden" and f"seed: {seed}" in staff["output"]   # the TA's replay: --seed
    seen = [results["output"], *(t.get("output", "") for t in results["tests"] if t["visibility"] != "hidden")]
    assert str(seed) not in "\n".join(seen) and runner.visibility.SEED_KEPT in results["output"]


def test_a_bundle_without_a_secret_says_so_and_a_bad_one_is_the_staffs_failure(tmp_path):
    log = io.StringIO()
    (tmp_path / "source").mkdir()
    assert runner.take_course_secret(tmp_path, log) is None and SECRET_NAME in log.getvalue()
    (tmp_path / "source" / SECRET_NAME).write_text("short\n")
    with pytest.raises(ValueError, match="unusable") as caught:
        runner.take_course_secret(tmp_path, log)
    assert "short" not in str(caught.value)


# --------------------------------------------------------------------------- the seed in student-visible output
# Issue 48 item 2: the run seed is never in what a student reads. Everything a student reads of
# a Gradescope results file is its top-level output, every test not hidden, and its stdout
# unless stdout_visibility is "hidden" (check and grade-tests print the seed there).

SEED = 3141592653   # a run seed no other number in these documents spells


def student_visible(results: dict, stdout: str = "") -> str:
    """Everything a student can ever read of ``results`` (and of ``stdout``, unless hidden)."""
    shown = [results.get("output", ""), *(t.get("output", "") + t.get("name", "") for t in results["tests"]
                                          if t.get("visibility", results.get("visibility", "visible")) != "hidden")]
    if results.get("stdout_visibility", "hidden") != "hidden":
        shown.append(stdout)
    return "\n".join(shown)


def hidden_seed_test(results: dict) -> dict:
    [test] = [t for t in results["tests"] if t["name"].endswith(POLICY_SEED_TEST)]
    return test


@pytest.mark.e2e
def test_check_s_gradescope_file_names_the_seed_in_a_hidden_test_only(tmp_path):
    from harness.grading.autograder import gradescope

    path = tmp_path / "results.json"
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", "--only", "test_hand_example", "--seed", str(SEED), "--gradescope", str(path)], out, err)
    assert code == ExitCode.OK, out.getvalue() + err.getvalue()
    results = json.loads(path.read_text())
    gradescope.validate(results)
    assert f"seed: {SEED}" in out.getvalue()                   # the terminal names it: Gradescope's stdout ...
    assert results["stdout_visibility"] == "hidden"              # ... which the student does not see
    assert str(SEED) not in student_visible(results, out.getvalue())
    assert SEED_KEPT in results["output"]
    staff = hidden_seed_test(results)
    assert staff["visibility"] == "hidden" and staff["max_score"] == 0 and f"seed: {SEED}" in staff["output"]


def graded_suite(tmp_path: Path, seed: int):
    """A grade-tests result (one chaff caught of two) under run seed ``seed``."""
    from harness.grading.gradetests.grade import Graded
    from harness.grading.gradetests.grade import GradeOptions as SuiteOptions
    from harness.grading.gradetests.scoring import Grade
    from harness.grading.gradetests.suite_run import RunResult

    tests, matrix = ["test_a"], {"s01": {"test_a": "failed"}, "s02": {"test_a": "passed"}}
    runs = {c: RunResult(c, "chaff", "completed", seconds=1.0) for c in matrix}
    grade = Grade(tests, tests, [], {}, matrix, {"s01": ["test_a"]}, {c: "completed" for c in matrix}, {}, runs)
    return Graded(grade, SuiteOptions(suite=tmp_path), seed, "m", "bubblewrap", "bubblewrap", 2.0, ["reference"],
                  list(matrix))


def test_grade_tests_gradescope_file_names_the_seed_in_a_hidden_test_only_also_in_the_bundle(tmp_path):
    from harness.grading.autograder import gradescope, visibility
    from harness.grading.autograder.grading import Grade as CheckGrade
    from harness.grading.autograder.grading import TestOutcome
    from harness.grading.gradetests import report as suite_reports
    from harness.suite.catalogue import NAMES

    graded = graded_suite(tmp_path, SEED)
    assert f"seed: {SEED}" in suite_reports.table(graded, "pitfall")   # the staff's terminal (hidden stdout)
    theirs = suite_reports.to_gradescope(graded, "pitfall", max_score=10)
    assert theirs["stdout_visibility"] == "hidden" and str(SEED) not in student_visible(theirs)
    assert SEED_KEPT in theirs["output"] and f"seed: {SEED}" in hidden_seed_test(theirs)["output"]
    # merged into the bundle's results as the runner merges them: still hidden
    ours = gradescope.to_results(CheckGrade("passed", tuple(TestOutcome(n, "passed") for n in NAMES),
                                            header="seed: 1234 (check --seed 1234 replays this run)"), points=16)
    merged = visibility.finish(gradescope.merge_results(ours, theirs), CheckGrade("passed", ()),
                               visibility.Visibility(), "title")
    gradescope.validate(merged)
    assert str(SEED) not in student_visible(merged) and "1234" not in student_visible(merged)
    assert f"seed: {SEED}" in hidden_seed_test(merged)["output"] and merged["score"] == 16 + 5


FAKE_GRADE_TESTS = """
import json, os, sys
args = sys.argv[1:]
if args[:2] == ["grade-tests", "--help"]:
    sys.exit(0)
with open(os.environ["FAKE_RECORD"], "a") as f:
    f.write(json.dumps(args) + "\\n")
if os.environ.get("FAKE_CRASH"):   # prints its header, as grade-tests does, and writes no results
    print("seed: " + args[args.index("--seed") + 1] + " (--seed N replays this run)")
    sys.exit(3)
with open(args[args.index("--gradescope") + 1], "w") as f:
    json.dump({"score": 0.0, "output": "0 of 1 chaffs caught", "tests": []}, f)
"""


@pytest.mark.e2e
def test_the_bundle_grades_the_student_s_tests_under_a_seed_keyed_by_its_secret(tmp_path, monkeypatch):
    """The student's suite is graded under ``course_seed(secret, suite)`` (their suite's
    public ``suite_seed`` is anyone's to compute and grind), without a secret under grade-tests'
    default; the seed each run was given is grade-tests' ``--seed``."""
    import sys

    from harness.grading.autograder.grading import Grade as CheckGrade
    from harness.grading.gradetests.grade import suite_seed

    fake, record = tmp_path / "fake_cli.py", tmp_path / "argv.jsonl"
    fake.write_text(FAKE_GRADE_TESTS)
    monkeypatch.setenv("FAKE_RECORD", str(record))
    monkeypatch.setattr(runner.isolated, "environment", lambda: dict(os.environ))
    monkeypatch.setattr(runner.isolated, "command", lambda module, *a, **k: [sys.executable, str(fake)])
    monkeypatch.setattr(runner, "grade_submission", lambda folder, options: CheckGrade("passed", ()))
    seeds = []
    for with_secret in (True, False):
        root = tmp_path / f"root-{with_secret}"
        suite = root / "submission" / runner.STUDENT_TESTS
        suite.mkdir(parents=True)
        (suite / "test_mine.py").write_text("def test_one():\n    assert True\n")
        (root / "source").mkdir()
        secret = seeding.new_course_secret()
        if with_secret:
            (root / "source" / SECRET_NAME).write_text(secret + "\n")
        assert runner.run(root, config=AutograderConfig(), log=io.StringIO()) == 0
        argv = json.loads(record.read_text().splitlines()[-1])
        seeds.append(int(argv[argv.index("--seed") + 1]) if "--seed" in argv else None)
        if with_secret:
            assert seeds[-1] == seeding.course_seed(secret, str(suite)) != suite_seed(suite)
    assert seeds[1] is None   # no secret: grade-tests' own default
    # grade-tests that wrote no results: the tail of its printout reaches the student, the seed not
    monkeypatch.setenv("FAKE_CRASH", "1")
    root = tmp_path / "root-True"
    assert runner.run(root, config=AutograderConfig(), log=io.StringIO()) == 0
    results = json.loads((root / "results" / "results.json").read_text())
    assert "grade-tests exited 3 without results" in results["output"]
    assert str(seeds[0]) not in student_visible(results) and "(kept by the course staff)" in results["output"]
