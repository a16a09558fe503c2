"""What ``run_autograder`` does inside the grading container: grade the submission and
always leave a results file.

Gradescope layout (``root`` = ``/autograder``, or ``$CONSTRAIN_HARNESS_AUTOGRADER_ROOT``)::

    root/source/constrain-harness-autograder.json   the bundle's settings (config.py)
    root/submission/                                the student's upload
    root/results/results.json                       written here

PrairieLearn layout (``root`` = ``/grade``): ``root/student/`` in, ``root/results/results.json``
out (``harness.grading.autograder.prairielearn``).

The run seed: a keyed hash of the upload under the bundle's course secret
(``take_course_secret``; ``harness.suite.seeding.course_seed``), passed to check as ``--seed``,
and of the student's own tests under it, passed to grade-tests as ``--seed``; the secret never
reaches check, grade-tests, the candidate or results.json, and the seeds are in hidden tests
only (the staff's header; grade-tests' ``policy.SEED_TEST``): a student reads
``policy.SEED_KEPT`` in their place.

Steps: locate and grade the module with the confined check (``grading.grade_submission``);
then, when the student's graded tests (``python/tests/l8-7-constrain/``) are in the upload
and this installation has the ``grade-tests`` verb (detected at run time:
``constrain-harness grade-tests --help`` exits 0), grade them too and merge their
Gradescope results (their tests appended, their score added); last, set Gradescope's
visibility of the results and of each test and append the course staff's hidden test
with the full run header (``harness.grading.autograder.visibility``).

One time budget (``config.wall``, ``harness.policy``'s ``run_budget_seconds``: 540 s,
Gradescope's 10 minutes less a margin) covers both steps: the check's wall backstop is at
most the budget, the student's tests get what it left (as wall time and as grade-tests'
CPU ``--budget``, at most ``suite_cpu_seconds``), and are not started with less than
``MIN_STUDENT_TESTS_SECONDS`` left; the header states the budget.

Guarantee: ``run`` writes a results file that validates against the platform's format
whatever happens, a missing file, a syntax error, a crash or a hang of the submission,
or an exception in the grader itself (then score 0 with the reason); it returns 0 when
a file was written.

Example::

    >>> run(Path("/autograder"), platform="gradescope")
    0
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import replace
from pathlib import Path

from harness.grading.autograder import gradescope, prairielearn, visibility
from harness.grading.autograder.bounded import run_bounded
from harness.grading.autograder.config import CONFIG_NAME, SECRET_NAME, AutograderConfig
from harness.grading.autograder.grading import Grade, grade_submission, printable
from harness.grading.gradetests.limits import RUN_CPU_SECONDS
from harness.policy import POLICY
from harness.sandbox import isolated

__all__ = ["run", "refuse", "ROOT_ENV", "PLATFORMS", "default_root", "grade_student_tests", "STUDENT_TESTS"]

ROOT_ENV = "CONSTRAIN_HARNESS_AUTOGRADER_ROOT"
PLATFORMS = {"gradescope": ("/autograder", "submission"), "prairielearn": ("/grade", "student")}
STUDENT_TESTS = Path("python", "tests", "l8-7-constrain")   # the spec's place for graded tests (rung R5)
MIN_STUDENT_TESTS_SECONDS = 30.0   # of the budget left after the check, needed to start grade-tests at all
_GRADE_TESTS_JOBS = 2              # grade-tests' default --jobs: its tree may burn this many CPU s per second


def default_root(platform: str) -> Path:
    return Path(os.environ.get(ROOT_ENV) or PLATFORMS[platform][0])


def run(root: Path, platform: str = "gradescope", config: AutograderConfig | None = None,
        log=sys.stderr) -> int:
    if platform not in PLATFORMS:
        raise ValueError(f"platform must be one of {', '.join(PLATFORMS)}, not {platform!r}")
    results_path = Path(root) / "results" / "results.json"
    start = time.monotonic()   # the one time budget (config.wall) counts from here
    try:
        config = config or _read_config(Path(root))
        options = replace(config.grade_options(), course_secret=take_course_secret(Path(root), log))
        grade = grade_submission(Path(root) / PLATFORMS[platform][1], options)
        results = _results(grade, platform, config, Path(root) / PLATFORMS[platform][1], start, log,
                           options.course_secret)
    except Exception as exc:  # the grader's own failure: still a file, score 0, the reason
        print(traceback.format_exc(), file=log)
        results = _failure(platform, f"the autograder failed ({type(exc).__name__}: {exc}); "
                                     f"this is not your fault: tell the course staff")
    _write(results, results_path, platform)
    print(f"wrote {results_path}: score {results['score']}", file=log)
    return 0


def refuse(root: Path, platform: str, message: str) -> None:
    """Leave a results file scoring 0 with ``message`` (no confinement: nothing was graded)."""
    _write(_failure(platform, message), Path(root) / "results" / "results.json", platform)


def take_course_secret(root: Path, log=sys.stderr) -> str | None:
    """The bundle's course secret (``config.SECRET_NAME`` beside its settings), its file first made
    readable by its owner alone (the container's root; a candidate runs as ``nobody``, in a sandbox
    whose root does not hold this folder anyway). None, said in the staff's log, for a bundle built
    without one: the run seed is then the public ``submission_seed``. A file that is not a secret
    raises ValueError (the course staff's to fix; the student's score is 0 with that reason)."""
    from harness.suite.seeding import check_course_secret

    for path in (root / "source" / SECRET_NAME, root / "serverFilesCourse" / SECRET_NAME):
        if path.is_file() and not path.is_symlink():
            with contextlib.suppress(OSError):   # a read-only mount: already not the candidate's
                path.chmod(0o400)
            text = path.read_text(encoding="ascii", errors="replace").strip()
            try:
                return check_course_secret(text)
            except ValueError as exc:
                raise ValueError(f"the bundle's {SECRET_NAME} is unusable: {exc}") from None
    print(f"note: no {SECRET_NAME} in this bundle: the run seed is the submission's public one "
          f"(rebuild the bundle with this version)", file=log)
    return None


def _read_config(root: Path) -> AutograderConfig:
    for path in (root / "source" / CONFIG_NAME, root / "serverFilesCourse" / CONFIG_NAME):
        if path.is_file():
            return AutograderConfig.read(path)
    return AutograderConfig()


def _results(grade: Grade, platform: str, config: AutograderConfig, submission: Path, start: float,
             log=sys.stderr, course_secret: str | None = None) -> dict:
    title = f"constrain-harness {config.version} autograder, lab {config.lab}, tier {config.tier}, " \
            f"hints {config.hints}"
    if platform == "prairielearn":   # the student reads the header's student lines; the full one is the log's
        print(visibility.staff_header(grade, title), file=log)
        return prairielearn.to_pl_results(grade, hints=config.hints)
    grade = replace(grade, header=f"{grade.header}\n{POLICY.budget_line(config.wall)}")
    print(visibility.staff_header(grade, title), file=log)   # the instructors' log (stdout_visibility hidden)
    results = gradescope.to_results(grade, points=config.points, hints=config.hints, title=title)
    tests_dir = submission / STUDENT_TESTS
    if config.grade_student_tests and tests_dir.is_dir() and not tests_dir.is_symlink():
        left = config.wall - (time.monotonic() - start)
        if left >= MIN_STUDENT_TESTS_SECONDS:
            theirs = grade_student_tests(tests_dir, config.hints, wall=left, seed=_suite_seed(course_secret, tests_dir))
        else:
            theirs = (f"the time budget of {config.wall:g} s ran out: grading your module left {max(0.0, left):.0f} s, "
                      f"and your tests need at least {MIN_STUDENT_TESTS_SECONDS:g}")
        if isinstance(theirs, dict):
            merged = gradescope.merge_results(results, theirs)
            try:
                gradescope.validate(merged)
                results = merged
            except ValueError as exc:
                theirs = f"grade-tests wrote results this version cannot merge ({exc})"
        if not isinstance(theirs, dict):
            results["output"] += f"\n\nyour tests ({STUDENT_TESTS}): not graded: {theirs}"
    return visibility.finish(results, grade, config.visibility_settings(), title)


def _suite_seed(course_secret: str | None, tests_dir: Path) -> int | None:
    """grade-tests' run seed for the student's suite: keyed by the bundle's course secret
    (``course_seed`` over the suite's files), else None (grade-tests' public ``suite_seed``)."""
    if course_secret is None:
        return None
    from harness.suite.seeding import course_seed

    return course_seed(course_secret, str(tests_dir))


def grade_student_tests(tests_dir: Path, hints: str, cli: list[str] | None = None,
                        wall: float = POLICY.run_budget_seconds, seed: int | None = None) -> dict | str:
    """The Gradescope results of ``grade-tests`` on the student's suite, or why there are
    none (the verb is missing from this version, it failed, it wrote nothing, ``wall``
    seconds of wall time passed). ``wall`` is what the run's time budget has left: it is
    also grade-tests' CPU ``--budget`` (at most the policy's ``suite_cpu_seconds``), so
    grade-tests stops starting runs in time and reports the chaffs it could not run. Its
    whole process tree is stopped at ``wall`` (``bounded.run_bounded``: nothing is left).
    ``seed``: its ``--seed`` (the course's keyed one, ``_suite_seed``), which its results
    hold in a hidden test only (``policy.SEED_TEST``)."""
    cli = cli or isolated.command("harness.cli")  # the grader's path: nothing of the upload or the cwd
    deadline = time.monotonic() + wall
    budget = min(POLICY.suite_cpu_seconds, wall)
    try:
        probe = subprocess.run([*cli, "grade-tests", "--help"], capture_output=True,
                               timeout=min(POLICY.startup_cpu_seconds, wall), env=isolated.environment())
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"cannot start grade-tests: {exc}"
    if probe.returncode != 0:
        return "this constrain-harness has no grade-tests verb"
    with tempfile.TemporaryDirectory(prefix="constrain-harness-grade-tests-") as scratch:
        out, log_path = Path(scratch) / "results.json", Path(scratch) / "grade-tests.log"
        command = [*cli, "grade-tests", str(tests_dir), "--hints", hints, "--gradescope", str(out),
                   "--budget", f"{budget:g}", "--timeout", f"{min(RUN_CPU_SECONDS, budget):g}"] \
            + ([] if seed is None else ["--seed", str(seed)])
        with open(log_path, "wb") as log:   # CPU: grade-tests' --budget bounds it; this is the tree's backstop
            outcome = run_bounded(command, log, Path(scratch),
                                  cpu_limit=_GRADE_TESTS_JOBS * budget + POLICY.startup_cpu_seconds,
                                  wall_limit=max(1.0, deadline - time.monotonic()), env=isolated.environment())
        if outcome.stopped:
            return f"grade-tests took longer than the {wall:.0f} s left of the time budget, and was stopped"
        try:
            doc = json.loads(out.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            tail = printable(log_path.read_bytes()[-400:].decode("utf-8", "replace"))
            if seed is not None:   # its printout names the seed, which the student must not read
                tail = tail.replace(str(seed), "(kept by the course staff)")
            return f"grade-tests exited {outcome.exit_code} without results: {tail}"
    return doc if isinstance(doc, dict) else "grade-tests wrote something other than a JSON object"


def _failure(platform: str, message: str) -> dict:
    if platform == "prairielearn":
        return {"gradable": False, "score": 0.0, "message": printable(message, 2000), "tests": []}
    return gradescope.failure_results(message)


def _write(results: dict, path: Path, platform: str) -> None:
    if platform == "gradescope":
        try:
            gradescope.write_results(results, path)
            return
        except ValueError as exc:  # our own bug: say so rather than write an invalid file
            results = gradescope.failure_results(f"the autograder produced invalid results ({exc}); "
                                                 f"tell the course staff")
            gradescope.write_results(results, path)
            return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1, allow_nan=False) + "\n", encoding="utf-8")
