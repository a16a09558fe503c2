"""One run: the student's suite against one implementation, each in its own confined process.

``run_suite(suite_dir, implementation, ...)`` starts the implementation behind the wall
(``relay.ServedImplementation``), then the student's process (``shim.boot`` under pytest,
confined by ``harness.sandbox.confine``), and relays every request between them through
the ``relay.Gate`` until the suite ends, the run's deadline passes, or a bound is hit.
It returns a ``RunResult``: per test ``passed``/``failed``/``error``/``skipped``, or
``timeout``/``crashed`` for the test that was running when the run ended that way, or
``not run``; and a run verdict (``VERDICTS``). ``only`` restricts the run to those tests
(the grader passes the tests valid on every wheat when it runs a chaff, so an invalid test
that hangs costs its time once per wheat run, not once per chaff).

What the student's process can see (bubblewrap mode): its own PID namespace (not the
implementation's process, not the grader's); a new root holding only the system's
folders and the interpreter's, read-only (``confine.SYSTEM_ROOTS``: no checkout, home or
other folder of the machine exists there; the checkout holding the harness and every
wheat's folder, ``secret_roots``, are also empty tmpfs should one lie in a system
folder), so no implementation's file is in its mount namespace; its own
copy of the suite and of the shim; an allowlisted environment with nothing about the
implementation; no network. The suite runs the grader's own interpreter (``sys.executable``,
so a venv's packages: pytest, numpy, hypothesis), whose prefixes and site folders
(``confine.interpreter_paths``) are bound back read-only over the tmpfs, also when the venv
lies inside the hidden checkout (CI's ``.venv``); an editable install's hook in that venv
(``__editable__*.pth`` and its finder) points at the hidden checkout and so finds nothing.
Each run is a fresh process with a fresh private ``/tmp`` and ``HOME``, so one run cannot
hand anything to the next (the suite cannot record a wheat's answers and compare later).
Without bubblewrap (``unshare``, which hides the processes only, or the fallback) no file
is hidden: the report's header says so.

Bounds: ``timeout`` seconds of wall clock per run (every call of the implementation
included), ``MAX_REQUESTS`` frames from the suite per run, ``MAX_SUITE_BYTES`` of suite
files, ``OUTPUT_CHARS`` of its output kept, the channel's ``MAX_FRAME`` per frame.

Example::

    >>> r = run_suite(Path("tests/student_suites/weak"), wheat("reference"), timeout=60)
    >>> r.verdict, sorted(set(r.outcomes.values()))
    ('completed', ['passed'])
"""

from __future__ import annotations

import os
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

from harness.gradetests.implementations import ROOT, Implementation
from harness.gradetests.relay import Gate, ServedImplementation, public_names, refused
from harness.sandbox import channel, confine
from harness.sandbox.client import CandidateGone, RemoteError

SHIM_DIR = Path(__file__).resolve().parent / "shim"
MAX_REQUESTS = 2_000_000
MAX_SUITE_BYTES = 16 << 20
OUTPUT_CHARS = 8000
INPUT_CHARS = 300
SYSTEM_DIRS = frozenset({"/", "/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc", "/opt", "/var", "/proc", "/sys",
                         "/dev", "/run"})
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
    seconds: float = 0.0
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


def run_suite(suite_dir: Path, implementation: Implementation, *, module: str = "tinyllm.infer.constrain",
              timeout: float = 60.0, marker: str = "", secrets: list[Path] | None = None,
              limits: confine.Limits = confine.Limits(), only: list[str] | None = None) -> RunResult:
    start = time.monotonic()
    deadline = start + timeout
    result = RunResult(implementation.id, implementation.role, "completed")
    scratch = Path(tempfile.mkdtemp(prefix="constrain-gradetests-"))
    # ref_deps: L8.1's SamplingParams/sample and M05.2's byte map, supplied only where the module lacks
    # them (a seed reader imports them from the earlier lessons), as `check --ref-deps` does
    served = ServedImplementation(implementation.spec, ref_deps=True, limits=limits, marker=marker or None)
    try:
        wall, suite = _prepare(scratch, Path(suite_dir))
        served.deadline = deadline
        try:
            served.start()
        except (RemoteError, CandidateGone) as exc:
            result.verdict, result.detail = "implementation did not load", str(exc)[:500]
            return result
        served.deadline = deadline
        _Session(result, served, Gate(public_names(), list(implementation.hide)), deadline, only).run(
            _spawn(scratch, wall, suite, module, limits, served.marker,
                   secrets if secrets is not None else secret_roots([implementation])))
        return result
    finally:
        served.close()
        shutil.rmtree(scratch, ignore_errors=True)
        result.seconds = time.monotonic() - start


def _prepare(scratch: Path, suite_dir: Path) -> tuple[Path, Path]:
    """A private, world-readable copy of the shim (as ``_gradewall``) and of the suite."""
    if not suite_dir.is_dir():
        raise ValueError(f"the student's suite {suite_dir} is not a folder")
    size = sum(p.stat().st_size for p in suite_dir.rglob("*") if p.is_file() and not p.is_symlink())
    if size > MAX_SUITE_BYTES:
        raise ValueError(f"the student's suite {suite_dir} holds {size} bytes (more than {MAX_SUITE_BYTES})")
    wall = scratch / "wall"
    shutil.copytree(SHIM_DIR, wall / "_gradewall", ignore=shutil.ignore_patterns("__pycache__"))
    for shared in ("sandbox/channel.py", "sandbox/proxying.py", "suite/shapes.py"):  # shared with the shim
        shutil.copyfile(ROOT / "harness" / shared, wall / "_gradewall" / Path(shared).name)
    suite = scratch / "suite"
    shutil.copytree(suite_dir, suite, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    for path in [scratch, *scratch.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    (scratch / "home").mkdir(mode=0o700)
    return wall, suite


class _Process:
    """The student's process: popen, its bounded output, the kill."""

    def __init__(self, proc: subprocess.Popen, sock: socket.socket, plan: confine.Plan):
        self.proc, self.sock, self.plan = proc, sock, plan
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
            confine.kill_marked(marker)
        self.proc.wait()
        self.reader.join(timeout=5.0)
        return code

    def output(self) -> str:
        from harness.sandbox.text import escape

        text = b"".join(self.chunks).decode("utf-8", "replace")[:OUTPUT_CHARS]
        more = f"\n... ({self.total - OUTPUT_CHARS} more bytes)" if self.total > OUTPUT_CHARS else ""
        return escape(text, keep_newlines=True) + more


def _spawn(scratch: Path, wall: Path, suite: Path, module: str, limits: confine.Limits, marker: str,
           secrets: list[Path]) -> _Process:
    hidden = [Path(tempfile.gettempdir()).resolve(), Path.home().resolve(), *secrets]
    plan = confine.plan(limits, [wall, suite], [h for h in hidden if h != Path("/")], scratch / "home", marker)
    env = {**plan.env, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    parent, child = socket.socketpair()
    code = (f"import sys; sys.path[:0] = [{str(wall)!r}]; from _gradewall.boot import main; "
            f"sys.exit(main({child.fileno()}, {module!r}, {str(suite)!r}))")
    python = sys.executable  # the venv's interpreter: pytest, numpy, hypothesis are in its site-packages
    try:
        proc = subprocess.Popen(plan.prefix + [python, "-I", "-B", "-c", code], env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, pass_fds=(child.fileno(),),
                                start_new_session=True, preexec_fn=plan.preexec, cwd=str(scratch / "home"))
    finally:
        child.close()
    return _Process(proc, parent, plan)


class _Session:
    """The relay loop of one run, and what it learns of each test."""

    def __init__(self, result: RunResult, served: ServedImplementation, gate: Gate, deadline: float,
                 only: list[str] | None):
        self.result, self.served, self.gate, self.deadline, self.only = result, served, gate, deadline, only
        self.current: str | None = None
        self.calls: list[str] = []
        self.labels: dict[int, str] = {1: "constrain"}  # handle -> the name the tests got it by
        self.exit_code: int | None = None

    def run(self, student: _Process) -> None:
        watchdog = threading.Timer(max(0.0, self.deadline - time.monotonic()), student.kill)
        watchdog.start()
        try:
            channel.send(student.sock, {"names": sorted(self.gate.names), "only": self.only})
            self.result.verdict, self.result.detail = self._loop(student.sock)
        except OSError:
            self.result.verdict = "crashed"
        finally:
            watchdog.cancel()
            code = student.end(self.served.marker)
            self.result.output = student.output()
        if time.monotonic() >= self.deadline and self.result.verdict in ("completed", "crashed"):
            self.result.verdict, self.result.detail = "timeout", "the run's deadline passed"
        self._conclude(code)

    def _loop(self, sock: socket.socket) -> tuple[str, str]:
        for _ in range(MAX_REQUESTS):
            try:
                frame = channel.receive(sock, self.deadline)
            except channel.ChannelClosed:
                return "completed", ""
            except channel.ChannelTimeout:
                return "timeout", "the run's deadline passed"
            except channel.ProtocolError as exc:
                return "flood", f"the suite broke the channel's rules: {exc}"
            except OSError:
                return "crashed", ""
            if isinstance(frame, list) and frame and isinstance(frame[0], str) and frame[0].startswith("@"):
                self._report(frame)
                continue
            channel.send(sock, self._serve(frame))
        return "flood", f"more than {MAX_REQUESTS} requests in one run"

    def _serve(self, request) -> list:
        why = self.gate.refusal(request)
        if why:
            return refused(why)
        self._remember(request)
        try:
            reply = self.gate.clean(self.served.forward(request))
            if reply[0] == "ok" and isinstance(reply[1], channel.Handle) and reply[1].id not in self.labels:
                self.labels[reply[1].id] = f"{self.labels.get(request[1], '?')}.{request[2]}" \
                    if request[0] == "getattr" else reply[1].kind
            return reply
        except CandidateGone as exc:
            return ["gone", self.gate.scrub(f"{type(exc).__name__}: {exc}")[:500], None]

    def _remember(self, request: list) -> None:
        op, target, name, args, kwargs = request
        if op in ("call", "many"):
            shown = ", ".join([*map(_short, args), *(f"{k}={_short(v)}" for k, v in kwargs.items())])
            function = self.labels.get(target, "object") + (f".{name}" if name else "")
            self.calls = (self.calls + [f"{function}({shown})"[:INPUT_CHARS]])[-3:]

    def _report(self, frame: list) -> None:
        kind, fields = frame[0], frame[1:]
        r = self.result
        if kind == "@collected" and fields and isinstance(fields[0], list):
            r.collected = [str(t) for t in fields[0]][:100_000]
        elif kind == "@collect-error" and len(fields) >= 2:
            r.collect_errors.append(f"{fields[0]}: {str(fields[1])[:1000]}")
        elif kind == "@start" and fields:
            self.current, self.calls = str(fields[0]), []
        elif kind == "@result" and len(fields) >= 3:
            test, outcome, message = str(fields[0]), str(fields[1]), str(fields[2])
            if test not in r.outcomes and outcome in ("passed", "failed", "error", "skipped"):
                r.outcomes[test] = outcome
                if outcome in ("failed", "error"):
                    r.messages[test] = message[:2000]
                    r.inputs[test] = "; ".join(self.calls)
            self.current = None
        elif kind == "@exit" and fields and isinstance(fields[0], int):
            self.exit_code = fields[0]

    def _conclude(self, code: int | None) -> None:
        r = self.result
        if self.current is not None and self.current not in r.outcomes:
            r.outcomes[self.current] = "timeout" if r.verdict == "timeout" else "crashed"
            r.messages[self.current] = r.detail or f"the suite's process ended during this test (exit {code})"
            r.inputs[self.current] = "; ".join(self.calls)
            if r.verdict == "completed":
                r.verdict = "crashed"
        for test in r.collected:
            r.outcomes.setdefault(test, "not run")
        for test in (self.only or []) if r.collect_errors else []:  # its file failed to import here
            if test not in r.outcomes:
                r.outcomes[test], r.messages[test] = "error", r.collect_errors[0][:2000]
        if r.verdict == "completed" and r.collect_errors:
            r.verdict, r.detail = "collection error", r.collect_errors[0][:500]
        elif r.verdict == "completed" and not r.collected:
            exit_code = self.exit_code if code is None else code
            r.verdict, r.detail = "no tests", f"pytest collected no test (exit {exit_code})"
        elif r.verdict == "completed" and self.exit_code is None:
            r.verdict, r.detail = "crashed", f"the suite's process ended before pytest finished (exit {code})"


def _short(value) -> str:
    if isinstance(value, channel.Handle):
        return f"<{value.kind}>"
    if isinstance(value, channel.Described):
        return f"<{value.kind}>"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
