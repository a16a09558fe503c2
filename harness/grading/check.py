"""Grading a candidate: the catalogue in the grader's pytest process, the candidate behind the wall.

``run_check(CheckOptions(...)) -> CheckResult`` runs ``pytest harness/suite -p
harness.suite.plugin`` in a grader child process and reads its result file (one JSON
object per line, flushed as written; see ``harness.suite.plugin``) while it runs. That
child runs the tests and every assertion; the candidate is imported only in a confined
candidate process the plugin starts (``harness.sandbox``), reached over a data-only
channel, so nothing the candidate does can write a result or patch a test.

- **confinement** (``harness.sandbox.confine``, stated in the run header): bubblewrap
  namespaces, a uid of its own when the grader is root, a cgroup of its own bounding its
  whole tree's tasks, memory and CPU (``harness.sandbox.resources``), rlimits, a trimmed
  environment, a private HOME and /tmp (none of it only under ``--unconfined``; without a
  working bubblewrap or a cgroup ``run_check`` refuses); the candidate's whole process tree
  ends with its process. The grader child runs isolated (``harness.sandbox.isolated``: no current
  directory, user ``PYTHONPATH`` or user site on its path). Result records are signed with a
  key passed through a pipe, so records anyone else appends to the file are ignored.
- **limits in CPU time** (``harness.policy``; a busy machine changes no verdict): each
  test's calls into the candidate share a budget of ``--timeout`` CPU seconds of the
  candidate's process tree, its import ``load_seconds`` (``harness.sandbox.client``,
  ``harness.sandbox.cputime``); wall time is only a limit for a candidate that sleeps or
  blocks, and its verdict says so: the run first times the reference on this machine now
  (``harness.grading.wall_calibration``) and the grader child's calls get the calibrated wall
  limit, ``WALL_FACTOR`` x that stretch x the CPU budget, never more than the fixed 10x
  backstop (``harness.policy.WallCalibration``; ``CheckResult.wall_limit`` says it, and the
  header prints it); on a loaded machine it is granted once more before it stands. The
  grader child's own watch below keeps the fixed backstops. A candidate that dies, hangs or breaks
  the protocol mid-call gives that test ``crashed`` or ``timeout`` and the next test a
  fresh candidate process. This parent also watches the grader child (``_Watch``): its
  own CPU seconds (the harness's work) per test, per load and between tests, with
  generous wall backstops behind them; a child past one, or one that dies, is ended and
  the tests not yet run are run in a new child.
- **a twin** (``harness.suite.twin``; not with ``--deep`` nor in a restarted child): a
  second grader child runs the catalogue's second half with its own candidate process,
  beside the first child, and streams each test's reports to it; the first child replays
  them in the catalogue's order, so the records, output and exit status are those of one
  child running every test. The twin is watched as the child is (its own records, its
  own CPU seconds) and killed alone past a limit; the child then runs the twin's tests
  itself. It ends with the child at the latest.
- **one run seed** (``harness.suite.seeding``): every random choice of the run comes from
  it; ``seed`` (default: derived from the submission's content, so a regrade draws the
  same inputs) is printed in the header and written in every report.
- **files**: a manifest of the harness's files (``harness``, ``oracles``, ``strategies``,
  ``golden``) is taken before the run and verified after it; any change, addition,
  removal or relink is listed in ``integrity``, restored without following links, and
  makes the verdict "tampered".

Statuses of a test: ``passed``, ``failed`` (an assertion: the candidate is wrong),
``error`` (the candidate raised where it should not, or a setup failed), ``skipped``,
``crashed`` (also: a protocol violation, said in the reason), ``timeout``, ``not run``
(the run stopped before it). Each test also carries ``notes``: contract decisions it
departs from in the default tier (``harness.suite.tiers``), which change nothing.

Exit code (``harness.exitcodes``): 4 when the harness's files changed; else 2 when the
spec names nothing loadable; else 3 when the candidate crashed or timed out (at import or
in any test, or ran out of memory); else 1 when a test failed or errored (a missing
contract name fails the tests that need it); else 0.

Example::

    >>> result = run_check(CheckOptions(impl=None))      # the reference
    >>> result.exit_code, result.counts()["passed"]
    (0, 16)
"""

from __future__ import annotations

import json
import os
import re
import resource
import secrets
import select
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from harness.argtypes import check_seed
from harness.exitcodes import ExitCode
from harness.paths import PACKAGE_ROOT, PROTECTED_PACKAGES, protected_roots  # noqa: F401 - re-exported
from harness.policy import BACKSTOP_FACTOR, POLICY, GradingPolicy, WallCalibration
from harness.run import CatalogueRun, launch, rewritten
from harness.run.records import ResultReader
from harness.run.value import refuse_unknown_fields
from harness.sandbox import confine, cputime, isolated, resources
from harness.sandbox.bytecode import take_manifest
from harness.suite.catalogue import BY_NAME, DEEP_NAMES, NAMES

STATUSES = ("passed", "failed", "error", "skipped", "crashed", "timeout", "not run")
MAX_CHILDREN = 20  # one child per crash, at most: a candidate that crashes everywhere still ends
FINISH_GRACE = 10.0  # the grader child's CPU seconds to exit after its session ended (wall: the backstop of it)
GRACE = 30.0  # the grader child's own CPU seconds in one test beyond the candidate's budget (the oracles' work)


@dataclass
class CheckOptions:
    """What to grade and under which limits (the ``check`` verb's options)."""

    impl: str | None = None
    ref_deps: bool = POLICY.ref_deps
    deep: bool = False
    timeout: float = POLICY.test_cpu_seconds  # CPU seconds per test, of the candidate's process tree
    memory: int = POLICY.memory_mb  # MB of address space for the candidate process
    only: tuple[str, ...] = ()  # test names to run (default: all)
    golden_file: str | None = None
    strict: bool = POLICY.tier == "strict"  # grade the contract's decisions where the spec is silent
    load_seconds: float = POLICY.load_cpu_seconds  # CPU seconds to import the candidate
    seed: int | None = None  # the run seed (None: derived from the submission, harness.suite.seeding)
    # the reference's wall/CPU seconds that set each call's wall limit (harness.policy.WallCalibration);
    # None: measured as the run starts (harness.grading.wall_calibration)
    wall_calibration: WallCalibration | None = None

    def __post_init__(self) -> None:
        # a deep test named in ``only`` is run by the deep tier: naming one implies it
        if any(name in DEEP_NAMES for name in self.only):
            self.deep = True

    def policy(self) -> GradingPolicy:
        """The limits and choices of this run, as ``harness.policy`` states them."""
        return POLICY.with_(tier="strict" if self.strict else "default", ref_deps=self.ref_deps,
                            test_cpu_seconds=self.timeout, load_cpu_seconds=self.load_seconds,
                            memory_mb=self.memory)

    def to_json(self) -> str:
        """These options as one JSON document (``from_json`` reads them back equal): what the batch
        and the autograder hand each check job (``harness.commands.check_entry --request``)."""
        document = asdict(self)
        document["only"] = list(self.only)
        return json.dumps(document, sort_keys=True, separators=(",", ":"), allow_nan=False)

    @classmethod
    def from_json(cls, text: str) -> "CheckOptions":
        """The options ``to_json`` wrote, validated (``from_document``)."""
        try:
            document = json.loads(text, parse_constant=lambda word: float("nan"))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"check options are one JSON object: {exc}") from None
        return cls.from_document(document)

    @classmethod
    def from_document(cls, document) -> "CheckOptions":
        """The options of a decoded ``to_json`` document, validated (the limits by
        ``GradingPolicy``, the seed by ``check_seed``); a ValueError naming the field otherwise."""
        if not isinstance(document, dict):
            raise ValueError("check options are one JSON object")
        document = dict(document)
        kinds = {"impl": (str, type(None)), "ref_deps": bool, "deep": bool, "timeout": (int, float),
                 "memory": int, "only": list, "golden_file": (str, type(None)), "strict": bool,
                 "load_seconds": (int, float), "seed": (int, type(None)), "wall_calibration": (dict, type(None))}
        refuse_unknown_fields("CheckOptions", document, kinds)
        for name, value in document.items():
            if not isinstance(value, kinds[name]) or (isinstance(value, bool) and kinds[name] is not bool):
                raise ValueError(f"CheckOptions.{name}: {value!r} is not of its type")
        if not all(isinstance(n, str) for n in document.get("only", ())):
            raise ValueError("CheckOptions.only: test names are strings")
        document["only"] = tuple(document.get("only", ()))
        try:
            if document.get("wall_calibration") is not None:
                document["wall_calibration"] = WallCalibration(**document["wall_calibration"])
        except (TypeError, ValueError) as exc:
            raise ValueError(f"CheckOptions.wall_calibration: {exc}") from None
        options = cls(**document)
        try:
            options.policy()
        except ValueError as exc:
            text = str(exc)
            for field, name in (("test_cpu_seconds", "timeout"), ("load_cpu_seconds", "load_seconds"),
                                ("memory_mb", "memory")):
                if text.startswith(field):
                    raise ValueError(f"CheckOptions.{name}: {text}") from None
            raise ValueError(f"CheckOptions: {text}") from None
        if options.seed is not None:
            try:
                check_seed(options.seed)
            except ValueError as exc:
                raise ValueError(f"CheckOptions.seed: {exc}") from None
        return options

    def catalogue_run(self, *, seed: int, marker: str, wall_calibration: WallCalibration | None) -> CatalogueRun:
        """The run value its grader children receive whole (``harness.run``): these options, the
        run's seed, marker and wall calibration; each child adds its selection, records and twin."""
        golden_file = str(Path(self.golden_file).resolve()) if self.golden_file else None
        impl = None if self.impl is None else _absolute_spec(self.impl)
        return CatalogueRun(impl=impl, policy=self.policy(), deep=self.deep, seed=seed, golden_file=golden_file,
                            marker=marker, wall_calibration=wall_calibration)

    def policy_header(self) -> str:
        """The run header's policy line (``POLICY.header()``'s words): the limits ``check``
        applies (per test, load, memory), then the tier and ref-deps."""
        policy = self.policy()
        backstop = BACKSTOP_FACTOR * policy.test_cpu_seconds
        return (f"limits: {policy.test_cpu_seconds:g} CPU s per test (wall: calibrated, at most the backstop "
                f"{backstop:g} s), "
                f"{policy.load_cpu_seconds:g} CPU s to load, {policy.memory_mb} MB; "
                f"tier {policy.tier}, ref-deps {'on' if policy.ref_deps else 'off'}")


@dataclass
class Verdict:
    """One test's verdict: ``status`` is one of ``STATUSES``; ``reason`` is one line."""

    name: str
    kinds: tuple[str, ...]
    status: str = "not run"
    reason: str = ""
    details: str = ""
    duration: float = 0.0
    notes: list[str] = field(default_factory=list)  # contract decisions departed from (default tier)


@dataclass
class CheckResult:
    """Everything the reports need (see ``harness.grading.report`` for the JSON layout)."""

    options: CheckOptions
    tests: list[Verdict] = field(default_factory=list)
    load: dict = field(default_factory=dict)
    tamper: list[dict] = field(default_factory=list)
    integrity: list[str] = field(default_factory=list)
    isolation: str = ""  # the confinement the candidate ran under, in words
    children: list[dict] = field(default_factory=list)
    duration: float = 0.0
    exit_code: int = int(ExitCode.OK)
    marker: str = ""  # in the candidate's environment: finds any process of this run
    seed: int = 0  # the run seed every random choice came from (``--seed`` replays the run)
    wall_calibration: WallCalibration | None = None  # the run's, given or measured as it started
    wall_limit: str = ""  # the calibrated wall limit in force and how it was set (WallCalibration.describe)

    def counts(self) -> dict[str, int]:
        counts = {status: 0 for status in STATUSES}
        for test in self.tests:
            counts[test.status] += 1
        return counts

    @property
    def verdict(self) -> str:
        return ExitCode(self.exit_code).verdict

    def to_dict(self) -> dict:
        return asdict(self)


# --------------------------------------------------------------------------- the run


def run_check(options: CheckOptions) -> CheckResult:
    """Grade ``options.impl``; never raises for anything the candidate does. Raises
    ``confine.ConfinementUnavailable`` before anything runs when no confinement can start
    here and ``--unconfined`` was not given (the ``check`` verb says so in one line, exit 2)."""
    confine.require()
    from harness.suite import seeding

    sys.dont_write_bytecode = True  # the grader adds nothing to the verified tree
    seed = options.seed if options.seed is not None else seeding.submission_seed(options.impl)
    marker = secrets.token_hex(8)
    run = options.catalogue_run(seed=seed, marker=marker, wall_calibration=None)  # validated here, once
    result = CheckResult(options, marker=marker, seed=seed)
    start = time.monotonic()
    result.wall_calibration = options.wall_calibration or _measure_wall()
    result.wall_limit = result.wall_calibration.describe(options.timeout)
    run = run.with_(wall_calibration=result.wall_calibration)
    expected = [n for n in NAMES if not options.only or n in options.only]
    result.tests = [Verdict(n, BY_NAME[n].kinds) for n in expected]
    rewritten.refresh()  # pytest's rewritten catalogue, so no grader child rewrites it (before the manifest)
    manifest = take_manifest(protected_roots())
    confine.probe()  # probe bubblewrap once here; the grader children inherit the answer
    try:
        with tempfile.TemporaryDirectory(prefix="constrain-check-") as sandbox:
            os.chmod(sandbox, 0o700)
            for attempt in range(MAX_CHILDREN):
                if attempt and (_pending(result) == [] and not options.deep):
                    break
                done = {t.name for t in result.tests if t.status != "not run"}
                if _run_child(options, run, result, Path(sandbox), attempt, done) != "restart":
                    break
    finally:
        changes = manifest.verify()
        if changes:
            manifest.restore()
            result.integrity = [f"{change}; restored" for change in changes]
    result.isolation = result.load.get("confinement", "") or result.isolation
    if confine.unconfined() and not result.isolation.startswith(confine.UNCONFINED_HEADLINE):
        result.isolation = f"{confine.UNCONFINED_HEADLINE}: the candidate ran without any wall"
    _explain_not_run(result)
    result.duration = round(time.monotonic() - start, 2)
    result.exit_code = int(_exit_code(result))
    return result


def _measure_wall() -> WallCalibration:
    from harness.grading import wall_calibration

    return wall_calibration.measure()


def _explain_not_run(result: CheckResult) -> None:
    if result.load.get("status") not in (None, "ok"):
        why = f"not run: {result.load.get('reason', 'the candidate did not load')}"
    elif result.children:
        last = result.children[-1]
        why = f"not run: the child ended before this test (status {last['returncode']}" + \
            (f", {last['killed']})" if last["killed"] else ")")
    else:
        why = "not run"
    for test in result.tests:
        if test.status == "not run" and not test.reason:
            test.reason = why


def _pending(result: CheckResult) -> list[str]:
    return [t.name for t in result.tests if t.status == "not run"]


def _exit_code(result: CheckResult) -> ExitCode:
    if result.integrity:
        return ExitCode.TAMPERED
    if result.load.get("status") in ("contract", "usage"):
        return ExitCode.USAGE
    statuses = {t.status for t in result.tests}
    last = result.children[-1] if result.children else {"returncode": 0, "killed": None}
    died = last["killed"] or last["returncode"] not in (0, 1, 5)  # 5: pytest found nothing to run
    if result.load.get("status") == "error" or statuses & {"crashed", "timeout"} or \
            (not result.load and statuses == {"not run"}) or ("not run" in statuses and died):
        return ExitCode.CRASHED
    if statuses & {"failed", "error", "not run"} or result.tamper:
        return ExitCode.FAILED
    return ExitCode.OK


def _run_child(options: CheckOptions, run: CatalogueRun, result: CheckResult, sandbox: Path, attempt: int,
               done: set[str]) -> str:
    """One child process (and, in a first attempt, its twin: ``harness.suite.twin``); returns
    ``"restart"`` when tests remain after a crash."""
    results_file = sandbox / f"results-{attempt}.jsonl"
    log = sandbox / f"child-{attempt}.log"
    child_run = _child_run(run, options, results_file, done)
    theirs = _twin_tests(options, done) if attempt == 0 else ()
    reader = ResultReader(results_file)
    started = time.monotonic()
    twin, stream_fds = None, os.pipe() if theirs else ()
    group = resources.own_cgroup()   # the grader's own: its OOM kills so far (``_own_limit``)
    oom_kills = group.oom_kills() if group is not None else 0
    try:
        with open(log, "wb") as out:
            if theirs:
                child_run = child_run.with_(twin_in_fd=stream_fds[0], twin_tests=frozenset(theirs))
            child = _start(child_run, reader, sandbox, out, stream_fds[:1])
            try:
                if theirs:
                    try:
                        twin = _start_twin(options, run, sandbox, theirs, stream_fds[1])
                    except OSError:  # no twin: its stream ends at once, the child runs every test itself
                        twin = None
                for fd in stream_fds:
                    os.close(fd)
                stream_fds = ()
                watch = _Watch(child, options)
                killed = _watch(watch, reader, result, twin)
            except BaseException:  # e.g. Ctrl-C in the grader: never leave a child running
                _kill(child)
                raise
            finally:
                if twin is not None:
                    _kill(twin.child)
    finally:
        for fd in stream_fds:
            os.close(fd)
    records = reader.read_new()
    _apply(records, result)
    info = {"attempt": attempt, "returncode": child.returncode, "killed": killed, "forged_records": reader.forged,
            "seconds": round(time.monotonic() - started, 2), "output_tail": _tail(log)}
    result.children.append(info)
    own = "" if killed else _own_limit(child.returncode, watch.cpu, group, oom_kills)
    return _after_exit(result, reader, child.returncode, killed, log, own)


LAST_LOOK_SHARE = 0.6
"""``_own_limit``'s share of the grader child's CPU limit: its CPU is the watch's last look before
the death, which on a busy machine lags the count at the kernel's SIGKILL (measured: 2.08 and
2.33 s at a 3 s limit, two runs of ten at load 11 on 2 cores), unlike a candidate's cgroup count,
read after the death (``client.CPU_LIMIT_SHARE``)."""


def _own_limit(returncode: int, cpu_seconds: float, group: "resources.Cgroup | None", oom_kills: int) -> str:
    """Which of its own limits dealt the grader child's SIGKILL (``client.own_limit_kill``, shared
    with the candidate's client): "memory" when the grader's own cgroup counted an OOM kill at
    its limit since the child started (``oom_kills`` then), "cpu" when the child's own CPU seconds
    at the last look reached its ``RLIMIT_CPU`` hard limit (this process's, which the child
    inherits: the kernel's SIGKILL comes at the hard limit), else "" (unknown)."""
    from harness.sandbox.client import own_limit_kill

    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    return own_limit_kill(returncode, oom_killed=group is not None and group.oom_killed(oom_kills),
                          cpu_seconds=cpu_seconds, cpu_limit=None if hard == resource.RLIM_INFINITY else hard,
                          share=LAST_LOOK_SHARE)


def _start(run: CatalogueRun, reader: ResultReader, sandbox: Path, out, extra_fds: tuple[int, ...] = ()):
    """A grader child running the catalogue for ``run``, its records signed with ``reader.key``."""
    reader.path.touch()
    return launch.start_catalogue(run, reader.key, cwd=sandbox, env=_child_env(sandbox, run.marker), out=out,
                                  extra_fds=extra_fds)


@dataclass
class _Twin:
    """The twin grader child (``harness.suite.twin``) and what watches it."""

    child: object
    reader: "ResultReader"
    watch: "_Watch"


def _twin_tests(options: CheckOptions, done: set[str]) -> tuple[str, ...]:
    """The tests a twin runs beside the main child (``harness.suite.twin.second_half``), or ()."""
    if options.deep:
        return ()
    from harness.suite.twin import second_half

    return second_half([n for n in NAMES if (not options.only or n in options.only) and n not in done])


def _start_twin(options: CheckOptions, run: CatalogueRun, sandbox: Path, theirs: tuple[str, ...],
                stream_fd: int) -> _Twin:
    """The twin: the catalogue's ``theirs`` only, streamed to the main through ``stream_fd``;
    its records (in its own file) only tell ``_watch`` where it is; its output is its own log.
    Its processes carry their own marker, ``twin-`` and the run's (which it contains, so a
    search for the run's finds them): ending the marked processes of one candidate
    (``confine.kill_marked``, the unconfined mode's sweep) never ends the other's."""
    results_file = sandbox / "twin-results.jsonl"
    twin_run = _child_run(run, options, results_file, set(NAMES) - set(theirs))
    twin_run = twin_run.with_(marker=f"twin-{run.marker}", twin_out_fd=stream_fd)
    reader = ResultReader(results_file)
    with open(sandbox / "twin.log", "wb") as out:
        child = _start(twin_run, reader, sandbox, out, (stream_fd,))
    return _Twin(child, reader, _Watch(child, options))


def _child_run(run: CatalogueRun, options: CheckOptions, results_file: Path, done: set[str]) -> CatalogueRun:
    """The run one grader child receives: ``run`` with its records' file, and, as a skip list, the
    tests ``--only`` leaves out and those already ``done`` (deep properties included)."""
    selected = [n for n in NAMES if (not options.only or n in options.only) and n not in done]
    skip = (set(NAMES) - set(selected)) | (done - set(NAMES))
    named_deep = set(options.only) & set(DEEP_NAMES)
    if options.deep and named_deep:  # --only names deep tests: only those of the deep tier run (else all of it)
        skip |= set(DEEP_NAMES) - named_deep
    return run.with_(results_file=str(results_file), skip=frozenset(skip))


def _absolute_spec(spec: str) -> str:
    path = Path(spec)
    if spec.endswith(".py") or path.exists() or "/" in spec:
        return str(path.resolve())
    return spec


def _child_env(sandbox: Path, marker: str) -> dict[str, str]:
    """The grader child's environment (trusted: the candidate process gets its own,
    trimmed, from ``harness.sandbox.confine``): the caller's without any ``PYTHON*``
    variable (no user ``PYTHONPATH``: ``harness.sandbox.isolated``), plus the catalogue's
    settings. ``CONSTRAIN_HARNESS_UNCONFINED`` passes through (``--unconfined``)."""
    return isolated.environment({"CONSTRAIN_HARNESS_MARKER": marker,
                                 "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",  # the catalogue needs none; each costs
                                 "TMPDIR": str(sandbox)})


# --------------------------------------------------------------------------- watching the child


class _Watch:
    """This parent's limits on the grader child, read every poll: the child's own CPU
    seconds (``cputime.process_seconds``: the harness's work, apart from the candidate's
    tree, which the plugin's budgets bound) since the current phase began, and a
    generous wall-clock backstop behind each, granted once more on a loaded machine.

    Phases: ``<load>`` (importing and loading, ``POLICY.startup_cpu_seconds`` + the load's CPU), a
    test (``GRACE`` + the test's), between tests or before the load (``POLICY.startup_cpu_seconds``),
    after the session's "finish" record (``FINISH_GRACE``). The wall backstops leave room
    for the plugin's own (a candidate restarted in the test: its load and the test's
    budget, each possibly granted twice)."""

    def __init__(self, child: subprocess.Popen, options: CheckOptions):
        self.child, self.options = child, options
        self.phase: object = None
        self.cpu_start, self.wall_start, self.extended = 0.0, time.monotonic(), False
        self.cpu = 0.0  # the child's own CPU seconds at the last look (how it ended: ``_own_limit``)

    def limits(self, reader: "ResultReader") -> tuple[str, float, float]:
        """(what, CPU seconds, wall seconds) of the current phase."""
        opts = self.options
        if reader.finished_at is not None:
            return "after the session ended", FINISH_GRACE, POLICY.backstop(FINISH_GRACE)
        if reader.current == "<load>":
            cpu = POLICY.startup_cpu_seconds + opts.load_seconds
            return "while loading", cpu, 2 * POLICY.backstop(cpu)
        if reader.current is not None:
            wall = 2 * (POLICY.backstop(opts.timeout) + POLICY.backstop(opts.load_seconds)) + POLICY.backstop(GRACE)
            return "in one test", GRACE + opts.timeout, wall
        startup = POLICY.startup_cpu_seconds
        return "between tests", startup, 2 * POLICY.backstop(startup)

    def over(self, reader: "ResultReader") -> str | None:
        """Why the child must be ended now, or None."""
        phase = (reader.current, reader.current_since, reader.finished_at)
        cpu = self.cpu = cputime.process_seconds(self.child.pid)
        if phase != self.phase:
            self.phase, self.cpu_start, self.wall_start, self.extended = phase, cpu, time.monotonic(), False
            return None
        what, cpu_limit, wall_limit = self.limits(reader)
        if cpu - self.cpu_start > cpu_limit:
            return f"CPU-time limit of the grader child: {cpu_limit:g} CPU s {what}"
        if time.monotonic() - self.wall_start > wall_limit:
            if not self.extended and cputime.machine_loaded():
                self.extended, self.wall_start = True, time.monotonic()  # retried once on a busy machine
                return None
            return f"wall-clock backstop: {wall_limit:g} s {what}, the grader child slept or blocked"
        return None


def _watch(watch: _Watch, reader: ResultReader, result: CheckResult, twin: _Twin | None = None) -> str | None:
    """Poll until the watched child exits; kill it when a phase overruns (``_Watch``). A twin is
    watched alike and killed alone when it overruns (the main then runs its tests itself)."""
    child = watch.child
    ended = _exit_signal(child)
    try:
        while child.poll() is None:
            _wait_a_little(ended)
            _apply(reader.read_new(), result)
            if twin is not None and twin.child.poll() is None:
                twin.reader.read_new()
                if twin.watch.over(twin.reader) is not None:
                    _kill(twin.child)
            why = watch.over(reader)
            if why is not None:
                _kill(child)
                return why
    finally:
        if ended is not None:
            os.close(ended)
    return None


POLL = 0.05  # seconds between two looks at a grader child (its records, its CPU time)


def _exit_signal(child) -> int | None:
    """A descriptor that turns readable when ``child`` exits (a pidfd), or None where there
    is none: then ``_watch`` notices an exit at its next look, up to ``POLL`` s later."""
    served = getattr(child, "exit_fd", None)   # a warm server's child: its status socket (launch.ServedChild)
    try:
        if served is not None:
            return os.dup(served())
        return os.pidfd_open(child.pid)
    except (AttributeError, OSError):
        return None


def _wait_a_little(ended: int | None) -> None:
    if ended is None:
        time.sleep(POLL)
    else:
        select.select([ended], [], [], POLL)


def _kill(child: subprocess.Popen) -> None:
    try:
        os.killpg(child.pid, signal.SIGKILL)  # the child's own session: it and its children
    except ProcessLookupError:
        pass
    child.wait()


def _apply(records: list[dict], result: CheckResult) -> None:
    by_name = {t.name: t for t in result.tests}
    for record in records:
        event = record.get("event")
        if event == "load":
            result.load = {k: v for k, v in record.items() if k != "event"}
        elif event == "tamper":
            result.tamper.append(record)
        elif event == "result":
            name = str(record.get("test"))
            test = by_name.get(name)
            if test is None:  # a deep property: known only once it reports
                test = Verdict(name, ("property", "deep"))
                result.tests.append(test)
                by_name[name] = test
            test.status = record.get("outcome") if record.get("outcome") in STATUSES else "error"
            test.reason = str(record.get("reason") or "")
            test.details = str(record.get("details") or "")
            test.duration = float(record.get("duration") or 0.0)
            test.notes = [str(n) for n in record.get("notes") or []]


def _after_exit(result: CheckResult, reader: ResultReader, returncode: int, killed: str | None, log: Path,
                own_limit: str = "") -> str:
    current = reader.current
    how = _how_it_ended(returncode, killed, log, own_limit)
    if current == "<load>" or (current is None and not result.load):
        result.load = {"status": "error", "reason": f"the candidate crashed while loading: {how}",
                       "details": _tail(log)}
        return "stop"
    if result.load.get("status") != "ok":
        return "stop"
    if current is not None:
        test = next((t for t in result.tests if t.name == current), None)
        if test is None:
            test = Verdict(current, ("property", "deep"))
            result.tests.append(test)
        test.status = "timeout" if killed or returncode in (-signal.SIGXCPU, -signal.SIGKILL) else "crashed"
        test.reason = how
        test.details = _tail(log)
        return "restart"
    return "stop"  # the child ended between tests: its last test's verdict stands


SIGKILL_WORDS = {"cpu": "its CPU-time limit", "memory": "out of memory",
                 "": "killed by a signal from outside the harness, or the kernel"}
"""What a grader child's SIGKILL is said to be, by ``_own_limit``'s answer: only what is known."""


def _how_it_ended(returncode: int, killed: str | None, log: Path, own_limit: str = "") -> str:
    """The words of a grader child's end: killed by the harness (``killed``: why), a signal
    (a SIGKILL as ``SIGKILL_WORDS[own_limit]``), or an exit status mid-test."""
    if killed:
        return f"killed by the harness: {killed}"
    if returncode < 0:
        name = signal.Signals(-returncode).name
        gloss = {"SIGXCPU": "the CPU-time limit", "SIGSEGV": "a segmentation fault",
                 "SIGKILL": SIGKILL_WORDS[own_limit], "SIGABRT": "an abort"}.get(name, "a signal")
        return f"the child died of {name} ({gloss})" + _fatal_line(log)
    return f"the child exited with status {returncode} in the middle of the test (os._exit?)" + _fatal_line(log)


def _fatal_line(log: Path) -> str:
    """The first traceback frame in the child's log that is neither the harness's nor a
    library's (the candidate's line that crashed) as ``"; at File ..."``, else ``""``."""
    for line in _tail(log).splitlines():
        frame = line.strip()
        if frame.startswith('File "') and not any(part in frame for part in ("/harness/", "/site-packages/",
                                                                             "/lib/python")):
            return f"; at {frame}"
    return ""


_TIMING = re.compile(r" in \d+(?:\.\d+)?s\b")   # pytest's "in 9.87s": the one part of a log that is a timing


def _tail(log: Path, limit: int = 4000) -> str:
    """The log's last whole lines, at most ``limit`` characters counted with pytest's timings
    ("in 9.87s") as one fixed width: which lines a tail holds never depends on how long the run
    took, so the same run gives the same tail, timings aside (a single line longer than
    ``limit`` gives its last ``limit`` characters)."""
    try:
        data = log.read_bytes()
    except OSError:
        return ""
    from harness.suite.seeding import stable_text

    # stable_text before the cut: what it drops (carets drawn by Python 3.11+ only) must not move the window
    lines = stable_text(data[-4 * limit:].decode("utf-8", "replace")).splitlines(keepends=True)
    kept: list[str] = []
    size = 0
    for line in reversed(lines):
        size += len(_TIMING.sub(" in <time>", line))
        if size > limit:
            break
        kept.append(line)
    if not kept and lines:
        return lines[-1][-limit:]
    return "".join(reversed(kept))
