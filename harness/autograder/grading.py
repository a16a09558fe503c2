"""Grade one submission by running ``constrain-harness check`` on it as a black box.

Every submission is graded by a fresh ``python -m harness.cli check --impl MODULE --json
REPORT`` process (the same Python as the caller), so each one runs in check's own
confined run, and this module depends only on the documented fields of check's JSON
report (``harness/reports.py``): ``tests[].name``, ``tests[].status`` (or ``outcome``),
``tests[].reason``, ``details``, ``pitfalls``, ``counts``, ``verdict``, ``exit_code``,
and tolerates any other field (notes, tier, the confinement header).

``grade_submission(folder, options)`` locates the module (``harness.autograder.locate``),
refuses a syntax error without running anything, runs check, and returns a ``Grade``:

- ``tests``: one ``TestOutcome`` per catalogue test, in the seed's order, always all of
  them (a test the run did not report is ``not reported`` and scores 0), then any extra
  test the report names;
- ``problem``: non-empty when every test scores 0 whatever the statuses say (no module,
  syntax error, no report, the run timed out as a whole, tampering found, an exit code
  this version does not know), with the one-line reason a student reads;
- a test earns its point only when its status is ``passed`` and ``problem`` is empty: a
  skip, an error, a crash or a timeout never passes (no false pass).

Guarantees: it never raises for anything the submission does (a missing file, a hang, a
flood of output, a crash of check itself all come back as a ``Grade``); the whole run is
bounded by ``GradeOptions.wall`` seconds and the output kept is bounded by
``OUTPUT_LIMIT`` characters; everything taken from the run is shown with control
characters escaped (``printable``).

Example::

    >>> grade = grade_submission(Path("/autograder/submission"), GradeOptions(timeout=30))
    >>> grade.verdict, grade.passed, len(grade.tests)
    ('passed', 16, 16)
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

from harness.autograder.locate import SubmissionError, locate_module, syntax_problem
from harness.exitcodes import ExitCode
from harness.sandbox import isolated
from harness.sandbox.client import kill_group
from harness.suite.catalogue import BY_NAME, NAMES

__all__ = ["GradeOptions", "TestOutcome", "Grade", "grade_submission", "grade_module", "printable",
           "stop_all_runs", "OUTPUT_LIMIT", "TIERS"]

TIERS = ("default", "strict")
OUTPUT_LIMIT = 8_000     # characters of check's terminal output kept (its head and tail)
_FIELD_LIMIT = 4_000     # characters kept of one test's reason + details
# check's exit code (harness.exitcodes, the one table) -> the verdict Gradescope shows; any other
# code (TAMPERED, a signal) scores every test 0
_EXIT_VERDICTS = {ExitCode.OK: "passed", ExitCode.FAILED: "failed", ExitCode.USAGE: "contract error",
                  ExitCode.CRASHED: "crashed"}


@dataclass(frozen=True)
class GradeOptions:
    """How check is run for every submission.

    ``timeout`` and ``memory`` are check's per-test limits; ``wall`` bounds one whole
    run (default: every test at its timeout, plus two minutes of start-up)."""

    tier: str = "default"
    ref_deps: bool = True
    timeout: float = 60.0
    memory: int = 2048
    wall: float | None = None
    python: str = sys.executable

    def __post_init__(self):
        if self.tier not in TIERS:
            raise ValueError(f"tier must be one of {', '.join(TIERS)}, not {self.tier!r}")
        if not self.timeout > 0 or self.memory < 256:
            raise ValueError(f"timeout must be > 0 and memory at least 256 MB (got {self.timeout}, {self.memory})")

    @property
    def wall_seconds(self) -> float:
        return self.wall if self.wall is not None else len(NAMES) * self.timeout + 120.0

    def check_args(self) -> list[str]:
        args = ["--timeout", f"{self.timeout:g}", "--memory", str(self.memory)]
        ref_deps = ["--ref-deps"] if self.ref_deps else ["--no-ref-deps"]  # check's default is the policy's (on)
        return args + ref_deps + (["--strict"] if self.tier == "strict" else [])


@dataclass(frozen=True)
class TestOutcome:
    __test__ = False     # not a pytest test class
    name: str
    status: str          # check's status, or "not reported" / "not run"
    reason: str = ""     # one line
    details: str = ""    # the counterexample
    pitfalls: str = ""   # the seed's pitfall(s) this test catches
    notes: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return self.status == "passed"


@dataclass(frozen=True)
class Grade:
    verdict: str
    tests: tuple[TestOutcome, ...]
    problem: str = ""
    exit_code: int | None = None
    header: str = ""
    notes: tuple[str, ...] = ()
    output: str = ""
    seconds: float = 0.0
    module: str = ""      # the graded module, relative to the submission

    @property
    def passed(self) -> int:
        return 0 if self.problem else sum(t.passed for t in self.tests)

    @property
    def failed_tests(self) -> list[str]:
        return [t.name for t in self.tests if self.problem or not t.passed]


def printable(text: object, limit: int | None = None) -> str:
    """``text`` with every control character but newline and tab escaped (``\\x1b``), so
    nothing a candidate prints can draw a fake row; clipped in the middle to ``limit``."""
    text = re.sub(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", lambda m: f"\\x{ord(m.group()):02x}", str(text))
    if limit is not None and len(text) > limit:
        half = limit // 2
        text = f"{text[:half]}\n... ({len(text) - limit} characters cut) ...\n{text[-half:]}"
    return text


def _unrun(status: str, reason: str) -> tuple[TestOutcome, ...]:
    return tuple(TestOutcome(name, status, reason, pitfalls=BY_NAME[name].pitfalls) for name in NAMES)


def _refused(verdict: str, problem: str, module: str = "") -> Grade:
    return Grade(verdict, _unrun("not run", problem), problem=problem, module=module)


# --------------------------------------------------------------------------- entry points


def grade_submission(folder: Path, options: GradeOptions = GradeOptions()) -> Grade:
    """Locate the module in a submission folder and grade it (see the module docstring)."""
    start = time.monotonic()
    try:
        module = locate_module(Path(folder))
    except SubmissionError as exc:
        return _refused("no submission", printable(exc))
    grade = grade_module(module, options)
    relative = str(module.relative_to(folder)) if Path(folder) in module.parents else str(module)
    return replace(grade, module=relative, seconds=time.monotonic() - start)


def grade_module(module: Path, options: GradeOptions = GradeOptions()) -> Grade:
    """Grade a ``.py`` file or package folder: syntax first, then the black-box check."""
    start = time.monotonic()
    problem = syntax_problem(Path(module))
    if problem:
        return replace(_refused("syntax error", printable(problem), module=Path(module).name),
                       seconds=time.monotonic() - start)
    with tempfile.TemporaryDirectory(prefix="constrain-harness-grade-") as scratch:
        grade = _run_check(Path(module), options, Path(scratch))
    return replace(grade, module=Path(module).name, seconds=time.monotonic() - start)


# --------------------------------------------------------------------------- the check run


def _run_check(module: Path, options: GradeOptions, scratch: Path) -> Grade:
    report_path, log_path = scratch / "report.json", scratch / "check.log"
    # isolated (harness.sandbox.isolated): the submission's folder, the current one and the
    # user's PYTHONPATH are never on the grader's path
    command = isolated.command("harness.cli", "check", "--impl", str(module.resolve()), "--json", str(report_path),
                               *options.check_args(), python=options.python)
    with open(log_path, "wb") as log:
        exit_code, timed_out = _run_bounded(command, log, scratch, options.wall_seconds)
    output = printable(_read_bounded(log_path), OUTPUT_LIMIT)
    if timed_out:
        return Grade("timed out", _unrun("not run", "the run was stopped"), exit_code=None, output=output,
                     problem=f"the whole run took longer than {options.wall_seconds:g} s and was stopped")
    try:
        report = json.loads(report_path.read_text(encoding="utf-8"))
        if not isinstance(report, dict):
            raise ValueError("the report is not a JSON object")
    except (OSError, ValueError) as exc:
        tail = " | ".join(output.strip().splitlines()[-3:])
        return Grade("grader error", _unrun("not run", "check wrote no report"), exit_code=exit_code,
                     output=output, problem=f"check exited {exit_code} without a readable report "
                                            f"({type(exc).__name__}); its last lines: {tail}")
    return _from_report(report, exit_code, output)


# The check runs in progress (several at once under check --batch --jobs N), so that an
# interrupted batch ends them all: they run in their own sessions and never see Ctrl-C.
_RUNNING: set[subprocess.Popen] = set()
_RUNNING_LOCK = threading.Lock()


def _run_bounded(command: list[str], log, cwd: Path, wall: float) -> tuple[int | None, bool]:
    """Run ``command`` in its own session with output to ``log``; kill its whole process
    group after ``wall`` seconds. Returns (exit code, timed out)."""
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                            cwd=cwd, start_new_session=True, env=isolated.environment())
    with _RUNNING_LOCK:
        _RUNNING.add(proc)
    try:
        return proc.wait(timeout=wall), False
    except subprocess.TimeoutExpired:
        return None, True
    finally:  # also ends what the run left behind in its session
        kill_group(proc)
        with _RUNNING_LOCK:
            _RUNNING.discard(proc)


def stop_all_runs() -> None:
    """Kill every check run in progress (and its process group): Ctrl-C of a batch."""
    with _RUNNING_LOCK:
        running = list(_RUNNING)
    for proc in running:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _read_bounded(path: Path) -> str:
    """The head and tail of a log (at most ``OUTPUT_LIMIT`` characters each side read)."""
    with open(path, "rb") as f:
        size = f.seek(0, os.SEEK_END)
        f.seek(0)
        if size <= 2 * OUTPUT_LIMIT:
            return f.read().decode("utf-8", "replace")
        head = f.read(OUTPUT_LIMIT)
        f.seek(size - OUTPUT_LIMIT)
        return (head + b"\n...\n" + f.read()).decode("utf-8", "replace")


# --------------------------------------------------------------------------- reading the report


def _from_report(report: dict, exit_code: int | None, output: str) -> Grade:
    reported = _reported_tests(report)
    tests = [reported.pop(name, None) or TestOutcome(name, "not reported", "the run did not report this test",
                                                     pitfalls=BY_NAME[name].pitfalls) for name in NAMES]
    tests += reported.values()  # extra tests a later check may add
    verdict = _EXIT_VERDICTS.get(exit_code, printable(report.get("verdict") or f"exit {exit_code}", 80))
    notes = tuple(printable(n, 500) for n in _as_list(report.get("notes")))
    return Grade(verdict, tuple(tests), problem=_zero_reason(report, exit_code, verdict), exit_code=exit_code,
                 header=_header(report, output), notes=notes, output=output)


def _reported_tests(report: dict) -> dict[str, TestOutcome]:
    """name -> outcome; a name reported twice keeps its worse outcome (never a pass)."""
    tests: dict[str, TestOutcome] = {}
    for raw in report.get("tests") or []:
        if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
            continue
        status = str(raw.get("status") or raw.get("outcome") or "not reported")
        outcome = TestOutcome(printable(raw["name"], 200), printable(status, 40),
                              reason=printable(raw.get("reason") or "", 500),
                              details=printable(raw.get("details") or "", _FIELD_LIMIT),
                              pitfalls=printable(raw.get("pitfalls") or "", 500),
                              notes=tuple(printable(n, 500) for n in _as_list(raw.get("notes"))))
        previous = tests.get(outcome.name)
        if previous is None or previous.passed:
            tests[outcome.name] = outcome
    return tests


def _zero_reason(report: dict, exit_code: int | None, verdict: str) -> str:
    if report.get("tamper") or report.get("integrity") or "tamper" in str(report.get("verdict", "")).lower():
        return "the candidate tampered with the grader or its files: every test scores 0"
    if exit_code not in _EXIT_VERDICTS:
        return f"the run ended with {verdict!r} (exit {exit_code}): every test scores 0"
    return ""


def _header(report: dict, output: str) -> str:
    """The run's header: a header field if check writes one, else its first lines
    (candidate, limits, isolation/confinement) up to the first blank line."""
    for key in ("header", "confinement"):
        if report.get(key):
            value = report[key]
            return printable(value if isinstance(value, str) else json.dumps(value, indent=1), 2000)
    head = output.split("\n\n", 1)[0]
    return printable(head, 2000)


def _as_list(value) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]
