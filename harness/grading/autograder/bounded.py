"""One submission's check run under the per-submission limit: CPU seconds of its process
tree, with a wall-clock backstop; and the optional limit of a whole class.

``run_bounded(command, log, cwd, cpu_limit, wall_limit, budget=None)`` starts ``command``
(a ``check`` run) in its own session and returns a ``RunOutcome``:

- the **CPU limit** counts the CPU seconds of every process the run ever ran (the check
  process, its pytest children, the confined candidate processes and whatever they
  start, children reaped by the kernel (``SIGCHLD`` ignored) and double-forked ones
  included): the run starts in a **cgroup of its own** (``harness.sandbox.resources.Cgroup``,
  entered between fork and exec, so nothing escapes it), and the candidates' cgroups, made
  under their grader's own cgroup, nest in it, so its ``cpuacct.usage`` (v2: ``cpu.stat``)
  is the whole run's, processes gone included. Where no cgroup can be made (``resources.
  unavailable()``) it falls back to ``/proc`` (``utime + stime`` of every live process of
  the tree, plus ``cutime + cstime``, what each has reaped: blind to auto-reaped children)
  and ``wait4``'s resource usage on exit; ``RunOutcome.counted`` says which. Past the limit
  less one sample's worth (``POLL_SECONDS[0]`` x the cores: the most the tree can burn
  between two samples, at least half the limit), the tree is killed and ``stopped`` is
  ``"cpu"``, so a run does not pass its printed limit (invariant, as long as the sampling
  thread wakes within a sample's time of when it asked: on a machine so loaded that it does
  not, the tree is slowed as much). A scan of
  ``/proc`` costs ~5-30 ms, so it is adaptive: the tree burns at most one CPU second per
  core per second, so the next sample comes after half the time it needs to reach a limit
  (between ``POLL_SECONDS``' bounds, 0.25 and 5 s): far from a limit a run costs one scan
  per 5 s (a cgroup's counter is one file read). ``RLIMIT_CPU`` on the
  check process itself (the limit plus a margin) is a second line where ``/proc`` is missing;
- the **wall backstop** (``harness.policy``: 10x the CPU limit, or less where the
  platform's own wall clock is shorter, e.g. Gradescope's 10 minutes) stops a run that
  sleeps or blocks: ``stopped`` is ``"wall"``;
- ``budget`` (a ``ClassBudget``, ``check --batch --class-limit``) is charged with the
  tree's CPU as it runs; once the class's total passes its limit every run in progress is
  stopped (``stopped`` is ``"class"``): the batch then ends like an interruption, and no
  student gets a verdict because the class ran out of time.

The run's ``TMPDIR`` is a folder of its own inside ``cwd``, removed when the run is over: a run
stopped at a limit is killed (no cleanup of its own), and its temporary files (the check's
``constrain-check-*`` folder, the candidates' scratch) would otherwise stay behind, one per
timed-out submission of a batch.

Guarantee: when ``run_bounded`` returns, no process of the run's tree or session is left:
a run stopped at a limit has its tree (found by parent links and by session in ``/proc``)
stopped with SIGSTOP, scan after scan until no new process appears (a stopped process
cannot fork, so none escapes by a fork during the scan), then killed, while its root is
alive; a run that ended by itself has its session killed before its root is reaped (so
the pid names nothing else). A process that left both before the end (a double fork,
then ``setsid``) is out of reach here: the sandbox's PID namespace ends those
(``harness.sandbox.confine``).

Example::

    >>> outcome = run_bounded(["python", "-c", "while True: pass"], log, Path("/tmp"), 2.0, 20.0)
    >>> outcome.stopped, outcome.cpu_seconds > 2.0
    ('cpu', True)
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from harness.sandbox import resources
from harness.sandbox.cputime import stat_fields

__all__ = ["RunOutcome", "ClassBudget", "run_bounded", "stop_all_runs", "POLL_SECONDS"]

POLL_SECONDS = (0.25, 5.0)  # a run's tree CPU is sampled at most this often / at least this often
_RLIMIT_MARGIN = 5.0        # RLIMIT_CPU of the check process: the limit plus this (the sampler acts first)
_TICKS = os.sysconf("SC_CLK_TCK")
_MAX_SCANS = 20             # scans of the process table while stopping a tree (each finds the newly forked)
GONE_SECONDS = 5.0          # after SIGKILL, a stopped tree is waited for (gone or a zombie) at most this long


@dataclass(frozen=True)
class RunOutcome:
    """How a bounded run ended: ``exit_code`` (None when it was stopped), ``stopped``
    (``""``, ``"cpu"``, ``"wall"`` or ``"class"``), the run's CPU and wall seconds, and how
    the CPU was counted (``counted``: ``"cgroup"`` or ``"proc"``, module docstring)."""

    exit_code: int | None
    stopped: str
    cpu_seconds: float
    wall_seconds: float
    counted: str = "proc"


class ClassBudget:
    """CPU seconds for a whole class (``--class-limit``), shared by the runs in progress,
    with a wall backstop of ``wall_limit`` seconds from its creation."""

    def __init__(self, cpu_limit: float, wall_limit: float):
        self.cpu_limit, self.wall_limit = cpu_limit, wall_limit
        self._start = time.monotonic()
        self._spent = 0.0                      # CPU of the runs that ended
        self._running: dict[int, float] = {}   # run (its pid) -> its tree's CPU so far
        self._lock = threading.Lock()

    def charge(self, run: int, cpu: float, done: bool = False) -> None:
        with self._lock:
            if done:
                self._running.pop(run, None)
                self._spent += cpu
            else:
                self._running[run] = cpu

    @property
    def used(self) -> float:
        with self._lock:
            return self._spent + sum(self._running.values())

    @property
    def wall_left(self) -> float:
        return self.wall_limit - (time.monotonic() - self._start)

    @property
    def exhausted(self) -> bool:
        return self.used > self.cpu_limit or self.wall_left < 0


# The runs in progress (several at once under check --batch --jobs N), so that an
# interrupted batch ends them all: they run in their own sessions and never see Ctrl-C.
_RUNNING: set[subprocess.Popen] = set()
_RUNNING_LOCK = threading.Lock()


def run_bounded(command: list[str], log, cwd: Path, cpu_limit: float, wall_limit: float,
                budget: ClassBudget | None = None, env: dict[str, str] | None = None) -> RunOutcome:
    """Run ``command`` with output to ``log`` (and ``env``, default this process's; its
    ``TMPDIR`` a folder of the run's own) under the limits (see the module docstring)."""
    with tempfile.TemporaryDirectory(prefix="tmp-", dir=cwd, ignore_cleanup_errors=True) as private_tmp:
        env = {**(os.environ if env is None else env), "TMPDIR": private_tmp}
        group = _run_cgroup()
        try:
            return _run_bounded(command, log, cwd, cpu_limit, wall_limit, budget, env, group)
        finally:
            if group is not None:
                group.remove()


RUN_TASKS = 8192          # the run's cgroup: a bound far above its candidates' own (each has its pids.max)
RUN_MEMORY_MB = 1 << 20   # ... and no memory bound of its own (each candidate has its memory.limit)


def _run_cgroup() -> "resources.Cgroup | None":
    """A cgroup for one run (its CPU counter is what matters), or None where none can be made."""
    try:
        return resources.Cgroup.make(RUN_TASKS, RUN_MEMORY_MB)
    except resources.ResourcesUnavailable:
        return None


def _run_bounded(command: list[str], log, cwd: Path, cpu_limit: float, wall_limit: float,
                 budget: ClassBudget | None, env: dict[str, str], group=None) -> RunOutcome:
    start = time.monotonic()
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=cwd,
                            start_new_session=True, preexec_fn=_preexec(cpu_limit, group), env=env)
    with _RUNNING_LOCK:
        _RUNNING.add(proc)
    monitor = _Monitor(proc.pid, cpu_limit, wall_limit, budget, group)
    monitor.thread.start()
    try:
        os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)  # ended, not reaped: its pid stays ours
    finally:
        monitor.finish()
        _kill_tree(proc.pid)   # what it left in its session
        _pid, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        with _RUNNING_LOCK:
            _RUNNING.discard(proc)
    cpu = max(monitor.cpu, monitor.read_cpu(), usage.ru_utime + usage.ru_stime)
    if budget is not None:
        budget.charge(proc.pid, cpu, done=True)
    stopped = monitor.stopped or ("cpu" if proc.returncode == -signal.SIGXCPU else "")
    return RunOutcome(None if stopped else proc.returncode, stopped, cpu, time.monotonic() - start,
                      "cgroup" if group is not None else "proc")


class _Monitor:
    """Samples the run's tree every ``POLL_SECONDS`` and kills it past a limit."""

    def __init__(self, pid: int, cpu_limit: float, wall_limit: float, budget: ClassBudget | None, group=None):
        self.pid, self.cpu_limit, self.wall_limit, self.budget, self.group = pid, cpu_limit, wall_limit, budget, group
        self.cpu, self.stopped = 0.0, ""
        # stopped this far below the limit: the most the tree burns between two samples, so it never passes it
        self.stop_at = max(cpu_limit / 2, cpu_limit - POLL_SECONDS[0] * (os.cpu_count() or 1))
        self._start = time.monotonic()
        self._done = threading.Event()
        self.thread = threading.Thread(target=self._watch, name=f"limit-{pid}", daemon=True)

    def _next_sample(self) -> float:
        """Half the wall time the tree needs, at full speed on every core, to reach a limit."""
        cores = os.cpu_count() or 1
        left = [(self.stop_at - self.cpu) / cores, self.wall_limit - (time.monotonic() - self._start)]
        if self.budget is not None:
            left += [(self.budget.cpu_limit - self.budget.used) / cores, self.budget.wall_left]
        return min(POLL_SECONDS[1], max(POLL_SECONDS[0], min(left) / 2))

    def read_cpu(self) -> float:
        """The run's CPU seconds so far: its cgroup's counter (every process it ever ran), else
        the ``/proc`` tree's."""
        return self.group.cpu_seconds() if self.group is not None else _tree_cpu(self.pid)

    def _watch(self) -> None:
        while not self._done.wait(self._next_sample()):
            self.cpu = max(self.cpu, self.read_cpu())
            if self.budget is not None:
                self.budget.charge(self.pid, self.cpu)
            if self.cpu >= self.stop_at:
                self._stop("cpu")
            elif time.monotonic() - self._start > self.wall_limit:
                self._stop("wall")
            elif self.budget is not None and self.budget.exhausted:
                self._stop("class")

    def _stop(self, why: str) -> None:
        self.stopped = why
        _kill_tree(self.pid)
        self._done.set()

    def finish(self) -> None:
        self._done.set()
        self.thread.join()


def _preexec(cpu_limit: float, group):
    seconds = int(cpu_limit + _RLIMIT_MARGIN)

    def preexec() -> None:  # in the child before exec: the check process's own CPU; the sandbox sets its own
        if group is not None:
            group.enter(os.getpid())   # before its first instruction: every process it starts is counted
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, resource.RLIM_INFINITY))

    return preexec


def _processes() -> dict[int, tuple[int, int, float]]:
    """pid -> (parent pid, session, CPU seconds including reaped children), from ``/proc``."""
    table = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return table
    for name in names:
        if not name.isdigit():
            continue
        fields = stat_fields(int(name))
        if fields is None:
            continue  # ended meanwhile
        try:
            ticks = sum(int(fields[i]) for i in (11, 12, 13, 14))  # utime stime cutime cstime
            table[int(name)] = (int(fields[1]), int(fields[3]), ticks / _TICKS)
        except (IndexError, ValueError):
            continue
    return table


def _tree(root: int, table: dict[int, tuple[int, int, float]]) -> set[int]:
    """``root``, its descendants by parent links, and every process of its session."""
    children: dict[int, list[int]] = {}
    for pid, (parent, _session, _cpu) in table.items():
        children.setdefault(parent, []).append(pid)
    found, stack = set(), [root]
    while stack:
        pid = stack.pop()
        if pid not in found:
            found.add(pid)
            stack += children.get(pid, [])
    return found | {pid for pid, (_parent, session, _cpu) in table.items() if session == root}


def _tree_cpu(root: int) -> float:
    table = _processes()
    return sum(table[pid][2] for pid in _tree(root, table) if pid in table)


def _kill_tree(root: int) -> None:
    """Stop the tree first (``SIGSTOP``: a stopped process cannot fork), scanning again until
    a scan finds nobody new, so a child forked during the scan is caught while its parent
    still links to it; then ``SIGKILL`` every process found, and the root's group."""
    found: set[int] = set()
    for _ in range(_MAX_SCANS):
        new = _tree(root, _processes()) - found - {os.getpid()}
        if not new:
            break
        for pid in new:
            _signal(pid, signal.SIGSTOP)
        found |= new
    for pid in found:
        _signal(pid, signal.SIGKILL)
    try:
        os.killpg(root, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    _wait_gone(found)


def _wait_gone(pids: set[int], seconds: float = GONE_SECONDS) -> None:
    """Return once every one of ``pids`` is gone or a zombie (a ``SIGKILL`` takes effect when
    the process is next scheduled: on a busy machine, a moment after it was sent), or after
    ``seconds``: so when a run returns, nothing of it is left running."""
    deadline = time.monotonic() + seconds
    while pids and time.monotonic() < deadline:
        pids = {pid for pid in pids if _running(pid)}
        if pids:
            time.sleep(0.005)


def _running(pid: int) -> bool:
    fields = stat_fields(pid)
    return bool(fields) and fields[0] != b"Z"


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def stop_all_runs() -> None:
    """Kill every run in progress (and its tree): Ctrl-C of a batch."""
    with _RUNNING_LOCK:
        running = list(_RUNNING)
    for proc in running:
        _kill_tree(proc.pid)
