"""The Gradescope autograder (issue 18): the bundle, run_autograder in a root laid out
like /autograder, the results formats, and how check's JSON report is read.

End to end (module-scoped, built once): ``autograder build`` writes the zip; it is
unpacked into a temporary root, ``setup.sh`` installs the bundle's wheel into its own
venv (offline: ``--no-deps``, the dependencies come from this interpreter's
site-packages), and ``run_autograder`` grades sample submissions. Every results file
must validate against the committed schema of Gradescope's format, and must say what
the spec says: the reference passes every test, a wrong candidate fails the test the
spec names for its pitfall, and a missing file, a syntax error, a crash on import or a
hang get score 0 with a message, never no file.

The rest is in-process and fast: locating the module, reading check's report (fields
tolerated, missing tests, tampering), points and hint levels, PrairieLearn, the merge
of grade-tests' results (with a fake verb).
"""

from __future__ import annotations

import importlib.metadata
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest

from harness.cli import main
from harness.exitcodes import ExitCode
from harness.grading.autograder import bundle, gradescope, prairielearn, runner, visibility
from harness.grading.autograder.config import CONFIG_NAME, AutograderConfig
from harness.grading.autograder.grading import Grade, GradeOptions, TestOutcome, _from_report, grade_module, printable
from harness.grading.autograder.locate import SPEC_PATH, SubmissionError, locate_module, syntax_problem
from harness.suite.catalogue import NAMES

ROOT = Path(__file__).resolve().parents[2]
CANDIDATES = ROOT / "tests" / "candidates"
WHEATS = ROOT / "harness" / "grading" / "gradetests" / "wheats"  # grade-tests' wheats (package data)
SCHEMA = json.loads(gradescope.SCHEMA_PATH.read_text())


def valid(results: dict) -> dict:
    jsonschema.Draft202012Validator(SCHEMA).validate(results)
    return results


def by_name(results: dict) -> dict[str, dict]:
    return {t["name"]: t for t in results["tests"]}


# --------------------------------------------------------------------------- the installed bundle


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A root laid out like /autograder with the bundle unpacked and set up."""
    work = tmp_path_factory.mktemp("autograder")
    bundle = work / "autograder.zip"
    out = io.StringIO()
    code = main(["autograder", "build", "--out", str(bundle), "--points", "32", "--hints", "full",
                 "--timeout", "30"], out, io.StringIO())
    assert code == ExitCode.OK, out.getvalue()
    root = work / "root"
    (root / "source").mkdir(parents=True)
    with zipfile.ZipFile(bundle) as z:
        z.extractall(root / "source")
    for script in ("setup.sh", "run_autograder"):
        (root / "source" / script).chmod(0o755)
    env = {**os.environ, runner.ROOT_ENV: str(root), "CONSTRAIN_HARNESS_OFFLINE": "1",
           "CONSTRAIN_HARNESS_PYTHON": sys.executable}
    setup = subprocess.run(["bash", str(root / "source" / "setup.sh")], env=env, capture_output=True, text=True,
                           timeout=300)
    assert setup.returncode == 0, setup.stdout + setup.stderr
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")  # as Gradescope does
    return root, env


def grade_in(installed, files: dict[str, Path | str | None], **config) -> dict:
    """Lay out /autograder/submission from ``files`` (relative path -> source file, a
    folder to copy, or text), run run_autograder, and return the validated results."""
    root, env = installed
    submission = root / "submission"
    if submission.exists():
        shutil.rmtree(submission)
    submission.mkdir()
    for relative, source in files.items():
        target = submission / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(source, Path) and source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        elif isinstance(source, Path):
            shutil.copy2(source, target)
        else:
            target.write_text(source)
    config_path = root / "source" / CONFIG_NAME
    original = config_path.read_text()
    config_path.write_text(json.dumps({**json.loads(original), **config}))
    try:
        proc = subprocess.run([str(root / "run_autograder")], env=env, capture_output=True, text=True, timeout=600)
    finally:
        config_path.write_text(original)
    assert proc.returncode == 0, proc.stderr
    return valid(json.loads((root / "results" / "results.json").read_text()))


# Distributions the core dependencies need only transitively (from their published metadata:
# pytest -> pluggy, iniconfig; jsonschema -> attrs, referencing, rpds-py; jinja2 -> markupsafe;
# hypothesis -> sortedcontainers), and distributions only the extras bring.
TRANSITIVE = ("pluggy", "iniconfig", "attrs", "referencing", "rpds-py", "markupsafe", "sortedcontainers")
EXTRAS_ONLY = ("ruff", "mypy", "coverage", "dask", "distributed", "openai", "pytest-xdist", "tokenizers", "cosmic-ray")


def assert_pins_the_runtime_closure(pins: str) -> None:
    """``pins`` (a constraints.txt) pins every distribution the wheel needs at run time, at the
    version installed here, transitively, and nothing that only an extra brings."""
    pinned = dict(line.split("==") for line in pins.splitlines() if line and not line.startswith("#"))
    assert all(pinned.get(name) == importlib.metadata.version(name) for name in TRANSITIVE), pinned
    assert not set(EXTRAS_ONLY) & set(pinned), pinned
    for name, version in pinned.items():
        assert importlib.metadata.version(name) == version, name


def test_the_constraints_pin_the_whole_runtime_closure():
    assert_pins_the_runtime_closure(bundle._constraints())


@pytest.mark.e2e
def test_the_bundle_holds_the_wheel_scripts_and_settings_and_installs_this_version(installed):
    root, _ = installed
    names = sorted(str(p.relative_to(root / "source")) for p in (root / "source").rglob("*") if p.is_file())
    assert names[:5] == ["constrain-harness-autograder.json", "constrain-harness-course-secret", "constraints.txt",
                         "run_autograder", "setup.sh"]
    assert len(names) == 6 and names[5].startswith("wheels/constrain_harness-0.1.0-")
    pins = (root / "source" / "constraints.txt").read_text()
    assert f"# built with Python {sys.version_info.major}.{sys.version_info.minor}\n" in pins
    assert all(f"\n{name}==" in pins for name in ("numpy", "regex", "jsonschema", "hypothesis", "pytest"))
    assert_pins_the_runtime_closure(pins)
    settings = json.loads((root / "source" / CONFIG_NAME).read_text())
    assert (settings["points"], settings["hints"], settings["timeout"], settings["tier"]) == (32.0, "full", 30.0,
                                                                                               "default")
    where = subprocess.run([str(root / "venv" / "bin" / "python"), "-I", "-c",
                            "import harness; print(harness.__file__)"],
                           capture_output=True, text=True, cwd=root / "source")
    assert Path(where.stdout.strip()).is_relative_to(root / "venv"), where  # the wheel, not this checkout


def as_for_students(installed) -> tuple[Path, dict]:
    """``installed`` with the environment Gradescope grades in: no loan of the reference
    (``harness.sandbox.lending``), which only the staff's own candidates get."""
    from harness.sandbox.lending import LEND_VARIABLE

    root, env = installed
    return root, {k: v for k, v in env.items() if k != LEND_VARIABLE}


@pytest.mark.e2e
def test_the_reference_as_a_package_in_the_specs_layout_scores_full_marks(installed):
    """Graded as Gradescope grades a student's upload (no loan): an honest upload scores full
    marks there, the control of the cheating upload's 0 below."""
    results = grade_in(as_for_students(installed), {str(SPEC_PATH.with_suffix("")): ROOT / "oracles" / "automaton"})
    assert [t["name"] for t in results["tests"]] == [*NAMES, visibility.STAFF_TEST]
    graded = results["tests"][:-1]
    assert all(t["status"] == "passed" and t["score"] == t["max_score"] == 2.0 for t in graded), results
    assert results["score"] == 32.0
    assert "graded module: python/tinyllm/infer/constrain" in results["output"]
    header = results["output"]   # what a student reads of the header: the policy line and the time budget
    assert "policy: default grading, ref-deps on" in header and "per submission (elapsed-time limit 540 s)" in header
    assert "time budget: 540 s of elapsed time for the submission's check and the student's own tests" in header
    assert "constrain-harness check:" not in header and "confinement:" not in header and "/tmp/" not in header
    staff = results["tests"][-1]   # the full header (check's own: the confinement) is the course staff's
    assert (staff["visibility"], staff["score"], staff["max_score"]) == ("hidden", 0.0, 0.0)
    assert "constrain-harness check:" in staff["output"] and "confinement:" in staff["output"]


@pytest.mark.e2e
def test_a_repository_in_the_specs_layout_imports_its_own_sampling_and_scores_full_marks(installed):
    # issue 50: constrain.py takes L8.1's sample from tinyllm.infer.sampling, the byte map from
    # ..tokenizer; without --ref-deps every test passes only when the upload's packages import.
    # Its python/tests/ suite is not graded here (grade_student_tests off: two thirds of this
    # test's CPU); the next test grades it, under -m slow
    repository = CANDIDATES / "spec_layout"
    results = grade_in(installed, {"README.md": repository / "README.md", "python": repository / "python"},
                       ref_deps=False, grade_student_tests=False)
    assert [t["name"] for t in results["tests"]] == [*NAMES, visibility.STAFF_TEST]
    assert all(t["status"] == "passed" and t["score"] == t["max_score"] for t in results["tests"][:-1]), results
    assert "graded module: python/tinyllm/infer/constrain.py" in results["output"]


@pytest.mark.e2e
@pytest.mark.slow
def test_in_the_bundle_the_repositorys_own_tests_are_graded_by_the_installed_grade_tests(installed):
    """The bundle's run_autograder runs the wheel's own grade-tests verb on the repository's
    python/tests/ suite and merges its results (the verb from a wheel: test_grade_tests_wheel;
    the merge: test_the_students_own_tests_are_graded_by_grade_tests_when_the_verb_exists)."""
    repository = CANDIDATES / "spec_layout"
    results = grade_in(installed, {"README.md": repository / "README.md", "python": repository / "python"},
                       ref_deps=False)
    theirs = [t for t in results["tests"] if t["name"] not in NAMES and t["name"] != visibility.STAFF_TEST]
    assert theirs and all(t["name"].startswith("your tests") for t in theirs), results["tests"]
    assert "your tests (python/tests/l8-7-constrain): not graded" not in results["output"], results["output"]


@pytest.mark.e2e
def test_a_wrong_candidate_loses_the_test_the_spec_names_and_sees_the_counterexample(installed):
    results = grade_in(installed, {"constrain.py": CANDIDATES / "wrong_numbering.py"})
    assert "graded module: constrain.py\n" in results["output"], results["output"]
    hand = by_name(results)["test_hand_example"]
    assert hand["score"] == 0.0 and hand["status"] == "failed" and hand["max_score"] == 2.0
    assert "edge 0 --b'c'--> differs from section 3" in hand["output"]            # hints full: the counterexample
    assert "hint: pitfall 3: numbering in another order (symptom: " in hand["output"]      # the diagnosis
    assert results["score"] == sum(t["score"] for t in results["tests"]) < 32.0


@pytest.mark.e2e
@pytest.mark.parametrize("files, expected", [
    pytest.param({}, "no constrain.py in the submission", id="missing"),
    pytest.param({"README.md": "my lab"}, "files seen: README.md", id="missing-with-other-files"),
    pytest.param({str(SPEC_PATH): "def regex_to_dfa(:\n"}, "SyntaxError in constrain.py line 1", id="syntax-error"),
    pytest.param({"a/constrain.py": "x = 1\n", "b/constrain.py": "x = 2\n"}, "2 files could be constrain.py",
                 id="ambiguous"),
    pytest.param({"constrain.py": CANDIDATES / "exits_on_import.py"}, "verdict: crashed, 0/16", id="exits-on-import"),
])
def test_a_submission_that_cannot_be_graded_still_gets_results_scoring_0_with_the_reason(installed, files, expected):
    results = grade_in(installed, files)
    assert results["score"] == 0.0 and all(t["score"] == 0.0 for t in results["tests"])
    assert expected in results["output"], results["output"]
    assert [t["name"] for t in results["tests"]] == [*NAMES, visibility.STAFF_TEST]


@pytest.mark.e2e
def test_a_submission_that_hangs_is_stopped_at_the_wall_and_scores_0(installed):
    # wall 3 s: check's two grader children start looping about 1 s in, each on a core until the wall stops the run
    # (their per-test limit, 3 CPU s, is not reached by then); this test costs about 2 CPU s per second of wall
    results = grade_in(installed, {"constrain.py": CANDIDATES / "loops_forever.py"}, wall=3, timeout=3)
    assert results["score"] == 0.0
    assert "timed out (elapsed-time limit 3 s): the whole check run was still going after 3 s" in results["output"]


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.parametrize("candidate, test", [
    ("wrong_eos_everywhere.py", "test_hand_example_masks"), ("wrong_dead_sink.py", "test_every_state_is_live"),
    ("wrong_ignores_keywords.py", "test_json_schema_rejects_keywords_outside_the_subset"),
    ("wrong_utf8_tokens.py", "test_vocab_bytes")])
def test_more_wrong_candidates_lose_their_test(installed, candidate, test):
    results = grade_in(installed, {"constrain.py": CANDIDATES / candidate})
    assert by_name(results)[test]["score"] == 0.0


@pytest.mark.e2e
def test_in_the_bundle_an_upload_importing_the_harness_gets_nothing_from_it(installed):
    """The bundle installs the harness as a wheel (its packages in site-packages, which the
    interpreter's binds hold whole): a student's sandbox there still holds its server only
    (``harness.sandbox.lending``). Graded as Gradescope does, with no loan in the environment,
    where an honest upload scores full marks (the control: the reference's own package as an
    upload, ``test_the_reference_as_a_package_in_the_specs_layout_scores_full_marks``; here until
    2026-12-07 a second grading, of the wheat copied as the upload). One upload tries both
    imports, each on its own (either one that found its module would bring every name: full
    marks), and loads (it failed, it did not crash); it was an upload a cheat, each crashing on
    its import (2.3 CPU s a grading)."""
    cheats = ("from oracles.automaton import *  # noqa: F401,F403",
              "from harness.grading.gradetests.wheats.fair_thompson_moore import *  # noqa: F401,F403")
    upload = "".join(f"try:\n    {cheat}\nexcept BaseException:\n    pass\n" for cheat in cheats)
    results = grade_in(as_for_students(installed), {"constrain.py": upload})
    assert results["score"] == 0.0, results["output"]
    assert "verdict: failed, 0/16" in results["output"], results["output"]   # it loaded: both imports were tried


@pytest.mark.e2e
@pytest.mark.slow
def test_a_correct_single_module_with_other_internals_scores_full_marks(installed):
    results = grade_in(installed, {"lab/constrain.py": WHEATS / "brzozowski.py"})
    assert results["score"] == 32.0, results["output"]


@pytest.mark.e2e
@pytest.mark.slow
def test_a_hang_under_the_per_test_timeout_costs_only_the_tests_that_hang(installed):
    results = grade_in(installed, {"constrain.py": CANDIDATES / "loops_forever.py"}, timeout=3)
    hand = by_name(results)["test_hand_example"]
    assert hand["score"] == 0.0 and hand["output"].startswith("TIMEOUT")


@pytest.mark.e2e
@pytest.mark.slow
def test_the_prairielearn_layout_gets_its_results(installed, tmp_path):
    root, env = installed
    (tmp_path / "student").mkdir()
    shutil.copy2(CANDIDATES / "wrong_numbering.py", tmp_path / "student" / "constrain.py")
    proc = subprocess.run([str(root / "venv" / "bin" / "python"), "-I", "-m", "harness.cli", "autograder", "run",
                           "--platform", "prairielearn", "--root", str(tmp_path)], env=env, capture_output=True,
                          text=True, cwd=root / "source", timeout=600)
    assert proc.returncode == 0, proc.stderr
    results = json.loads((tmp_path / "results" / "results.json").read_text())
    assert results["gradable"] is True and 0 < results["score"] < 1
    assert {t["name"]: t["points"] for t in results["tests"]}["test_hand_example"] == 0


# --------------------------------------------------------------------------- build options


def test_build_refuses_a_lab_check_cannot_grade_and_bad_settings(tmp_path):
    err = io.StringIO()
    assert main(["autograder", "build", "--out", str(tmp_path / "a.zip"), "--lab", "L10.9"], io.StringIO(),
                err) == ExitCode.USAGE
    assert "lab 'L10.9' cannot be graded by check" in err.getvalue()
    err = io.StringIO()
    assert main(["autograder", "build", "--out", str(tmp_path / "a.zip"), "--points", "0"], io.StringIO(),
                err) == ExitCode.USAGE
    assert "argument --points: 0 is not a score in (0, " in err.getvalue()  # checked when parsed
    assert not (tmp_path / "a.zip").exists()


@pytest.mark.e2e
def test_the_strict_tier_builds_now_that_check_has_strict(tmp_path, installed, monkeypatch):
    """The bundle's wheel is this source tree's whatever the tier: the one the module's bundle
    built (``installed``) is copied in, not built again (pip wheel, 1.5 CPU s)."""
    from harness.commands.autograder import _check_knows_strict

    root, _ = installed
    (built,) = (root / "source" / "wheels").glob("constrain_harness-*.whl")
    monkeypatch.setattr(bundle, "build_wheel", lambda out_dir, root=None: Path(shutil.copy2(built, out_dir)))
    assert _check_knows_strict()
    err = io.StringIO()
    code = main(["autograder", "build", "--out", str(tmp_path / "a.zip"), "--tier", "strict"], io.StringIO(), err)
    assert code == ExitCode.OK, err.getvalue()
    with zipfile.ZipFile(tmp_path / "a.zip") as z:
        assert json.loads(z.read(CONFIG_NAME))["tier"] == "strict"
        assert z.read(f"wheels/{built.name}") == built.read_bytes()


@pytest.mark.e2e
def test_the_strict_tier_costs_a_fair_reading_exactly_the_tests_of_its_departures(installed):
    """fair_postfix_numpy departs from seven contract decisions in six tests
    (tests/suite/test_fairness.py READINGS; vocab_bytes_token_list in test_vocab_bytes): full marks
    in the default tier, those six lost (each naming its decision) under the strict tier."""
    departures = {"test_matches_python_re", "test_unsupported_syntax_raises", "test_constraint_lifecycle",
                  "test_greedy_takes_the_best_allowed_token", "test_json_schema_rejects_keywords_outside_the_subset",
                  "test_vocab_bytes"}
    strict = grade_in(installed, {"constrain.py": WHEATS / "fair_postfix_numpy.py"}, tier="strict")
    lost = {name: t for name, t in by_name(strict).items() if t["score"] == 0.0 and t["max_score"] > 0}
    assert set(lost) == departures, {name: t["status"] for name, t in by_name(strict).items()}
    assert all("contract decision not met" in t["output"] for t in lost.values())
    assert strict["score"] == 32.0 - 2.0 * len(departures)


def test_the_settings_refuse_unknown_keys_and_wrong_types():
    with pytest.raises(ValueError, match="unknown autograder setting.*colour"):
        AutograderConfig.from_json({"colour": "red"})
    with pytest.raises(TypeError, match="must be a JSON object"):
        AutograderConfig.from_json([])
    with pytest.raises(ValueError, match="hints must be one of none, pitfall, full"):
        AutograderConfig(hints="all")


# --------------------------------------------------------------------------- locating the module


def _touch(folder: Path, *relatives: str, text: str = "x = 1\n") -> None:
    for relative in relatives:
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text)


def test_the_specs_place_wins_then_the_top_then_the_unique_one_anywhere(tmp_path):
    _touch(tmp_path, "repo/python/tinyllm/infer/constrain.py", "constrain.py", str(SPEC_PATH))
    assert locate_module(tmp_path) == tmp_path / SPEC_PATH
    (tmp_path / SPEC_PATH).unlink()
    assert locate_module(tmp_path) == tmp_path / "constrain.py"
    (tmp_path / "constrain.py").unlink()
    assert locate_module(tmp_path) == tmp_path / "repo/python/tinyllm/infer/constrain.py"


def test_a_package_counts_and_test_folders_and_links_do_not(tmp_path):
    _touch(tmp_path, "python/tests/l8-7-constrain/constrain.py", "tests/constrain.py", "pkg/constrain/__init__.py")
    assert locate_module(tmp_path) == tmp_path / "pkg" / "constrain"
    outside = tmp_path.parent / f"{tmp_path.name}-outside.py"
    outside.write_text("x = 1\n")
    shutil.rmtree(tmp_path / "pkg")
    (tmp_path / "constrain.py").symlink_to(outside)
    with pytest.raises(SubmissionError, match="no constrain.py in the submission"):
        locate_module(tmp_path)


def test_two_candidates_are_refused_with_both_paths(tmp_path):
    _touch(tmp_path, "a/constrain.py", "b/c/constrain.py")
    with pytest.raises(SubmissionError, match=r"2 files could be constrain.py.*a/constrain.py, b/c/constrain.py"):
        locate_module(tmp_path)


def test_syntax_is_checked_without_running_anything(tmp_path):
    _touch(tmp_path, "pkg/constrain/__init__.py", text="import os\nos._exit(3)\n")
    _touch(tmp_path, "pkg/constrain/parser.py", text="def f(:\n")
    assert syntax_problem(tmp_path / "pkg" / "constrain") == "SyntaxError in constrain/parser.py line 1: invalid syntax"
    assert syntax_problem(CANDIDATES / "exits_on_import.py") is None


# --------------------------------------------------------------------------- reading check's report


def _report(statuses: dict[str, str], exit_code: int = 1, **extra) -> dict:
    return {"exit_code": exit_code, "verdict": "failed", "counts": {},
            "tests": [{"name": n, "status": s, "reason": f"why {n}", "details": "counterexample"}
                      for n, s in statuses.items()], **extra}


def test_the_report_is_read_by_its_documented_fields_and_extra_fields_are_tolerated():
    statuses = {n: "passed" for n in NAMES} | {"test_apply_mask": "failed", "test_vocab_bytes": "skipped"}
    report = _report(statuses, notes=["contract decision not met: x"], tier="default",
                     confinement={"user": "nobody"})
    report["tests"][0]["notes"] = ["\x1b[32mPASS\x1b[0m looks green"]
    report["tests"][1]["outcome"] = report["tests"][1].pop("status")
    grade = _from_report(report, 1, "")
    assert grade.passed == 14 and grade.problem == "" and grade.verdict == "failed"
    assert grade.failed_tests == ["test_apply_mask", "test_vocab_bytes"]    # a skip is not a pass
    assert grade.notes == ("contract decision not met: x",)
    assert grade.tests[0].notes == ("\\x1b[32mPASS\\x1b[0m looks green",)    # escaped, cannot draw
    assert '"user": "nobody"' in grade.header


def test_a_test_the_report_omits_or_repeats_never_passes():
    statuses = {n: "passed" for n in NAMES[1:]}
    report = _report(statuses, exit_code=0)
    report["tests"].append({"name": NAMES[2], "status": "failed", "reason": "second run"})
    grade = _from_report(report, 0, "")
    assert grade.tests[0].status == "not reported" and grade.tests[2].status == "failed"
    assert grade.passed == 14


@pytest.mark.parametrize("extra, exit_code, reason", [
    ({"tamper": [{"test": "x", "changes": ["harness/grading/check.py"]}]}, 1, "tampered"),
    ({"integrity": ["golden/masks_golden.json changed; restored"]}, 1, "tampered"),
    ({"verdict": "tampered"}, 4, "tampered"),
    ({}, 9, "exit 9"),
])
def test_tampering_or_an_unknown_exit_code_scores_every_test_0(extra, exit_code, reason):
    grade = _from_report(_report({n: "passed" for n in NAMES}, exit_code, **extra), exit_code, "")
    assert reason in grade.problem and grade.passed == 0
    results = valid(gradescope.to_results(grade))
    assert results["score"] == 0.0 and all(t["status"] == "failed" for t in results["tests"])


@pytest.mark.e2e  # starts processes
def test_check_without_a_report_is_a_grader_error_not_a_pass(tmp_path):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'usage: constrain-harness check: unrecognized arguments: --strict' >&2\nexit 2\n")
    fake.chmod(0o755)
    (tmp_path / "constrain.py").write_text("x = 1\n")
    grade = grade_module(tmp_path / "constrain.py", GradeOptions(python=str(fake), tier="strict"))
    assert grade.verdict == "grader error" and grade.passed == 0
    assert "unrecognized arguments: --strict" in grade.problem


def test_printable_escapes_control_characters_and_bounds_length():
    assert printable("ok\tline\n\x1b[2Kfake\rPASS\x00") == "ok\tline\n\\x1b[2Kfake\\x0dPASS\\x00"
    clipped = printable("a" * 10_000, 100)
    assert len(clipped) < 200 and "characters cut" in clipped


# --------------------------------------------------------------------------- results formats


def _grade(**statuses) -> Grade:
    tests = tuple(TestOutcome(n, statuses.get(n, "passed"), reason="why" if n in statuses else "",
                              details="  pattern:  'the counterexample'", pitfalls="4. EOS allowed everywhere (s05)")
                  for n in NAMES)
    return Grade("failed" if statuses else "passed", tests, exit_code=1 if statuses else 0, seconds=3.0,
                 header="constrain-harness check: x\nlimits: 60 s", module="constrain.py")


def test_points_are_split_evenly_and_the_score_is_the_sum():
    results = valid(gradescope.to_results(_grade(test_apply_mask="failed"), points=10))
    assert {t["max_score"] for t in results["tests"]} == {0.625}
    assert results["score"] == 9.375
    assert by_name(results)["test_apply_mask"]["status"] == "failed"


@pytest.mark.parametrize("hints, shown, hidden", [
    ("none", ["FAILED"], ["why", "counterexample", "pitfall"]),
    ("pitfall", ["FAILED: why", "hint: this test catches the spec's pitfall 4."], ["counterexample"]),
    ("full", ["FAILED: why", "the counterexample", "hint: this test catches the spec's pitfall 4."], []),
])
def test_the_hint_level_decides_what_a_failed_test_shows(hints, shown, hidden):
    output = by_name(gradescope.to_results(_grade(test_apply_mask="failed"), hints=hints))["test_apply_mask"]["output"]
    assert all(s in output for s in shown) and not any(h in output for h in hidden), output


def test_the_schema_is_a_valid_schema_and_rejects_what_gradescope_would():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    good = gradescope.to_results(_grade())
    for broken in ({**good, "visibility": "public"}, {"tests": [{"name": "x"}]},
                   {**good, "tests": [{**good["tests"][0], "status": "ok"}]}, {**good, "scroe": 1}):
        with pytest.raises(ValueError):
            gradescope.validate(broken)
    gradescope.validate({"tests": [{"name": "x", "score": 1}]})  # a score on every test is enough


def test_prairielearn_results_are_a_fraction_and_ungradable_uploads_say_why():
    results = prairielearn.to_pl_results(_grade(test_apply_mask="failed", test_vocab_bytes="timeout"))
    assert results["gradable"] is True and results["score"] == 0.875
    assert {t["name"]: t["points"] for t in results["tests"]}["test_vocab_bytes"] == 0
    missing = Grade("no submission", _grade().tests, problem="no constrain.py in the submission")
    results = prairielearn.to_pl_results(missing)
    assert results["gradable"] is False and results["score"] == 0 and "no constrain.py" in results["message"]


# --------------------------------------------------------------------------- the runner


@pytest.mark.e2e
def test_the_runner_writes_results_even_when_the_grader_itself_fails(tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(runner, "grade_submission", broken)
    assert runner.run(tmp_path, log=io.StringIO()) == 0
    results = valid(json.loads((tmp_path / "results" / "results.json").read_text()))
    assert results["score"] == 0.0 and "RuntimeError: disk on fire" in results["output"]


FAKE_GRADE_TESTS = """
import json, sys
args = sys.argv[1:]
if args[:2] == ["grade-tests", "--help"]:
    sys.exit(0)
out = args[args.index("--gradescope") + 1]
json.dump({"score": 3.0, "output": "3 of 4 chaffs caught", "tests": [
    {"name": "chaff group s01-s08", "score": 3.0, "max_score": 4.0, "output": "hint \\x1b[31m", "bogus": 1}]},
    open(out, "w"))
"""


@pytest.mark.e2e  # starts processes
def test_the_students_own_tests_are_graded_by_grade_tests_when_the_verb_exists(tmp_path, monkeypatch):
    fake = tmp_path / "fake_cli.py"
    fake.write_text(FAKE_GRADE_TESTS)
    (tmp_path / "submission" / runner.STUDENT_TESTS).mkdir(parents=True)
    theirs = runner.grade_student_tests(tmp_path / "submission" / runner.STUDENT_TESTS, "none",
                                        cli=[sys.executable, str(fake)])
    merged = valid(gradescope.merge_results(gradescope.to_results(_grade(), points=16), theirs))
    assert merged["score"] == 19.0 and len(merged["tests"]) == 17
    assert merged["tests"][-1]["name"] == "your tests: chaff group s01-s08"
    assert "bogus" not in merged["tests"][-1] and "\\x1b" in merged["tests"][-1]["output"]
    absent = tmp_path / "no_verb.py"
    absent.write_text("import sys; sys.exit(2)\n")
    assert runner.grade_student_tests(tmp_path, "none", cli=[sys.executable, str(absent)]) == \
        "this constrain-harness has no grade-tests verb"


def test_the_sample_results_in_the_docs_validate_and_add_up():
    sample = valid(json.loads((ROOT / "docs" / "sample_results.json").read_text()))
    assert sample["score"] == sum(t["score"] for t in sample["tests"])
    assert [t["name"] for t in sample["tests"]] == [*NAMES, visibility.STAFF_TEST]
    assert "confinement" not in sample["output"] and "confinement" in sample["tests"][-1]["output"]


@pytest.mark.e2e
def test_run_autograder_leaves_results_even_when_the_grader_cannot_start(tmp_path):
    (tmp_path / "source").mkdir()
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "results.json").write_text('{"score": 16}')   # planted: must not survive
    script = Path(runner.__file__).parent / "templates" / "run_autograder"
    proc = subprocess.run(["bash", str(script)], env={**os.environ, runner.ROOT_ENV: str(tmp_path)},
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    results = valid(json.loads((tmp_path / "results" / "results.json").read_text()))
    assert results["score"] == 0 and "stopped before it could grade (exit 127)" in results["output"]


@pytest.mark.e2e
@pytest.mark.parametrize("platform, config_dir, submission", [("gradescope", "source", "submission"),
                                                              ("prairielearn", "serverFilesCourse", "student")])
def test_the_runner_reads_the_bundles_settings_and_the_platforms_layout(tmp_path, monkeypatch, platform,
                                                                        config_dir, submission):
    (tmp_path / config_dir).mkdir()
    (tmp_path / config_dir / CONFIG_NAME).write_text(json.dumps({"points": 8, "hints": "none"}))
    graded = []

    def fake_grade(folder, options):
        graded.append(folder)
        return _grade(test_apply_mask="failed")

    monkeypatch.setattr(runner, "grade_submission", fake_grade)
    assert runner.run(tmp_path, platform=platform, log=io.StringIO()) == 0
    assert graded == [tmp_path / submission]
    results = json.loads((tmp_path / "results" / "results.json").read_text())
    if platform == "gradescope":
        assert valid(results)["score"] == 7.5 and by_name(results)["test_apply_mask"]["output"] == "FAILED"
    else:
        assert results["gradable"] is True and results["score"] == 0.9375
