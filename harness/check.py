"""Grading a candidate: the catalogue in a sandboxed child process, verdicts per test.

``run_check(CheckOptions(...)) -> CheckResult`` runs ``pytest harness/suite -p
harness.suite.plugin`` in a child process and reads the child's result file (one JSON
object per line, flushed as written; see ``harness.suite.plugin``) while it runs:

- **limits**: the child gets ``RLIMIT_CPU`` (the per-test timeout times the tests left,
  plus start-up), ``RLIMIT_AS`` (``--memory`` MB), ``RLIMIT_FSIZE`` (256 MB) and no core
  files; the parent enforces the wall clock: a test running longer than ``--timeout``
  seconds is killed (its whole process group) and gets the verdict ``timeout``.
- **crashes**: a child that dies mid-test (``os._exit``, a signal, the CPU or memory
  limit) blames the test that had started and not finished; the parent then starts a
  new child for the tests not yet run, so one crash costs one verdict, not sixteen.
  A crash while importing the candidate ends the run (it would crash again).
- **isolation**: when the process may (root, or user namespaces), the child runs in a
  private mount namespace where the harness's source tree (``harness``, ``oracles``,
  ``strategies``, ``golden`` and the checkout around them) is mounted read-only, so a
  candidate cannot rewrite a golden file or a test. Otherwise the parent checksums
  those files before and after and restores any the child changed (which assumes nobody
  else edits the checkout during the run, as on a grading machine; the environment
  variable ``CONSTRAIN_HARNESS_NO_MOUNTS=1`` forces this fallback). In both cases the
  child's working directory and ``HOME`` are a fresh temporary directory, and the
  plugin's tamper guard checks the oracles' modules after every test.

Statuses of a test: ``passed``, ``failed`` (an assertion: the candidate is wrong),
``error`` (the candidate raised where it should not, or a setup failed), ``skipped``,
``crashed``, ``timeout``, ``not run`` (the run stopped before it: a load failure or an
exhausted budget).

Exit code (``harness.exitcodes``): 2 when the spec names nothing loadable or the
contract check fails; else 3 when the candidate crashed or timed out (at import or in
any test, or ran out of memory); else 1 when a test failed or errored, or the candidate
changed the harness's files or modules (tampering); else 0.

Example::

    >>> result = run_check(CheckOptions(impl=None))      # the reference
    >>> result.exit_code, result.counts()["passed"]
    (0, 16)
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from harness.exitcodes import ExitCode
from harness.suite.catalogue import BY_NAME, NAMES

SUITE_DIR = Path(__file__).resolve().parent / "suite"
PACKAGE_ROOT = Path(__file__).resolve().parents[1]  # holds harness/, oracles/, strategies/, golden/
PROTECTED_PACKAGES = ("harness", "oracles", "strategies", "golden")
STATUSES = ("passed", "failed", "error", "skipped", "crashed", "timeout", "not run")
MAX_CHILDREN = 20  # one child per crash, at most: a candidate that crashes everywhere still ends
STARTUP_SECONDS = 60.0  # wall and CPU allowance for importing pytest, numpy and the candidate
FINISH_GRACE = 10.0  # seconds a child may take to exit after its session ended


@dataclass
class CheckOptions:
    """What to grade and under which limits (the ``check`` verb's options)."""

    impl: str | None = None
    ref_deps: bool = False
    deep: bool = False
    timeout: float = 60.0  # wall seconds per test
    memory: int = 2048  # MB of address space for the child
    only: tuple[str, ...] = ()  # test names to run (default: all)
    golden_file: str | None = None


@dataclass
class Verdict:
    """One test's verdict: ``status`` is one of ``STATUSES``; ``reason`` is one line."""

    name: str
    kinds: tuple[str, ...]
    status: str = "not run"
    reason: str = ""
    details: str = ""
    duration: float = 0.0


@dataclass
class CheckResult:
    """Everything the reports need (see ``harness.reports`` for the JSON layout)."""

    options: CheckOptions
    tests: list[Verdict] = field(default_factory=list)
    load: dict = field(default_factory=dict)
    tamper: list[dict] = field(default_factory=list)
    integrity: list[str] = field(default_factory=list)
    isolation: str = "checksums"
    children: list[dict] = field(default_factory=list)
    duration: float = 0.0
    exit_code: int = int(ExitCode.OK)

    def counts(self) -> dict[str, int]:
        counts = {status: 0 for status in STATUSES}
        for test in self.tests:
            counts[test.status] += 1
        return counts

    @property
    def verdict(self) -> str:
        return {0: "passed", 1: "failed", 2: "usage or contract error", 3: "crashed or timed out"}[self.exit_code]

    def to_dict(self) -> dict:
        return asdict(self)


# --------------------------------------------------------------------------- the run


def run_check(options: CheckOptions) -> CheckResult:
    """Grade ``options.impl``; never raises for anything the candidate does."""
    result = CheckResult(options)
    start = time.monotonic()
    expected = [n for n in NAMES if not options.only or n in options.only]
    result.tests = [Verdict(n, BY_NAME[n].kinds) for n in expected]
    snapshot = _checksum_tree() if not _mounts_available() else None
    result.isolation = "read-only mounts" if snapshot is None else "checksums"
    with tempfile.TemporaryDirectory(prefix="constrain-check-") as sandbox:
        for attempt in range(MAX_CHILDREN):
            done = {t.name for t in result.tests if t.status != "not run"}
            if attempt and (_pending(result) == [] and not options.deep):
                break
            outcome = _run_child(options, result, Path(sandbox), attempt, done)
            if outcome != "restart":
                break
    if snapshot is not None:
        result.integrity = _restore_tree(snapshot)
    _explain_not_run(result)
    result.duration = round(time.monotonic() - start, 2)
    result.exit_code = int(_exit_code(result))
    return result


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
    if result.load.get("status") in ("contract", "usage"):
        return ExitCode.USAGE
    statuses = {t.status for t in result.tests}
    last = result.children[-1] if result.children else {"returncode": 0, "killed": None}
    died = last["killed"] or last["returncode"] not in (0, 1, 5)  # 5: pytest found nothing to run
    if result.load.get("status") == "error" or statuses & {"crashed", "timeout"} or \
            (not result.load and statuses == {"not run"}) or ("not run" in statuses and died):
        return ExitCode.CRASHED
    if statuses & {"failed", "error", "not run"} or result.integrity or result.tamper:
        return ExitCode.FAILED
    return ExitCode.OK


def _run_child(options: CheckOptions, result: CheckResult, sandbox: Path, attempt: int, done: set[str]) -> str:
    """One child process; returns ``"restart"`` when tests remain after a crash."""
    results_file = sandbox / f"results-{attempt}.jsonl"
    results_file.touch()
    log = sandbox / f"child-{attempt}.log"
    left = len(_pending(result)) or 1
    cpu = int(STARTUP_SECONDS + options.timeout * left * (3 if options.deep else 1))
    command = _command(options, results_file, done)
    reader = _ResultReader(results_file)
    started = time.monotonic()
    with open(log, "wb") as out:
        child = subprocess.Popen(command, cwd=sandbox, env=_child_env(sandbox), stdin=subprocess.DEVNULL,
                                 stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                 preexec_fn=_limits(cpu, options.memory))
        try:
            killed = _watch(child, reader, result, options, started)
        except BaseException:  # e.g. Ctrl-C in the grader: never leave the child running
            _kill(child)
            raise
    records = reader.read_new()
    _apply(records, result)
    info = {"attempt": attempt, "returncode": child.returncode, "killed": killed,
            "seconds": round(time.monotonic() - started, 2), "output_tail": _tail(log)}
    result.children.append(info)
    return _after_exit(result, reader, child.returncode, killed, log)


def _command(options: CheckOptions, results_file: Path, done: set[str]) -> list[str]:
    command = [sys.executable, "-m", "pytest", str(SUITE_DIR), "-p", "harness.suite.plugin",
               "-p", "no:cacheprovider", "-q", "--no-header", "-o", "addopts=", "-o", "console_output_style=classic",
               "--rootdir", str(PACKAGE_ROOT), "--results-file", str(results_file)]
    if options.impl is not None:
        command += ["--impl", _absolute_spec(options.impl)]
    if options.ref_deps:
        command.append("--ref-deps")
    if options.deep:
        command.append("--deep")
    if options.golden_file:
        command += ["--golden-file", str(Path(options.golden_file).resolve())]
    selected = [n for n in NAMES if (not options.only or n in options.only) and n not in done]
    skip = (set(NAMES) - set(selected)) | (done - set(NAMES))
    if skip:
        command += ["--skip", ",".join(sorted(skip))]
    return command


def _absolute_spec(spec: str) -> str:
    path = Path(spec)
    if spec.endswith(".py") or path.exists() or "/" in spec:
        return str(path.resolve())
    return spec


def _child_env(sandbox: Path) -> dict[str, str]:
    env = dict(os.environ)
    paths = [str(PACKAGE_ROOT), os.getcwd()] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env.update(PYTHONPATH=os.pathsep.join(paths), PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0",
               PYTHONFAULTHANDLER="1", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               RAYON_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false", CONSTRAIN_HARNESS_PROFILE="ci",
               HOME=str(sandbox), TMPDIR=str(sandbox))
    return env


def _limits(cpu_seconds: int, memory_mb: int):
    protected = [] if os.environ.get("CONSTRAIN_HARNESS_NO_MOUNTS") else [str(p) for p in _protected_dirs()]

    def apply() -> None:  # runs in the child between fork and exec
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))
        resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
        resource.setrlimit(resource.RLIMIT_FSIZE, (256 << 20, 256 << 20))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if protected:
            _read_only_mounts(protected)
    return apply


# --------------------------------------------------------------------------- isolation

_CLONE_NEWNS, _MS_RDONLY, _MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 0x20000, 1, 32, 4096, 0x4000, 1 << 18


def _protected_dirs() -> list[Path]:
    """The checkout around the packages when it is one (a pyproject.toml next to them),
    else the package directories themselves."""
    if (PACKAGE_ROOT / "pyproject.toml").is_file():
        return [PACKAGE_ROOT]
    return [PACKAGE_ROOT / name for name in PROTECTED_PACKAGES if (PACKAGE_ROOT / name).is_dir()]


def _read_only_mounts(paths: list[str]) -> bool:
    """In a new mount namespace, bind each path read-only; False when not permitted."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(_CLONE_NEWNS) != 0:
            return False
        if libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
            return False
        for path in paths:
            target = path.encode()
            if libc.mount(target, target, None, _MS_BIND | _MS_REC, None) != 0:
                return False
            if libc.mount(b"none", target, None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY, None) != 0:
                return False
        return True
    except Exception:  # noqa: BLE001 - no libc or no permission: checksums take over
        return False


def _mounts_available() -> bool:
    """Whether a child can get read-only mounts here (tried once in a throwaway child)."""
    global _MOUNTS
    if os.environ.get("CONSTRAIN_HARNESS_NO_MOUNTS"):
        return False  # forced: checksums only (tests of the fallback use this)
    if _MOUNTS is None:
        probe = "import sys; from harness.check import _read_only_mounts as r, _protected_dirs as d; " \
                "import os; ok = r([str(p) for p in d()]); " \
                "sys.exit(0 if ok and not os.access(str(d()[0]), os.W_OK) else 1)"
        try:
            proc = subprocess.run([sys.executable, "-c", probe], cwd=str(PACKAGE_ROOT), timeout=30,
                                  capture_output=True, env={**os.environ, "PYTHONPATH": str(PACKAGE_ROOT)})
            _MOUNTS = proc.returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            _MOUNTS = False
    return _MOUNTS


_MOUNTS: bool | None = None


def _checksum_tree() -> dict[Path, bytes]:
    files = {}
    for directory in (PACKAGE_ROOT / name for name in PROTECTED_PACKAGES):
        for path in directory.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                files[path] = path.read_bytes()
    return files


def _restore_tree(snapshot: dict[Path, bytes]) -> list[str]:
    """Put back every protected file the child changed or deleted; one line per file."""
    changed = []
    for path, data in snapshot.items():
        now = path.read_bytes() if path.is_file() else None
        if now != data:
            path.write_bytes(data)
            what = "deleted" if now is None else f"changed (sha256 {hashlib.sha256(now).hexdigest()[:12]})"
            changed.append(f"{path.relative_to(PACKAGE_ROOT)} {what}; restored")
    return changed


# --------------------------------------------------------------------------- watching the child


class _ResultReader:
    """Reads the result file incrementally; a torn last line waits for the next read."""

    def __init__(self, path: Path):
        self.path = path
        self.offset = 0
        self.current: str | None = None  # the test started and not finished
        self.current_since = time.monotonic()
        self.finished_at: float | None = None  # when the session's "finish" record came

    def read_new(self) -> list[dict]:
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            data = f.read()
        end = data.rfind(b"\n") + 1
        self.offset += end
        records = []
        for line in data[:end].splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a line the candidate scribbled: ignored
            if not isinstance(record, dict):
                continue
            records.append(record)
            if record.get("event") == "start":
                self.current, self.current_since = record.get("test"), time.monotonic()
            elif record.get("event") in ("result", "load"):
                self.current = None
            elif record.get("event") == "finish":
                self.finished_at = time.monotonic()
        return records


def _watch(child: subprocess.Popen, reader: _ResultReader, result: CheckResult, options: CheckOptions,
           started: float) -> str | None:
    """Poll until the child exits; kill it when a test (or the load) overruns."""
    while child.poll() is None:
        time.sleep(0.05)
        _apply(reader.read_new(), result)
        limit = STARTUP_SECONDS + options.timeout if reader.current == "<load>" else options.timeout
        running = reader.current is not None and time.monotonic() - reader.current_since > limit
        idle = reader.current is None and time.monotonic() - max(started, reader.current_since) > \
            STARTUP_SECONDS + options.timeout
        lingering = reader.finished_at is not None and time.monotonic() - reader.finished_at > FINISH_GRACE
        if running or idle or lingering:
            _kill(child)
            if lingering:
                return f"still running {FINISH_GRACE:.0f} s after the session ended (a thread of the candidate?)"
            return f"wall-clock limit: {limit:.0f} s" if running else "no progress (start-up or between tests)"
    return None


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


def _after_exit(result: CheckResult, reader: _ResultReader, returncode: int, killed: str | None, log: Path) -> str:
    current = reader.current
    how = _how_it_ended(returncode, killed, log)
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


def _how_it_ended(returncode: int, killed: str | None, log: Path) -> str:
    if killed:
        return f"killed by the harness: {killed}"
    if returncode < 0:
        name = signal.Signals(-returncode).name
        gloss = {"SIGXCPU": "the CPU-time limit", "SIGSEGV": "a segmentation fault",
                 "SIGKILL": "killed (out of memory?)", "SIGABRT": "an abort"}.get(name, "a signal")
        return f"the child died of {name} ({gloss})" + _fatal_line(log)
    return f"the child exited with status {returncode} in the middle of the test (os._exit?)" + _fatal_line(log)


def _fatal_line(log: Path) -> str:
    for line in _tail(log).splitlines():
        if "Fatal Python error" in line or line.strip().startswith('File "'):
            if "Fatal" in line:
                continue
            if "/harness/" not in line and "/site-packages/" not in line and "/lib/python" not in line:
                return f"; at {line.strip()}"
    return ""


def _tail(log: Path, limit: int = 4000) -> str:
    try:
        data = log.read_bytes()
    except OSError:
        return ""
    text = data[-limit:].decode("utf-8", "replace")
    return text
