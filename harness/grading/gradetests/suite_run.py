"""One run: the student's suite against one implementation, each in its own confined process.

``run_suite(suite_dir, implementation, ...)`` starts the implementation behind the wall
(``relay.ServedImplementation``), then the student's process (``shim.boot`` under pytest,
confined by ``harness.sandbox.confine``), and relays every request between them through
the ``relay.Gate`` until the suite ends or a limit is hit. It returns a ``RunResult``: per
test ``passed``/``failed``/``error``/``skipped``, or ``timeout``/``crashed`` for the test
that was running when its process ended that way, or ``not run``; and a run verdict
(``VERDICTS``).

Every implementation gets the same hello (the contract's names, the run seed, no test
selection) and runs every collected test: which tests count is decided afterwards, when
the grade is scored (``scoring``), so a suite cannot learn whether it faces a wheat or a
chaff from anything but behaviour. A test that crashes its process or runs out of time
costs only itself: the grader starts a new student process (and a new implementation
process when that one ended) for the tests after it (``skip``: the tests already run, a
list that depends only on the outcomes so far), at most ``MAX_SEGMENTS`` times.

Limits count CPU seconds of both process trees (the suite's and the implementation's,
``cputime``): ``limits.test_cpu`` per test, ``limits.run_cpu`` per run; wall time is only
the backstop (``POLICY.backstop``: 10x each), for a suite or implementation that sleeps or
blocks, and a run ended by it says so (``RunResult.backstop``: the grader runs it once
more before the verdict stands). Each run has its own marker (``CONSTRAIN_HARNESS_RUN``):
ending one run's processes never touches another's, also without bubblewrap.

What the student's process can see (bubblewrap mode): its own PID namespace (not the
implementation's process, not the grader's); a new root holding only the system's
folders and the interpreter's, read-only (``confine.SYSTEM_ROOTS``: no checkout, home or
other folder of the machine exists there; the checkout holding the harness and every
wheat's folder, ``secret_roots``, are also empty tmpfs should one lie in a system
folder); its own copy of the suite and of the shim; an allowlisted environment with
nothing about the implementation; no network. The suite runs the grader's own
interpreter (``sys.executable``, so a venv's packages: pytest, numpy, hypothesis), whose
prefixes and site folders (``confine.interpreter_paths``) are bound back read-only; where
those folders hold the harness itself (a wheel install: ``site-packages/harness``, the
reference in ``oracles``, the wheats, the catalogue), every such package and the
distribution's metadata are masked by an empty folder (``harness_locations``), so no
harness source is readable in a checkout or a wheel install alike. An editable install's
hook points at the hidden checkout and so finds nothing. Each process has a fresh private
``/tmp`` and ``HOME``, so one run cannot hand anything to the next. Without bubblewrap
(``unshare``, which hides the processes only, or the fallback) no file is hidden: the
report's header says so.

Everything the suite or the implementation says (test ids, messages, output, errors)
is kept with its control characters escaped (``harness.sandbox.text.escape``).

Bounds: ``MAX_REQUESTS`` frames from the suite per process, ``MAX_SUITE_BYTES`` of suite
files, ``OUTPUT_CHARS`` of its output kept, ``MAX_SEGMENTS`` processes per run, the
channel's ``MAX_FRAME`` per frame.

Example::

    >>> r = run_suite(Path("tests/student_suites/weak"), wheat("reference"), seed=1)
    >>> r.verdict, sorted(set(r.outcomes.values()))
    ('completed', ['passed'])
"""

from __future__ import annotations

import importlib.util
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from harness.grading.gradetests import normalise, unicode_table
from harness.grading.gradetests.cputime import TreeClock
from harness.grading.gradetests.implementations import ROOT, Implementation
from harness.grading.gradetests.limits import DEFAULT_LIMITS, RUN_CPU_SECONDS, RunLimits  # noqa: F401 - re-exported
from harness.grading.gradetests.relay import Gate, ServedImplementation, public_names, refused
from harness.policy import POLICY
from harness.sandbox import channel, confine
from harness.sandbox.client import RemoteError
from harness.sandbox.failures import CandidateGone, CandidateTimeout
from harness.sandbox.text import escape

SHIM_DIR = Path(__file__).resolve().parent / "shim"
MAX_REQUESTS = 2_000_000
MAX_SUITE_BYTES = 16 << 20
MAX_SEGMENTS = 64  # student processes per run (a new one after each test that crashed or ran out of time)
OUTPUT_CHARS = 8000
INPUT_CHARS = 300
NAME_CHARS = 500  # a test id longer than this is cut (ids come from the suite)
SEEN_AS = Path("/gradetests")  # where the shim and the suite lie inside the sandbox (bubblewrap)
POLL_SECONDS = 0.2  # how often the CPU clocks of a run's process trees are read
SYSTEM_DIRS = frozenset({"/", "/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc", "/opt", "/var", "/proc", "/sys",
                         "/dev", "/run"})
HARNESS_PACKAGES = ("harness", "oracles", "facts", "strategies", "golden")  # pyproject's packages.find
DISTRIBUTION = "constrain_harness"
VERDICTS = ("completed", "timeout", "crashed", "flood", "no tests", "collection error", "skipped",
            "implementation did not load", "not run")


@dataclass
class RunResult:
    implementation: str
    role: str
    verdict: str
    detail: str = ""
    collected: list[str] = field(default_factory=list)
    outcomes: dict[str, str] = field(default_factory=dict)
    messages: dict[str, str] = field(default_factory=dict)
    inputs: dict[str, str] = field(default_factory=dict)   # test -> the last calls it made
    collect_errors: list[str] = field(default_factory=list)
    errored_files: list[str] = field(default_factory=list)  # test files whose import failed in this run
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    backstop: bool = False  # a wall-clock backstop ended a test or the run (the grader runs it again once)
    processes: int = 0      # student processes the run took (1 + one per test that crashed or ran out of time)
    output: str = ""


def secret_roots(implementations: list[Implementation]) -> list[Path]:
    """Folders the student's process must not see: the harness's checkout and every
    implementation's folder, each as its top-level folder (``/work``) unless that is a
    system folder (then the folder itself)."""
    roots = set()
    for folder in [ROOT, *(i.folder for i in implementations)]:
        folder = folder.resolve()
        top = Path(*folder.parts[:2])
        roots.add(folder if str(top) in SYSTEM_DIRS else top)
    return sorted(roots)


def harness_locations() -> list[Path]:
    """Where the harness's own packages (and its distribution's metadata) lie inside the
    folders the student's sandbox binds (the interpreter's site folders, the system's):
    each is masked by an empty folder there. A checkout's editable install lies outside
    them (the checkout is not bound at all), a wheel install inside."""
    visible = [*confine.interpreter_paths(), *(Path(r) for r in confine.SYSTEM_ROOTS)]
    found: set[Path] = set()
    for name in HARNESS_PACKAGES:
        spec = importlib.util.find_spec(name)
        found |= {Path(p) for p in (spec.submodule_search_locations or [])} if spec else set()
    for site in confine.interpreter_paths():
        found |= {site / name for name in HARNESS_PACKAGES if (site / name).is_dir()}
        found |= set(site.glob(f"{DISTRIBUTION}-*.dist-info"))
    shown = set()
    for path in found:
        for each in {path, path.resolve()}:
            if each.is_dir() and any(v == each or v in each.parents for v in visible):
                shown.add(each)
    return sorted(shown)


def run_suite(suite_dir: Path, implementation: Implementation, *, module: str = "tinyllm.infer.constrain",
              limits: RunLimits = DEFAULT_LIMITS, seed: int = 0, marker: str = "", hidden: list[Path] | None = None,
              sandbox: confine.Limits = confine.Limits()) -> RunResult:
    """One run (module docstring). ``marker`` prefixes the run's own marker."""
    start = time.monotonic()
    own_marker = f"{marker or 'gradetests'}-{secrets.token_hex(6)}"  # every run its own: ending it ends only it
    run = _Run(Path(suite_dir), implementation, module, limits, seed, own_marker,
               hidden if hidden is not None else secret_roots([implementation]), sandbox)
    try:
        run.execute()
        return run.result
    finally:
        run.close()
        run.result.seconds = time.monotonic() - start
        run.result.cpu_seconds = run.cpu_before


class _Run:
    """The processes of one run, one after the other, and what they learnt."""

    def __init__(self, suite_dir: Path, implementation: Implementation, module: str, limits: RunLimits, seed: int,
                 marker: str, hidden: list[Path], sandbox: confine.Limits):
        self.suite_dir, self.implementation, self.module, self.limits = suite_dir, implementation, module, limits
        self.seed, self.marker, self.hidden, self.sandbox = seed, marker, hidden, sandbox
        self.result = RunResult(implementation.id, implementation.role, "completed")
        self.scratch = Path(tempfile.mkdtemp(prefix="constrain-gradetests-"))
        self.wall_end = time.monotonic() + limits.run_wall
        self.cpu_before = 0.0  # CPU seconds of the run's finished processes
        self.raw: dict[str, str] = {}  # test id as reported (escaped) -> as pytest wrote it
        self.served: ServedImplementation | None = None
        self.fresh_served = True

    def execute(self) -> None:
        wall, suite = _prepare(self.scratch, self.suite_dir)
        r = self.result
        for segment in range(MAX_SEGMENTS):
            if not self._implementation_ready(segment):
                return
            skip = sorted(self.raw[t] for t in r.outcomes if t in self.raw)
            session = _Session(self, _spawn(self.scratch, wall, suite, self.module, self.sandbox, self.marker,
                                            self.hidden), skip)
            r.processes += 1
            ended_in_a_test = session.run()
            if not ended_in_a_test or session.run_limit or not [t for t in r.collected if t not in r.outcomes]:
                break
        self._conclude()

    def _implementation_ready(self, segment: int) -> bool:
        """The implementation's process, (re)started when it is not running."""
        r = self.result
        if self.served is not None and self.served.alive:
            self.fresh_served = False  # its CPU so far is already counted
            return True
        if self.served is not None:
            self.served.close()
        why = ""
        for _attempt in range(2):  # a load that ran out of (wall) time is tried once more, in a new process
            # ref_deps: L8.1's SamplingParams/sample and M05.2's byte map, supplied only where the module lacks
            # them (a seed reader imports them from the earlier lessons), as `check --ref-deps` does
            self.served = ServedImplementation(self.implementation.spec, ref_deps=POLICY.ref_deps,
                                               limits=self.sandbox, marker=self.marker)
            try:
                self.served.start()
                self.served.deadline = self.wall_end
                self.fresh_served = True  # its load counts in this process's CPU seconds
                return True
            except RemoteError as exc:  # the module itself failed (an import error): no second try
                why = escape(str(exc))[:500]
                break
            except CandidateGone as exc:
                why = escape(str(exc))[:500]
                if not isinstance(exc, CandidateTimeout):
                    break
        if segment == 0:
            r.verdict, r.detail = "implementation did not load", why
        else:
            r.detail = f"the implementation could not be started again for the tests left: {why}"
            self._conclude()
        return False

    def _conclude(self) -> None:
        r = self.result
        for test in r.collected:
            r.outcomes.setdefault(test, "not run")
        if r.verdict == "completed" and r.collect_errors:
            r.verdict, r.detail = "collection error", r.collect_errors[0][:500]
        elif r.verdict == "completed" and not r.collected:
            r.verdict, r.detail = "no tests", "pytest collected no test"

    def close(self) -> None:
        if self.served is not None:
            self.served.close()
        shutil.rmtree(self.scratch, ignore_errors=True)


def _prepare(scratch: Path, suite_dir: Path) -> tuple[Path, Path]:
    """A private, world-readable copy of the shim (as ``_gradewall``) and of the suite,
    and an empty folder (``mask``) to lay over the harness's packages."""
    if not suite_dir.is_dir():
        raise ValueError(f"the student's suite {suite_dir} is not a folder")
    size = sum(p.stat().st_size for p in suite_dir.rglob("*") if p.is_file() and not p.is_symlink())
    if size > MAX_SUITE_BYTES:
        raise ValueError(f"the student's suite {suite_dir} holds {size} bytes (more than {MAX_SUITE_BYTES})")
    wall = scratch / "wall"
    shutil.copytree(SHIM_DIR, wall / "_gradewall", ignore=shutil.ignore_patterns("__pycache__"))
    for shared in ("sandbox/channel.py", "sandbox/proxying.py", "sandbox/shapes.py"):  # shared with the shim
        shutil.copyfile(ROOT / "harness" / shared, wall / "_gradewall" / Path(shared).name)
    suite = scratch / "suite"
    shutil.copytree(suite_dir, suite, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    if _uses_hypothesis(suite):  # the shim lays it into each process's home (boot._lay_unicode_table)
        (wall / "_gradewall" / unicode_table.FILE_NAME).write_bytes(unicode_table.table_bytes())
    (scratch / "mask").mkdir()
    for path in [scratch, *scratch.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    return wall, suite


def _uses_hypothesis(suite: Path) -> bool:
    """Whether a file of the suite names Hypothesis (as ``shim.boot`` decides to pass it the seed)."""
    return any(b"hypothesis" in p.read_bytes() for p in suite.rglob("*.py") if p.is_file() and not p.is_symlink())


class _Process:
    """The student's process: popen, its bounded output, the kill."""

    def __init__(self, proc: subprocess.Popen, sock: socket.socket, plan: confine.Plan, home: Path):
        self.proc, self.sock, self.plan, self.home = proc, sock, plan, home
        self.chunks: list[bytes] = []
        self.total = 0
        self.reader = threading.Thread(target=self._drain, daemon=True)
        self.reader.start()

    def _drain(self) -> None:
        while True:
            chunk = self.proc.stdout.read1(1 << 16)
            if not chunk:
                break
            self.total += len(chunk)
            if sum(map(len, self.chunks)) < OUTPUT_CHARS:
                self.chunks.append(chunk)

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def end(self, marker: str) -> int | None:
        self.sock.close()
        try:
            code = self.proc.wait(timeout=3.0)
        except subprocess.TimeoutExpired:
            code = None
        self.kill()
        if not self.plan.mode.startswith("bubblewrap"):  # unconfined: no PID namespace ends them
            confine.kill_marked(marker)  # this run's marker only: a parallel run has its own
        self.proc.wait()
        self.plan.release()  # what is left in its cgroup ended, the cgroup removed, its uid freed
        self.reader.join(timeout=5.0)
        shutil.rmtree(self.home, ignore_errors=True)
        return code

    def output(self) -> str:
        text = b"".join(self.chunks).decode("utf-8", "replace")[:OUTPUT_CHARS]
        more = f"\n... ({self.total - OUTPUT_CHARS} more bytes)" if self.total > OUTPUT_CHARS else ""
        return escape(_without_timings(text), keep_newlines=True) + more


def _bounded(previous: str, output: str) -> str:
    """A run's output: each process's output after the earlier ones', while the whole stays
    within ``OUTPUT_CHARS`` (and the notes of what was cut)."""
    room = OUTPUT_CHARS + 200 - len(previous)
    if len(output) <= room:
        return previous + output
    if previous.endswith(OUTPUT_CUT):
        return previous
    return previous + output[:max(0, room)] + OUTPUT_CUT


OUTPUT_CUT = "\n... (more output cut)"


SUMMARY_TIME = re.compile(r"(\d+ (?:passed|failed|errors?|skipped|deselected|warnings?|xfailed|xpassed|"
                          r"rerun)[^\n]*?) in \d+(?:\.\d+)?s(?: \(\d+:\d\d:\d\d\))?")


def _without_timings(text: str) -> str:
    """pytest's summary line without its duration (a report is the same on a busy machine)."""
    return SUMMARY_TIME.sub(r"\1", text)


def _spawn(scratch: Path, wall: Path, suite: Path, module: str, limits: confine.Limits, marker: str,
           secret: list[Path]) -> _Process:
    home = Path(tempfile.mkdtemp(prefix="home-", dir=scratch))
    hidden = [Path(tempfile.gettempdir()).resolve(), Path.home().resolve(), *secret]
    masks = [(scratch / "mask", path) for path in harness_locations()]
    seen = [(wall, SEEN_AS / "wall"), (suite, SEEN_AS / "suite")]
    plan = confine.plan(limits, [*seen, *masks], [h for h in hidden if h != Path("/")], home, marker)
    if plan.mode.startswith("bubblewrap"):  # the same paths in every run: a report shows no scratch folder's name
        wall, suite = (inside for _, inside in seen)
    env = {**plan.env, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    parent, child = socket.socketpair()
    code = (f"import sys; sys.path[:0] = [{str(wall)!r}]; from _gradewall.boot import main; "
            f"sys.exit(main({child.fileno()}, {module!r}, {str(suite)!r}))")
    python = sys.executable  # the venv's interpreter: pytest, numpy, hypothesis are in its site-packages
    try:
        proc = subprocess.Popen(plan.prefix + [python, "-I", "-B", "-c", code], env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                pass_fds=(child.fileno(), *plan.pass_fds),  # the socket, the seccomp filter
                                start_new_session=True, preexec_fn=plan.preexec, cwd=str(home))
    finally:
        child.close()
        plan.release_fds()  # the seccomp filter: bwrap has its own copy
    return _Process(proc, parent, plan, home)


class _Session:
    """One student process of a run: the relay loop, the CPU watch, what it learns of each test."""

    def __init__(self, run: _Run, student: _Process, skip: list[str]):
        self.run_, self.student, self.skip = run, student, skip
        self.result, self.served, self.limits = run.result, run.served, run.limits
        self.gate = Gate(public_names())
        self.current: str | None = None
        self.test_started = 0.0
        self.calls: list[str] = []
        self.labels: dict[int, str] = {1: "constrain"}  # handle -> the name the tests got it by
        self.exit_code: int | None = None
        self.tripped: tuple[str, bool] | None = None  # (why, by the wall-clock backstop)
        self.run_limit = False  # the run's own limit (not a test's) ended this process
        self.stopped = threading.Event()
        self.clock = TreeClock()
        # the implementation may have served an earlier process of the run: only its CPU from now on counts
        self.offset = 0.0 if run.fresh_served else self.served.cpu_seconds()

    def run(self) -> bool:
        """Relay until the process ends; whether it ended during a test (crash or limit)."""
        watch = threading.Thread(target=self._watch, daemon=True)
        watch.start()
        verdict, detail = "completed", ""
        try:
            channel.send(self.student.sock, {"names": sorted(self.gate.names), "seed": self.run_.seed,
                                             "skip": self.skip})
            verdict, detail = self._loop(self.student.sock)
        except OSError:
            verdict = "crashed"
        finally:
            self.stopped.set()
            watch.join()
            self._cpu()  # the last reading: before the student's process is reaped, its children's time included
            code = self.student.end(self.run_.marker)
            self.run_.cpu_before += self._cpu(final=True)
            self.result.output = _bounded(self.result.output, self.student.output())
        if self.tripped is not None:
            verdict, detail = "timeout", self.tripped[0]
            self.result.backstop |= self.tripped[1]
        elif verdict == "completed" and self.exit_code is None:
            verdict = "crashed"
            detail = f"the suite's process ended {'during a test' if self.current else 'outside a test'} (exit {code})"
        return self._conclude(verdict, detail)

    def _watch(self) -> None:
        """Every ``POLL_SECONDS``: the CPU seconds of both process trees against the test's
        and the run's limits, the wall clock against their backstops; a limit hit ends the
        student's process (and the implementation's, which may be the one busy)."""
        watched, cpu0 = None, 0.0
        while not self.stopped.wait(POLL_SECONDS):
            now, current = time.monotonic(), self.current
            cpu = self._cpu()
            if current != watched:
                watched, cpu0 = current, cpu
            why = None
            if current is not None and cpu - cpu0 > self.limits.test_cpu:
                why = (f"the test used more than {self.limits.test_cpu:g} CPU seconds (the per-test limit)", False)
            elif self.run_.cpu_before + cpu > self.limits.run_cpu:
                why, self.run_limit = (f"the run used more than {self.limits.run_cpu:g} CPU seconds "
                                       f"(the per-run limit)", False), True
            elif current is not None and now - self.test_started > self.limits.test_wall:
                why = (f"wall-clock backstop: the test ran {self.limits.test_wall:g} s without using its "
                       f"{self.limits.test_cpu:g} CPU seconds (it sleeps or blocks)", True)
            elif now > self.run_.wall_end:
                why, self.run_limit = (f"wall-clock backstop: the run ran {self.limits.run_wall:g} s without "
                                       f"using its {self.limits.run_cpu:g} CPU seconds (it sleeps or blocks)",
                                       True), True
            if why is not None:
                self.tripped = why
                self.student.kill()
                self.served.kill()
                return

    def _cpu(self, final: bool = False) -> float:
        """CPU seconds of this process's run so far: the student's tree and the implementation's."""
        if final:
            return max(0.0, self.clock.seconds - self.offset)
        return max(0.0, self.clock.read(self._trees_cpu()) - self.offset)

    def _trees_cpu(self) -> float:
        """CPU seconds of both trees, each counted over every process it ever ran: the
        student's by its cgroup (``confine.Plan.cpu_seconds``), the implementation's likewise
        (``Candidate.cpu_seconds``); auto-reaped and double-forked children included."""
        student = self.student.plan.cpu_seconds(self.student.proc.pid)
        return student + self.served.cpu_seconds()

    def _loop(self, sock: socket.socket) -> tuple[str, str]:
        for _ in range(MAX_REQUESTS):
            try:
                frame = channel.receive(sock, self.run_.wall_end + 5.0)  # the watch ends the process first
            except channel.ChannelClosed:
                return "completed", ""
            except channel.ChannelTimeout:
                return "timeout", "the run's wall-clock backstop passed"
            except channel.ProtocolError as exc:
                return "flood", escape(f"the suite broke the channel's rules: {exc}")[:500]
            except OSError:
                return "crashed", ""
            if isinstance(frame, list) and frame and isinstance(frame[0], str) and frame[0].startswith("@"):
                self._report(frame)
                continue
            channel.send(sock, self._serve(frame))
        return "flood", f"more than {MAX_REQUESTS} requests in one process"

    def _serve(self, request) -> list:
        why = self.gate.refusal(request)
        if why:
            return refused(why)
        self._remember(request)
        answer = self.gate.answer(request)
        if answer is not None:
            return answer
        try:
            reply = self.gate.clean(request, self.served.forward(self.gate.inward(request)))
            if reply[0] == "ok" and isinstance(reply[1], channel.Handle) and reply[1].id not in self.labels:
                self.labels[reply[1].id] = f"{self.labels.get(request[1], '?')}.{request[2]}" \
                    if request[0] == "getattr" else reply[1].kind
            return reply
        except CandidateGone:
            return ["gone", normalise.gone(self.gate.label(request)), None]

    def _remember(self, request: list) -> None:
        op, target, name, args, kwargs = request
        if op in ("call", "many"):
            shown = ", ".join([*map(_short, args), *(f"{k}={_short(v)}" for k, v in kwargs.items())])
            function = self.labels.get(target, "object") + (f".{name}" if name else "")
            self.calls = (self.calls + [escape(f"{function}({shown})")[:INPUT_CHARS]])[-3:]

    def _name(self, raw) -> str:
        """A test id as the reports show it (escaped, bounded), remembered with its raw form."""
        raw = str(raw)
        shown = escape(raw)[:NAME_CHARS]
        self.run_.raw.setdefault(shown, raw)
        return shown

    def _report(self, frame: list) -> None:
        kind, fields = frame[0], frame[1:]
        r = self.result
        if kind == "@collected" and fields and isinstance(fields[0], list):
            names = [self._name(t) for t in fields[0][:100_000]]
            if not self.skip:  # a later process collects only the tests left
                r.collected = names
        elif kind == "@collect-error" and len(fields) >= 2:
            where = self._name(fields[0])
            r.errored_files.append(where)
            r.collect_errors.append(f"{where}: {escape(str(fields[1])[:1000], keep_newlines=True)}")
        elif kind == "@start" and fields:
            self.current, self.calls, self.test_started = self._name(fields[0]), [], time.monotonic()
        elif kind == "@result" and len(fields) >= 3:
            test, outcome, message = self._name(fields[0]), str(fields[1]), str(fields[2])
            if test not in r.outcomes and outcome in ("passed", "failed", "error", "skipped"):
                r.outcomes[test] = outcome
                if outcome in ("failed", "error"):
                    r.messages[test] = escape(message[:2000], keep_newlines=True)
                    r.inputs[test] = "; ".join(self.calls)
            self.current = None
        elif kind == "@exit" and fields and isinstance(fields[0], int):
            self.exit_code = fields[0]

    def _conclude(self, verdict: str, detail: str) -> bool:
        r, test = self.result, self.current
        in_a_test = test is not None and test not in r.outcomes
        if in_a_test:
            r.outcomes[test] = "timeout" if verdict == "timeout" else "crashed"
            r.messages[test] = detail or f"the suite's process ended during this test ({verdict})"
            r.inputs[test] = "; ".join(self.calls)
        if verdict != "completed" and r.verdict == "completed":  # the run's verdict: its first incident
            r.verdict, r.detail = verdict, detail
        return in_a_test and verdict in ("timeout", "crashed")


def _short(value) -> str:
    if isinstance(value, channel.Handle):
        return f"<{value.kind}>"
    if isinstance(value, channel.Described):
        return f"<{value.kind}>"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
