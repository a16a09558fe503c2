"""A pytest plugin that measures what each test costs and whether it starts processes:
``python -m pytest -n 0 -p tests.support.cost_audit --cost-audit=PATH ...``.

For every test it writes one JSON line to ``PATH`` (``PATH.<worker id>`` under xdist): the test's
node id, whether it is marked ``e2e``, its wall seconds, its CPU seconds and the processes it started
(``os.fork``, ``os.posix_spawn``/``posix_spawnp``, ``subprocess.Popen``, a ``multiprocessing``
process of any start method), setup and teardown included (a module fixture's cost lands on the module's first test).

The CPU seconds are ``cpu``: this process's user + system time and that of its children reaped
meanwhile (``resource.getrusage``); and, where the cgroup v1 ``cpuacct`` hierarchy can be written
(a root in a container), ``cgroup_cpu``: the ``cpuacct.usage`` of a cgroup this process moves
into at the start, which every process it starts afterwards inherits: the confined candidates,
which nobody waits for, included. Neither counts a load on the machine.
At the end it prints the tests not marked ``e2e`` that started a process (docs/testing.md: a test is
``e2e`` when it starts a candidate process or runs a verb end to end; the fast loop leaves those
out) with their CPU seconds.

Its cgroup is removed at the session's end (``_CpuacctGroup.leave``: it waits up to
``LEAVE_SECONDS`` for processes the session started to leave it, as they end), and each session
first removes those of earlier sessions that are over (``_sweep``: a ``cost-audit-<pid>`` whose
pid no longer runs and which holds no process), so none is left behind for good.

Measurement only: it changes no outcome. Processes started by a process the test started (a
grandchild, a forkserver's child) are not counted as started; their CPU is in ``cgroup_cpu`` (in
``cpu`` only once reaped), so a test whose ``cgroup_cpu`` is well over its ``cpu`` ran processes
too, and the summary lists it.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

_started: Counter = Counter()
"""The processes started by the running test, by kind (reset before each test)."""


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


CPUACCT = Path("/sys/fs/cgroup/cpuacct")
PREFIX = "cost-audit-"  # + the session's pid: its cgroup's name
LEAVE_SECONDS = 5.0  # wall: how long the session's end waits for its processes to leave its cgroup
UNSEEN_CHILDREN_CPU = 0.1
"""CPU seconds of a test's cgroup over its own and its reaped children's past which processes it
did not start itself ran for it (a forkserver's children, a child's children)."""


class _CpuacctGroup:
    """A cpuacct cgroup of this run (v1), or ``None`` from ``make`` where none can be made."""

    def __init__(self, folder: Path):
        self.folder = folder

    @classmethod
    def make(cls) -> "_CpuacctGroup | None":
        _sweep()
        folder = CPUACCT / f"{PREFIX}{os.getpid()}"
        try:
            folder.mkdir()
            (folder / "cgroup.procs").write_text(str(os.getpid()))
        except OSError:
            return None
        return cls(folder)

    def seconds(self) -> float:
        return int((self.folder / "cpuacct.usage").read_text()) / 1e9

    def leave(self) -> bool:
        """Back to the root cgroup, and this run's cgroup removed with the ones under it (a
        candidate's, which its grader leaves to the next one), once the processes the session
        started have left them (they end; waited for ``LEAVE_SECONDS`` at most, never ended here):
        the kernel refuses to remove a cgroup that holds a process, so one still in use then stays
        (the next session's ``_sweep`` removes it). Whether it is gone."""
        try:
            (CPUACCT / "cgroup.procs").write_text(str(os.getpid()))
        except OSError:
            return False
        deadline = time.monotonic() + LEAVE_SECONDS
        while not _remove_tree(self.folder) and time.monotonic() < deadline:
            time.sleep(0.05)
        return not self.folder.exists()


def _remove_tree(folder: Path) -> bool:
    """Remove ``folder`` and the cgroups under it, deepest first: whether it is gone (a cgroup that
    holds a process stays, and so do those above it)."""
    try:
        below = sorted((p for p in folder.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts))
    except OSError:
        below = []
    for path in [*below, folder]:
        try:
            path.rmdir()
        except OSError:
            pass  # a process still in it: it stays
    return not folder.exists()


def _sweep() -> None:
    """Remove the cgroups of earlier sessions that are over: ``cost-audit-<pid>`` whose pid runs no
    more (a session killed before its end, or one whose processes outlived ``LEAVE_SECONDS``) and
    whose own folder holds no process. A running session's own process is in its folder until its
    end (one in another PID namespace too, whose pid this ``/proc`` may not show), so neither it nor
    its candidates' cgroups below it are touched; one that still holds a process stays."""
    try:
        folders = [p for p in CPUACCT.glob(f"{PREFIX}*") if p.is_dir()]
    except OSError:
        return
    for folder in folders:
        pid = folder.name.removeprefix(PREFIX)
        if pid.isdigit() and not Path(f"/proc/{pid}").exists() and not _holds_a_process(folder):
            _remove_tree(folder)


def _holds_a_process(folder: Path) -> bool:
    try:
        return bool((folder / "cgroup.procs").read_text().split())
    except OSError:
        return True   # unreadable: left alone


_INSIDE = threading.local()  # depth of counted calls on this thread: one process start counts once


def _counted(kind: str, function):
    """``function``, counting each call as one process started under ``kind``, unless it runs
    inside another counted call (``Popen`` spawns through ``os.posix_spawn`` on 3.13+, a
    ``multiprocessing`` start forks): the outermost names the start."""
    def starts_a_process(*args, **kwargs):
        depth = getattr(_INSIDE, "depth", 0)
        if depth == 0:
            _started[kind] += 1
        _INSIDE.depth = depth + 1
        try:
            return function(*args, **kwargs)
        finally:
            _INSIDE.depth = depth

    starts_a_process.__wrapped__ = function
    return starts_a_process


def _patch_process_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    import multiprocessing.process

    monkeypatch.setattr(os, "fork", _counted("fork", os.fork))
    for name in ("posix_spawn", "posix_spawnp"):
        if hasattr(os, name):
            monkeypatch.setattr(os, name, _counted(name, getattr(os, name)))
    monkeypatch.setattr(subprocess.Popen, "_execute_child", _counted("Popen", subprocess.Popen._execute_child))
    # every start method's process, a forkserver's too (its server forks it: no fork in this process)
    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start",
                        _counted("multiprocessing", multiprocessing.process.BaseProcess.start))


def pytest_addoption(parser):
    parser.addoption("--cost-audit", metavar="PATH", default=None,
                     help="write each test's wall and CPU seconds and the processes it started to PATH "
                          "(JSON lines; tests/support/cost_audit.py)")


def pytest_configure(config):
    path = config.getoption("cost_audit")
    if path is None:
        return
    worker = getattr(config, "workerinput", {}).get("workerid")
    config.stash[_AUDIT] = _Audit(Path(f"{path}.{worker}" if worker else path))
    config.pluginmanager.register(config.stash[_AUDIT], "cost_audit_recorder")


class _Audit:
    def __init__(self, path: Path):
        self.path = path
        self.path.write_text("")
        self.flagged: list[tuple[str, float, dict]] = []
        self._patches = pytest.MonkeyPatch()
        _patch_process_starts(self._patches)
        self.group = _CpuacctGroup.make()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        _started.clear()
        wall, cpu = time.perf_counter(), _cpu_seconds()
        group = self.group.seconds() if self.group else None
        yield
        record = {"test": item.nodeid, "e2e": item.get_closest_marker("e2e") is not None,
                  "wall": round(time.perf_counter() - wall, 3), "cpu": round(_cpu_seconds() - cpu, 3),
                  "started": dict(_started)}
        if self.group:
            record["cgroup_cpu"] = round(self.group.seconds() - group, 3)
        with self.path.open("a") as out:
            out.write(json.dumps(record) + "\n")
        unseen_children = record.get("cgroup_cpu", 0.0) - record["cpu"] > UNSEEN_CHILDREN_CPU
        if (record["started"] or unseen_children) and not record["e2e"]:
            self.flagged.append((item.nodeid, record.get("cgroup_cpu", record["cpu"]), record["started"]))

    def pytest_terminal_summary(self, terminalreporter):
        if not self.flagged:
            return
        terminalreporter.section("tests not marked e2e that started a process (cost_audit)")
        for nodeid, cpu, started in sorted(self.flagged, key=lambda f: -f[1]):
            terminalreporter.write_line(f"{cpu:7.2f} CPU s  {nodeid}  {started}")

    def pytest_unconfigure(self, config):
        self._patches.undo()
        if self.group:
            self.group.leave()


_AUDIT = pytest.StashKey[_Audit]()
