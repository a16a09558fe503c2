"""CPU seconds of a process and of its process tree, read from ``/proc``; the load test.

A verdict must not depend on how busy the machine is, so every time limit of a grading
run counts CPU seconds (``harness.policy``), and wall time is only a backstop:

- ``tree_seconds(pid)``: the CPU seconds (user + system) ``pid`` and every live
  descendant of it have used, plus those of the descendants they already reaped
  (``cutime + cstime``). Under bubblewrap or ``unshare`` the candidate's tree is the
  descendants of the ``bwrap`` / ``unshare`` process: a daemon the candidate leaves is
  re-parented to the namespace's init, still in the tree. (In the ``fallback`` mode an
  orphan re-parents outside it; there ``RLIMIT_CPU`` on every process is the fence.)
- ``process_seconds(pid)``: ``pid``'s own CPU seconds, not its children's (the grader
  child's own work, which is the harness's, apart from the candidate it runs).
- ``machine_loaded()``: the one-minute load average exceeds the number of cores (a
  verdict reached by a wall-clock backstop on such a machine is retried once).

A process that is gone (or unreadable) counts 0; reading never raises. Linux only:
elsewhere every reading is 0.0 (then only ``RLIMIT_CPU`` and the backstop bound a call).

Example::

    >>> tree_seconds(os.getpid()) >= process_seconds(os.getpid()) >= 0.0
    True
"""

from __future__ import annotations

import os

__all__ = ["tree_seconds", "process_seconds", "machine_loaded", "stat_fields", "TICKS"]

TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
"""Clock ticks per second: the unit of ``/proc/<pid>/stat``'s times."""


def stat_fields(pid: int) -> list[bytes] | None:
    """The fields of ``/proc/PID/stat`` after the command name, or None when ``pid`` is gone.

    The command name may hold spaces and parentheses: the line is split at its last ``)``.
    Index 0 is the state (``Z``: a zombie), 1 the parent pid, 3 the session, 11-14 utime,
    stime, cutime, cstime in clock ticks (``proc(5)``'s fields 3, 4, 6, 14-17)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    return data[data.rfind(b")") + 2:].split()


def _stat(pid: int) -> tuple[int, int, int] | None:
    """(parent pid, own ticks, reaped children's ticks) of ``pid``, or None when gone."""
    fields = stat_fields(pid)
    try:
        return int(fields[1]), int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14])
    except (TypeError, IndexError, ValueError):
        return None


def process_seconds(pid: int) -> float:
    """``pid``'s own CPU seconds (user + system), 0.0 when it is gone."""
    stat = _stat(pid)
    return 0.0 if stat is None else stat[1] / TICKS


def tree_seconds(pid: int) -> float:
    """CPU seconds of ``pid`` and its descendants, reaped ones included (module docstring)."""
    root = _stat(pid)
    if root is None:
        return 0.0
    ticks, todo, seen = root[1] + root[2], [pid], {pid}
    while todo:  # a tree: every pid has one parent, so each is visited once (``seen``: against a pid reused)
        for child in _children(todo.pop()):
            stat = _stat(child) if child not in seen else None
            if stat is not None:
                seen.add(child)
                ticks += stat[1] + stat[2]
                todo.append(child)
    return ticks / TICKS


def _children(pid: int) -> list[int]:
    """The live children of ``pid``: ``/proc/<pid>/task/<tid>/children`` (each thread's),
    else, on a kernel without that file, a scan of every process's parent."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    children: list[int] = []
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                children += [int(c) for c in f.read().split()]
        except FileNotFoundError:
            if not os.path.exists(f"/proc/{pid}/task/{tid}"):
                continue  # the thread ended
            return _children_by_scan(pid)
        except (OSError, ValueError):
            continue
    return children


def _children_by_scan(pid: int) -> list[int]:
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    return [int(name) for name in names if name.isdigit() and (_stat(int(name)) or (None,))[0] == pid]


def machine_loaded() -> bool:
    """Whether the one-minute load average is above the number of cores."""
    try:
        return os.getloadavg()[0] > (os.cpu_count() or 1)
    except OSError:  # pragma: no cover - no load average on this platform
        return False
