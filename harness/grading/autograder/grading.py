"""Grade one submission by running ``constrain-harness check`` on it as a black box.

Every submission is graded by a fresh ``harness.commands.check_entry --impl MODULE --json
REPORT`` process (``constrain-harness check`` itself, started without the other verbs, see
``check_entry``; the same Python as the caller, isolated by ``harness.sandbox.isolated``: no
current folder, no ``PYTHONPATH``, no user site), so each one runs in check's own confined run,
on a private copy of the submission (``harness.intake``: regular files only,
bounded), and this module depends only on the documented fields of check's JSON
report (``harness/grading/report.py``): ``tests[].name``, ``tests[].status`` (or ``outcome``),
``tests[].reason``, ``details``, ``pitfalls``, ``counts``, ``verdict``, ``exit_code``,
and tolerates any other field (notes, tier, the confinement header).

``grade_submission(path, options)`` copies the submission (a folder, or one ``.py`` file)
into a folder of its own, locates the module there (``harness.grading.autograder.locate``),
refuses a syntax error without running anything, runs check under the per-submission
limit (``harness.grading.autograder.bounded``), and returns a ``Grade``:

- ``tests``: one ``TestOutcome`` per catalogue test, in the spec's order, always all of
  them (a test the run did not report is ``not reported`` and scores 0), then any extra
  test the report names;
- ``problem``: non-empty when every test scores 0 whatever the statuses say (no module,
  syntax error, no report, the run stopped at the per-submission limit, tampering found,
  an exit code this version does not know), with the one-line reason a student reads;
- ``verdict``: ``passed``, ``failed``, ``contract error``, ``crashed``, ``timed out`` (a test
  or the load timed out and nothing crashed; or the whole run reached the per-submission
  limit: ``problem`` then starts "timed out (540 CPU s)" or "timed out (wall backstop
  5400 s)"), ``tampered`` and the refusals ``no submission``, ``syntax error``, ``grader
  error``: the same words in the batch, Gradescope and PrairieLearn;
- a test earns its point only when its status is ``passed`` and ``problem`` is empty: a
  skip, an error, a crash or a timeout never passes (no false pass).

Guarantees: it never raises for anything the submission does (a missing file, a hang, a
flood of output, a crash of check itself all come back as a ``Grade``); the whole run is
bounded by ``GradeOptions.submission_cpu`` CPU seconds of its process tree and
``GradeOptions.wall_seconds`` of wall time (the backstop: a run it stops while the load
average exceeds the cores is run once more before the verdict stands, unless ``wall`` was
given: a platform's budget, such as the autograder's, is never run past), the output kept by
``OUTPUT_LIMIT`` characters; everything taken from the run is shown with control
characters escaped (``printable``), and file names with ``display_name``.

The defaults are the grading policy's (``harness.policy.POLICY``): the same for
``check``, ``check --batch`` and ``autograder run``; ``GradeOptions.header()`` is the line
each prints.

Example::

    >>> grade = grade_submission(Path("/autograder/submission"), GradeOptions(timeout=30))
    >>> grade.verdict, grade.passed, len(grade.tests)
    ('passed', 16, 16)
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import time
import unicodedata
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from harness.exitcodes import ExitCode
from harness.grading.autograder.bounded import ClassBudget, run_bounded, stop_all_runs
from harness.grading.autograder.locate import SubmissionError, locate_module, syntax_problem
from harness.intake import FILE_MODULE_NAME, IntakeError, copy_submission
from harness.policy import POLICY, TIERS, GradingPolicy
from harness.sandbox import isolated
from harness.sandbox.cputime import machine_loaded
from harness.seconds import check_seconds
from harness.suite.catalogue import BY_NAME, NAMES

__all__ = ["GradeOptions", "TestOutcome", "Grade", "grade_submission", "grade_module", "printable", "display_name",
           "stop_all_runs", "ClassLimitReached", "OUTPUT_LIMIT", "TIERS"]

CHECK_ENTRY = "harness.commands.check_entry"   # exactly `constrain-harness check`, started without the other verbs
OUTPUT_LIMIT = 8_000     # characters of check's terminal output kept (its head and tail)
_FIELD_LIMIT = 4_000     # characters kept of one test's reason + details
# check's exit code (harness.exitcodes, the one table) -> the verdict Gradescope shows (CRASHED is
# refined by the statuses: "timed out" or "crashed"); any other code (TAMPERED, a signal) scores every test 0
_EXIT_VERDICTS = {ExitCode.OK: "passed", ExitCode.FAILED: "failed", ExitCode.USAGE: "contract error",
                  ExitCode.CRASHED: "crashed"}


class ClassLimitReached(RuntimeError):
    """The whole class's limit (``check --batch --class-limit``) stopped this run: no verdict."""


@dataclass(frozen=True)
class GradeOptions:
    """How check is run for every submission; the defaults are ``harness.policy.POLICY``'s.

    ``timeout`` and ``memory`` are check's per-test limits (``--timeout``, ``--memory``);
    ``submission_cpu`` bounds one whole run in CPU seconds of its process tree; ``wall``
    is the whole run's wall-clock backstop (default ``POLICY.backstop(submission_cpu)``,
    10x; the autograder passes less when the platform's own clock is shorter)."""

    tier: str = POLICY.tier
    ref_deps: bool = POLICY.ref_deps
    timeout: float = POLICY.test_cpu_seconds
    memory: int = POLICY.memory_mb
    submission_cpu: float = POLICY.submission_cpu_seconds
    wall: float | None = None
    python: str = sys.executable
    # a twin grader child beside the main one (harness.suite.twin): the same verdicts either way (the
    # catalogue's second half always meets a fresh candidate process); a batch turns it off, its --jobs
    # already keeping the cores busy (a twin costs ~0.4 CPU s a run: 27.6 -> 33.3 submissions a minute)
    twin: bool = True
    # the course secret (``harness.suite.seeding.course_seed``: 64 hex digits; a batch's state or the
    # autograder bundle holds it): the run seed is then a keyed hash of the submission no student can
    # compute, else check's public default (``submission_seed``). Passed to check as ``--seed N`` only:
    # the secret itself never reaches a check process, a candidate or a report
    course_secret: str | None = field(default=None, repr=False)
    policy: GradingPolicy = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        policy = POLICY.with_(tier=self.tier, ref_deps=self.ref_deps, test_cpu_seconds=self.timeout,
                              memory_mb=self.memory, submission_cpu_seconds=self.submission_cpu)  # validates
        object.__setattr__(self, "policy", policy)
        if self.course_secret is not None:
            from harness.suite.seeding import check_course_secret

            check_course_secret(self.course_secret)
        if self.wall is not None:
            check_seconds("wall", self.wall)

    @property
    def wall_seconds(self) -> float:
        return self.wall if self.wall is not None else self.policy.backstop(self.submission_cpu)

    def header(self) -> str:
        """The policy line every grading verb prints, with this run's wall backstop."""
        return f"{self.policy.header()} (wall backstop {self.wall_seconds:g} s)"

    def check_options(self, module: Path):
        """The ``CheckOptions`` of grading ``module`` under these options (its run seed keyed with the
        course secret when one is set, else check's own default: ``run_seed``)."""
        from harness.grading.check import CheckOptions

        return CheckOptions(impl=str(module.resolve()), ref_deps=self.ref_deps, timeout=self.timeout,
                            memory=self.memory, strict=self.tier == "strict", seed=self.run_seed(module))

    def check_request(self, module: Path, report_path: Path) -> str:
        """The check job's request, whole (``harness.commands.check_entry --request``): the options of
        grading ``module`` and its JSON report's path."""
        import json

        return json.dumps({"options": json.loads(self.check_options(module).to_json()),
                           "reports": {"json": str(report_path)}}, sort_keys=True)

    def run_seed(self, module: Path | None) -> int | None:
        """``course_seed(course_secret, module)``, or None without a secret (check's own default)."""
        if self.course_secret is None or module is None:
            return None
        from harness.suite.seeding import course_seed

        return course_seed(self.course_secret, str(module))


@dataclass(frozen=True)
class TestOutcome:
    __test__ = False     # not a pytest test class
    name: str
    status: str          # check's status, or "not reported" / "not run"
    reason: str = ""     # one line
    details: str = ""    # the counterexample
    pitfalls: str = ""   # the spec's pitfall(s) this test catches
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
    cpu_seconds: float = 0.0   # CPU seconds of the check run's process tree
    load: tuple[tuple[str, object], ...] = ()   # check's load record (status, reason, problems, notes), escaped
    seed: int | None = None   # the run seed check reports (``check --seed N`` replays it): the staff's record

    @property
    def passed(self) -> int:
        return 0 if self.problem else sum(t.passed for t in self.tests)

    @property
    def failed_tests(self) -> list[str]:
        return [t.name for t in self.tests if self.problem or not t.passed]


_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")


def printable(text: object, limit: int | None = None) -> str:
    """``text`` with every control character but newline and tab escaped (``\\x1b``), and
    the bidirectional overrides, line separators and lone surrogates (``\\u202e``,
    ``\\udcff``), so nothing a candidate prints can draw a fake row or fail to encode;
    clipped in the middle to ``limit``: the head and the tail each at most ``limit // 2``
    characters, cut at line ends where a line ends in them (so a line whose length varies, a
    time, shifts no cut: two gradings of one upload keep the same lines)."""
    text = _CONTROLS.sub(_escape_one, str(text))
    if limit is not None and len(text) > limit:
        half = limit // 2
        head, tail = text[:half], text[-half:]
        if "\n" in head[:-1]:
            head = head[:head.rindex("\n", 0, len(head) - 1) + 1].rstrip("\n")
        if "\n" in tail[1:]:
            tail = tail[tail.index("\n", 1) + 1:]
        text = f"{head}\n... ({len(text) - len(head) - len(tail)} characters cut) ...\n{tail}"
    return text


def _escape_one(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def display_name(name: str) -> str:
    """A file name as one line every report can hold: backslashes doubled, then every
    control or format character (newline and tab too, ANSI escapes, bidirectional
    overrides) escaped, and a byte that is not UTF-8 (a surrogate from the file system)
    shown as ``\\xNN``. Distinct names stay distinct (the escaping is injective).

    Example::

        >>> display_name("bob\\n\\x1b[32mpassed")
        'bob\\\\x0a\\\\x1b[32mpassed'
    """
    out = []
    for char in str(name).replace("\\", "\\\\"):
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:            # os.fsdecode's surrogateescape of byte code - 0xDC00
            out.append(f"\\x{code - 0xDC00:02x}")
        elif unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        else:
            out.append(char)
    return "".join(out)


def _unrun(status: str, reason: str) -> tuple[TestOutcome, ...]:
    return tuple(TestOutcome(name, status, reason, pitfalls=BY_NAME[name].pitfalls) for name in NAMES)


def _refused(verdict: str, problem: str, module: str = "", notes: tuple[str, ...] = ()) -> Grade:
    return Grade(verdict, _unrun("not run", problem), problem=problem, module=module, notes=notes)


# --------------------------------------------------------------------------- entry points


def grade_submission(path: Path, options: GradeOptions = GradeOptions(),
                     budget: ClassBudget | None = None) -> Grade:
    """Grade a submission, a folder or one ``.py`` file (see the module docstring).
    Raises ``ClassLimitReached`` only when ``budget`` ran out during its run."""
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="constrain-harness-grade-") as scratch:
        copy = Path(scratch) / "submission"
        try:
            intake = copy_submission(Path(path), copy)
        except IntakeError as exc:
            return replace(_refused("no submission", printable(exc)), seconds=time.monotonic() - start)
        skipped = tuple(printable(display_name(note), 500) for note in intake.skipped)
        try:
            module = locate_module(copy)
        except SubmissionError as exc:
            return replace(_refused("no submission", printable(display_name(str(exc))), notes=skipped),
                           seconds=time.monotonic() - start)
        label = Path(path).name if module.name == FILE_MODULE_NAME and Path(path).is_file() else None
        grade = _grade_copy(module, options, Path(scratch), budget, label)
        relative = display_name(str(module.relative_to(copy)))
    return replace(grade, module=relative, notes=skipped + grade.notes, seconds=time.monotonic() - start,
                   header=_with_policy(options, grade.header))


def grade_module(module: Path, options: GradeOptions = GradeOptions()) -> Grade:
    """Grade a ``.py`` file or package folder, copied alone into a folder of its own."""
    start = time.monotonic()
    module = Path(module)
    with tempfile.TemporaryDirectory(prefix="constrain-harness-grade-") as scratch:
        copy = Path(scratch) / "submission"
        try:
            if module.is_dir() and not module.is_symlink():
                copy.mkdir()
                intake = copy_submission(module, copy / module.name)
                target = copy / module.name
            else:
                intake = copy_submission(module, copy)
                target = copy / FILE_MODULE_NAME
        except IntakeError as exc:
            return replace(_refused("no submission", printable(exc)), seconds=time.monotonic() - start)
        skipped = tuple(printable(display_name(note), 500) for note in intake.skipped)
        grade = _grade_copy(target, options, Path(scratch), None, module.name)
    return replace(grade, module=display_name(module.name), notes=skipped + grade.notes,
                   seconds=time.monotonic() - start, header=_with_policy(options, grade.header))


def _with_policy(options: GradeOptions, header: str) -> str:
    """The run's header with the policy line first (every report says how it was graded)."""
    return options.header() + (f"\n{header}" if header else "")


def _grade_copy(module: Path, options: GradeOptions, scratch: Path, budget: ClassBudget | None,
                label: str | None) -> Grade:
    """Syntax first (never running anything), then the black-box check on the copy."""
    problem = syntax_problem(module, label)
    if problem:
        return _refused("syntax error", printable(display_name(problem)))
    return without_scratch(_run_check(module, options, scratch, budget), scratch)


# --------------------------------------------------------------------------- the check run


def _check_environment(options: GradeOptions) -> dict[str, str]:
    """The check run's environment (``isolated.environment``), the twin turned off when ``options`` say."""
    from harness.suite.twin import TWIN_ENV

    env = isolated.environment()
    return env if options.twin else {**env, TWIN_ENV: "0"}


def _run_check(module: Path, options: GradeOptions, scratch: Path, budget: ClassBudget | None = None) -> Grade:
    report_path, log_path = scratch / "report.json", scratch / "check.log"
    # isolated (harness.sandbox.isolated): the submission's folder, the current one and the
    # user's PYTHONPATH are never on the grader's path
    command = isolated.command(CHECK_ENTRY, "--request", options.check_request(module, report_path),
                               python=options.python)
    for attempt in (1, 2):
        with open(log_path, "wb") as log:
            outcome = run_bounded(command, log, scratch, options.submission_cpu, options.wall_seconds, budget,
                                  env=_check_environment(options))
        if not (outcome.stopped == "wall" and attempt == 1 and options.wall is None and machine_loaded()):
            break   # a wall-backstop verdict on a busy machine is retried once before it stands, but
            #         never past a platform's own clock (an explicit ``wall``: Gradescope's 10 minutes)
    if outcome.stopped == "class":
        raise ClassLimitReached(f"the class limit stopped this run after {outcome.cpu_seconds:.0f} CPU s")
    output = printable(_read_bounded(log_path), OUTPUT_LIMIT)
    if outcome.stopped:
        return Grade("timed out", _unrun("not run", "the run was stopped"), output=output,
                     problem=_stopped_problem(outcome, options), cpu_seconds=outcome.cpu_seconds)
    try:
        report = json.loads(report_path.read_text(encoding="utf-8"))
        if not isinstance(report, dict):
            raise ValueError("the report is not a JSON object")
    except (OSError, ValueError) as exc:
        tail = " | ".join(output.strip().splitlines()[-3:])
        return Grade("grader error", _unrun("not run", "check wrote no report"), exit_code=outcome.exit_code,
                     output=output, cpu_seconds=outcome.cpu_seconds,
                     problem=f"check exited {outcome.exit_code} without a readable report "
                             f"({type(exc).__name__}); its last lines: {tail}")
    return replace(_from_report(report, outcome.exit_code, output), cpu_seconds=outcome.cpu_seconds)


# the candidate's module name: harness.sandbox.candidate names it cand_<stem>_<10 hex of its path's hash>
_MODULE_NAME = re.compile(r"\b(cand_\w+?)_[0-9a-f]{10}\b")


def without_scratch(grade: Grade, scratch: Path) -> Grade:
    """``grade`` with the private copy's random folder taken out of every text: a path in the
    copy reads relative to the submission (``constrain.py``), the folder itself ``<scratch>``,
    and the candidate's module name (derived from its path) loses the path's hash. So two
    gradings of one upload give the same record, timings aside (issue 23: same submission, same
    seed, same report), and no path of the grading machine reaches a report."""
    swaps = []
    for root in dict.fromkeys((str(scratch), os.path.realpath(scratch))):
        swaps += [(f"{root}/submission/", ""), (root, "<scratch>")]

    def clean(value):
        if isinstance(value, str):
            for old, new in swaps:
                value = value.replace(old, new)
            return _MODULE_NAME.sub(r"\1", value)
        if isinstance(value, (tuple, list)):
            return type(value)(clean(v) for v in value)
        if isinstance(value, dict):
            return {clean(k): clean(v) for k, v in value.items()}
        if isinstance(value, TestOutcome):
            return replace(value, **{f.name: clean(getattr(value, f.name)) for f in fields(value)})
        return value

    return replace(grade, **{f.name: clean(getattr(grade, f.name)) for f in fields(grade)})


def _stopped_problem(outcome, options: GradeOptions) -> str:
    if outcome.stopped == "cpu":
        return (f"timed out ({options.submission_cpu:g} CPU s): the whole check run reached the "
                f"per-submission limit of {options.submission_cpu:g} CPU seconds (every process it ran counted) "
                f"and was stopped; every test scores 0")
    return (f"timed out (wall backstop {options.wall_seconds:g} s): the whole check run was still going after "
            f"{options.wall_seconds:g} s of wall time, having used {outcome.cpu_seconds:.0f} CPU s (the backstop "
            f"stops a submission that sleeps or blocks), and was stopped; every test scores 0")


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
    if exit_code == ExitCode.CRASHED and _only_timeouts(report, tests):
        verdict = "timed out"
    notes = tuple(printable(n, 500) for n in _as_list(report.get("notes")))
    load = report.get("load") if isinstance(report.get("load"), dict) else {}
    if load.get("status") not in (None, "ok") and load.get("reason"):   # why nothing ran: the TA's first question
        notes = (printable(f"load: {load['reason']}", 500), *notes)
    return Grade(verdict, tuple(tests), problem=_zero_reason(report, exit_code, verdict), exit_code=exit_code,
                 header=_header(report, output), notes=notes, output=output, load=_load_record(load),
                 seed=_reported_seed(report))


def _reported_seed(report: dict) -> int | None:
    """The run seed check's report names (an int in 0 .. ``harness.argtypes.MAX_SEED``), else None."""
    from harness.argtypes import MAX_SEED

    seed = report.get("seed")
    return seed if isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed <= MAX_SEED else None


def _load_record(load: dict) -> tuple[tuple[str, object], ...]:
    """What check's load record says a student may read (how the import went, the contract
    names missing or unusable, signatures the spec's call cannot use), escaped and bounded."""
    kept = {"status": printable(load.get("status") or "", 40), "reason": printable(load.get("reason") or "", 500),
            "problems": tuple(printable(p, 300) for p in _as_list(load.get("problems"))[:40]),
            "notes": tuple(printable(n, 300) for n in _as_list(load.get("notes"))[:40])}
    return tuple(kept.items())


def _only_timeouts(report: dict, tests: list[TestOutcome]) -> bool:
    """Return True if and only if the candidate loaded, some test timed out and none crashed
    (check's exit 3 covers both: the verdict a student reads tells them apart)."""
    load = report.get("load") if isinstance(report.get("load"), dict) else {}
    statuses = {t.status for t in tests}
    return load.get("status") in (None, "ok") and "timeout" in statuses and "crashed" not in statuses


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
