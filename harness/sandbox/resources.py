"""Each candidate's resources are its own: a cgroup per candidate, and a uid of its own.

All candidates of a machine run as unprivileged users, and the kernel's per-process limits
(``RLIMIT_CPU``, ``RLIMIT_AS``) and per-user limit (``RLIMIT_NPROC``) do not bound one
candidate: children reaped automatically (``SIGCHLD`` ignored) never reach any parent's CPU
count, three children of 500 MB each stay under a 512 MB address-space limit, and every
candidate running as ``nobody`` shares one process count, so one fork loop keeps its
classmates' candidates from starting. This module gives each candidate process tree what
the kernel counts as a whole:

- **a cgroup of its own** (``Cgroup``), which every process of the tree is in from before
  the candidate's first instruction (``Claim.enter``, called between fork and exec, so
  nothing escapes it; a process cannot leave a cgroup it has no write access to):
  its task count (``pids.max``: threads count too), its memory (``memory.limit_in_bytes``
  in v1, ``memory.max`` in v2: every page of every process, tmpfs files included; past it
  the kernel's out-of-memory killer ends a process of this cgroup, no other) and its CPU
  time (``cpuacct.usage`` in v1, ``cpu.stat``'s ``usage_usec`` in v2: every process it
  ever ran, auto-reaped, double-forked, in a new session or not). Where it lives: a
  cgroup v2 hierarchy where the machine delegates a subtree with the ``pids`` and
  ``memory`` controllers (under this process's own cgroup, or beside it), else the cgroup
  v1 hierarchies ``pids``, ``memory`` and ``cpuacct``, each under this process's own path
  there. ``Cgroup.remove`` SIGKILLs whatever is still in it, waits until it is empty and
  removes it;
- **a uid of its own** (``UidLease``) when the grader is root: one of ``UID_COUNT`` uids
  from ``UID_BASE``, held with a lock file per uid (``flock``, released when the grader
  ends, however it ends) and never handed out while a process of that uid still runs; so
  ``RLIMIT_NPROC`` counts this candidate's processes only.

``claim(limits, uid=...)`` makes both (``Claim``), or raises ``ResourcesUnavailable`` naming
why no cgroup can be made here (one line). ``unavailable()`` says so without leaving
anything behind (it makes and removes a probe cgroup once per process).
``CONSTRAIN_HARNESS_NO_CGROUP=1`` makes every cgroup unavailable (for the tests of the refusal
and of the weaker mechanism below).

**Where no cgroup can be made** (a container with a read-only ``/sys/fs/cgroup``) and the
grader is root, ``claim_uid_only(limits, why)`` offers the weaker mechanism, a ``Claim``
whose ``cgroup`` is a ``UidProcesses``: a uid of its own, so ``RLIMIT_NPROC`` (the per-user
process limit, ``limits.processes``) counts this candidate's processes only and no classmate
loses a process to it; its CPU seconds read from ``/proc`` over its process tree, live
processes and those they reaped (``Claim.cpu_seconds`` is None: ``confine.Plan.cpu_seconds``
then reads ``cputime.tree_seconds``), the PID namespace's init reaping every orphan, and
``RLIMIT_CPU`` on every process (children the kernel reaps unwaited, ``SIGCHLD`` ignored,
go uncounted but for that limit and the wall backstop); memory ``RLIMIT_AS`` per process
only (not the tree's). Its end SIGKILLs every process of the uid. The header says so
(``UidProcesses.describe``); without root (no uid to give) the verbs still refuse.

Guarantees: a ``Claim`` whose ``enter`` ran in a process bounds that process and every
process it starts by ``limits.processes`` tasks and ``limits.memory_mb`` MB in all;
``Claim.cpu_seconds()`` is their CPU seconds in all, those of processes already gone
included; after ``Claim.release()`` none of them runs, the cgroup is gone and the uid is
free for another candidate.

Known weak spots: the v2 path (a delegated subtree) is written to the kernel's documented
rules but this project's machines mount cgroup v1 only, so only v1 is exercised by the
tests; a grader killed by SIGKILL leaves its candidates' cgroups behind, empty (their PID
namespaces ended with it): the next process to make a cgroup removes them (``_sweep``).

Example::

    >>> c = claim(Limits(memory_mb=256, processes=64), uid=True)   # confine.Limits; doctest: +SKIP
    >>> c.describe()                                      # doctest: +SKIP +ELLIPSIS
    'a cgroup of its own (v1: pids, memory, cpuacct): 64 tasks, 256 MB and the CPU seconds counted over its ...'
    >>> c.uid                                             # doctest: +SKIP
    202124
    >>> c.release()                                       # doctest: +SKIP
"""

from __future__ import annotations

import errno
import fcntl
import os
import secrets
import signal
import tempfile
import time
import weakref
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Cgroup", "Claim", "ResourcesUnavailable", "UidLease", "UidProcesses", "claim", "claim_uid_only",
           "kill_all", "lease_uid", "unavailable", "UID_BASE", "UID_COUNT", "NO_CGROUP_ENV", "COULD_NOT_START"]

UID_BASE = 200_000
UID_COUNT = 4_000
"""The candidates' uids: ``UID_BASE`` to ``UID_BASE + UID_COUNT - 1``, past the usual system
and login uids and past the usual subordinate range (100000-165535) of user namespaces."""
NO_CGROUP_ENV = "CONSTRAIN_HARNESS_NO_CGROUP"
CGROUP_PREFIX = "constrain-harness-"
"""The name of every candidate cgroup starts so, then the grader's pid: ``constrain-harness-4711-9f3a2c01``."""
V1_CONTROLLERS = ("pids", "memory", "cpuacct")
V2_CONTROLLERS = ("pids", "memory")
PAGE_SLACK = 1 << 20  # bytes below its limit a cgroup's peak may stop at when its OOM killer runs (pages, rounding)
EMPTY_WAIT = 5.0  # seconds ``Cgroup.remove`` waits for its killed processes to be gone
COULD_NOT_START = "the harness could not start your code"
"""The first words of the verdict of a candidate the machine had no process or memory to start,
twice (``harness.sandbox.failures.HarnessCouldNotStart``): the course staff's business."""


class ResourcesUnavailable(RuntimeError):
    """No cgroup per candidate (or no uid) can be had here; ``str`` names why (one line)."""


# --------------------------------------------------------------------------- where cgroups are


@dataclass(frozen=True)
class _Hierarchy:
    """One mounted cgroup hierarchy: its version, controllers, and this process's cgroup in it
    as a folder of the machine (``own``: the mount point joined with our path)."""

    version: int
    controllers: frozenset
    own: Path


def _mounts() -> list[tuple[str, str, str, set[str]]]:
    """(mount point, root, file system type, super options) of every cgroup mount."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        before, _, after = line.partition(" - ")
        fields, tail = before.split(), after.split()
        if len(fields) >= 5 and len(tail) >= 3 and tail[0] in ("cgroup", "cgroup2"):
            found.append((fields[4].replace("\\040", " "), fields[3], tail[0], set(tail[2].split(","))))
    return found


def _own_paths() -> dict[str, str]:
    """This process's cgroup path per hierarchy key ("" for v2, else its controllers as in
    ``/proc/self/cgroup``, e.g. ``"memory"`` or ``"cpu,cpuacct"``)."""
    paths = {}
    try:
        with open("/proc/self/cgroup", encoding="utf-8", errors="replace") as f:
            for line in f.read().splitlines():
                _, key, path = line.split(":", 2)
                paths[key] = path
    except (OSError, ValueError):
        return {}
    return paths


def _hierarchies() -> list[_Hierarchy]:
    """Every cgroup hierarchy mounted here in which this process's own cgroup is visible."""
    own, found = _own_paths(), []
    for point, root, kind, options in _mounts():
        if kind == "cgroup2":
            key, controllers = "", _read(Path(point) / "cgroup.controllers").split()
        else:
            key = next((k for k in own if k and set(k.split(",")) <= options), None)  # e.g. "cpu,cpuacct"
            controllers = key.split(",") if key else []
        path = own.get(key) if key is not None else None
        if path is None or not (path == root or path.startswith(root.rstrip("/") + "/")):
            continue  # our cgroup is outside what this mount shows
        relative = path[len(root.rstrip("/")):].lstrip("/")
        found.append(_Hierarchy(2 if kind == "cgroup2" else 1, frozenset(controllers), Path(point) / relative))
    return found


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return ""


def _count(value: str | None) -> int:
    """A counter of a cgroup file (``"3"``), 0 when absent or unreadable."""
    return int(value) if value is not None and value.strip().isdigit() else 0


def _write(path: Path, value: str) -> None:
    with open(path, "w", encoding="ascii") as f:
        f.write(value)


# --------------------------------------------------------------------------- one candidate's cgroup


class Cgroup:
    """One candidate's cgroup: a folder in each hierarchy it needs, made with its limits set.
    ``folders`` is never empty: v1 ``(pids, memory, cpuacct)`` in that order (one folder may
    repeat, where two controllers share a hierarchy), v2 one folder; every process of the
    candidate is in all of them."""

    def __init__(self, version: int, folders: tuple[Path, ...]):
        self.version, self.folders = version, folders

    @classmethod
    def make(cls, processes: int, memory_mb: int) -> "Cgroup":
        """A new cgroup with these limits; raises ``ResourcesUnavailable`` (nothing left behind)."""
        if os.environ.get(NO_CGROUP_ENV):
            raise ResourcesUnavailable(f"cgroups are switched off ({NO_CGROUP_ENV} is set)")
        hierarchies = _hierarchies()
        if "swept" not in _PROBED:
            _PROBED["swept"] = _sweep(hierarchies)
        name = f"{CGROUP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
        reasons = []
        for attempt in (_make_v2, _make_v1):
            try:
                group = attempt(hierarchies, name)
            except ResourcesUnavailable as exc:
                reasons.append(str(exc))
                continue
            try:
                group._limit(processes, memory_mb)
            except OSError as exc:
                group.remove()
                reasons.append(f"cannot set the limits of {group.folders[0]}: {exc.strerror}")
                continue
            return group
        raise ResourcesUnavailable("; ".join(reasons))

    def _limit(self, processes: int, memory_mb: int) -> None:
        memory = str(memory_mb << 20)
        if self.version == 2:
            _write(self.folders[0] / "pids.max", str(processes))
            _write(self.folders[0] / "memory.max", memory)
            if (self.folders[0] / "memory.swap.max").exists():
                _write(self.folders[0] / "memory.swap.max", "0")
            return
        _write(self._file("pids.max"), str(processes))
        _write(self._file("memory.limit_in_bytes"), memory)
        try:  # memory and swap together, where swap is accounted (after the memory limit: it may not be lower)
            _write(self._file("memory.memsw.limit_in_bytes"), memory)
        except OSError:
            pass

    def _file(self, name: str) -> Path:
        """The control file ``name`` (``pids.max``, ``memory.peak``...) in the folder of its controller."""
        if self.version == 2:
            return self.folders[0] / name
        return self.folders[V1_CONTROLLERS.index(name.split(".")[0])] / name

    def describe(self) -> str:
        return "v2: pids, memory, cpu.stat" if self.version == 2 else "v1: pids, memory, cpuacct"

    def enter(self, pid: int) -> None:
        """Put ``pid`` (and so every process it starts from now on) into this cgroup."""
        for folder in dict.fromkeys(self.folders):
            _write(folder / "cgroup.procs", str(pid))

    def cpu_seconds(self) -> float:
        """CPU seconds of every process that ever ran in it (0.0 once it is removed)."""
        if self.version == 2:
            for line in _read(self._file("cpu.stat")).splitlines():
                if line.startswith("usage_usec "):
                    return int(line.split()[1]) / 1e6
            return 0.0
        usage = _read(self._file("cpuacct.usage"))
        return int(usage) / 1e9 if usage.isdigit() else 0.0

    def peak_memory(self) -> int:
        """The most bytes its processes held at once, as the kernel counted them (0 when unknown)."""
        value = _read(self._file("memory.peak" if self.version == 2 else "memory.max_usage_in_bytes"))
        return int(value) if value.isdigit() else 0

    def oom_killed(self, since: int = 0) -> bool:
        """Whether the kernel's OOM killer ended a process of it **at its own memory limit**: the
        cgroup's OOM-kill count (``oom_kills``) is above ``since`` (0: ever; a zygote's child passes
        the count at its fork, its cgroup being the zygote's) and its own limit was reached (v2
        ``memory.events``' ``oom``; v1 its peak at the limit, as the kernel leaves it at such a
        kill: v1's ``failcnt`` stays 0 there). A machine-wide OOM kill counts in the victim's cgroup
        too, below its limit: not this."""
        if self.oom_kills() <= since:
            return False
        if self.version == 2:  # its own limit: the local count where there is one (the grader's own
            local = self._memory_counts("memory.events.local")  # cgroup holds its candidates' below it)
            return _count((local or self._memory_counts("memory.events")).get("oom")) > 0
        limit = self.memory_limit_mb() << 20
        return limit > 0 and self.peak_memory() >= limit - PAGE_SLACK

    def oom_kills(self) -> int:
        """How many processes of it the kernel's OOM killer ended so far (v2 ``memory.events``'
        ``oom_kill``, v1 ``memory.oom_control``'s)."""
        return _count(self._memory_counts("memory.events" if self.version == 2 else "memory.oom_control")
                      .get("oom_kill"))

    def _memory_counts(self, name: str) -> dict[str, str]:
        return dict(line.split(None, 1) for line in _read(self._file(name)).splitlines() if " " in line)

    def tasks_limit(self) -> int:
        value = _read(self._file("pids.max"))
        return int(value) if value.isdigit() else 0

    def memory_limit_mb(self) -> int:
        value = _read(self._file("memory.max" if self.version == 2 else "memory.limit_in_bytes"))
        return int(value) >> 20 if value.isdigit() else 0

    def members(self) -> set[int]:
        """The pids in it now (every folder's, in case one was entered and another not yet)."""
        pids: set[int] = set()
        for folder in dict.fromkeys(self.folders):
            pids |= {int(p) for p in _read(folder / "cgroup.procs").split() if p.isdigit()}
        return pids

    def kill(self) -> None:
        """SIGKILL every process in it (one forked meanwhile: the next call, or ``remove``)."""
        if self.version == 2 and self._file("cgroup.kill").exists():
            try:
                _write(self._file("cgroup.kill"), "1")
                return
            except OSError:
                pass
        kill_all(self.members())

    def remove(self) -> bool:
        """Kill what is in it, wait (at most ``EMPTY_WAIT`` s) until it is empty, remove its
        folders; True when they are all gone. Never raises. The cgroups made inside it go first,
        their processes killed too (a grader run in a cgroup, ``autograder.bounded``, makes its
        candidates' cgroups inside that one; a grader killed before releasing them leaves them
        there, and a cgroup with a cgroup inside cannot be removed)."""
        deadline, pause = time.monotonic() + EMPTY_WAIT, 0.001
        left = list(dict.fromkeys(self.folders))
        while left:
            if self.members():
                self.kill()
            for folder in list(left):
                _remove_inner(folder)
                try:
                    folder.rmdir()
                    left.remove(folder)
                except FileNotFoundError:
                    left.remove(folder)
                except OSError as exc:
                    if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                        return False
            if left:
                time.sleep(pause)  # killed processes still exiting
                pause = min(0.05, pause * 2)
        return True


def own_cgroup() -> Cgroup | None:
    """The cgroup this process is in, read only (never limited, entered or removed from here; a
    grader asks it how its own child ended: ``Cgroup.oom_killed``), or None where no memory
    controller shows it: v2 where a v2 hierarchy has the memory controller, else the v1 folders
    (``V1_CONTROLLERS``; a controller not mounted reads as the memory folder)."""
    hierarchies = _hierarchies()
    for hierarchy in hierarchies:
        if hierarchy.version == 2 and "memory" in hierarchy.controllers:
            return Cgroup(2, (hierarchy.own,))
    v1 = {c: h.own for h in hierarchies if h.version == 1 for c in h.controllers}
    if "memory" not in v1:
        return None
    return Cgroup(1, tuple(v1.get(c, v1["memory"]) for c in V1_CONTROLLERS))


def _make_v2(hierarchies: list[_Hierarchy], name: str) -> Cgroup:
    """Under our own cgroup where its children may have ``pids`` and ``memory`` (it holds no
    process, or it is the root), else beside it (a delegated parent: systemd's ``Delegate=``)."""
    v2 = next((h for h in hierarchies if h.version == 2), None)
    if v2 is None:
        raise ResourcesUnavailable("no cgroup v2 hierarchy")
    for base in (v2.own, v2.own.parent):
        if not set(V2_CONTROLLERS) <= set(_read(base / "cgroup.controllers").split()):
            continue
        if not set(V2_CONTROLLERS) <= set(_read(base / "cgroup.subtree_control").split()):
            try:
                _write(base / "cgroup.subtree_control", " ".join(f"+{c}" for c in V2_CONTROLLERS))
            except OSError:
                continue  # a cgroup holding processes cannot give its children controllers
        try:
            (base / name).mkdir()
        except OSError:
            continue
        return Cgroup(2, (base / name,))
    raise ResourcesUnavailable(f"cgroup v2: no subtree with {' and '.join(V2_CONTROLLERS)} delegated at or above "
                               f"{v2.own}")


def _make_v1(hierarchies: list[_Hierarchy], name: str) -> Cgroup:
    by_controller = {c: h for h in hierarchies if h.version == 1 for c in h.controllers}
    missing = [c for c in V1_CONTROLLERS if c not in by_controller]
    if missing:
        raise ResourcesUnavailable(f"cgroup v1: no {', '.join(missing)} hierarchy mounted")
    folders = tuple(by_controller[c].own / name for c in V1_CONTROLLERS)
    made: list[Path] = []
    try:
        for folder in dict.fromkeys(folders):
            folder.mkdir()
            made.append(folder)
    except OSError as exc:
        for folder in made:
            folder.rmdir()
        raise ResourcesUnavailable(f"cgroup v1: cannot make {exc.filename}: {exc.strerror}") from None
    return Cgroup(1, folders)


def _sweep(hierarchies: list[_Hierarchy]) -> int:
    """Remove the empty candidate cgroups of graders that are gone (killed before they could
    remove them: ``constrain-harness-<pid>-...`` where no process ``pid`` runs), and the stale
    ones inside them first (a grader run in a cgroup makes its candidates' inside it); a cgroup
    that still holds a process, or one of a live owner, is never touched (rmdir refuses the
    first, the second is skipped). Returns how many went."""
    return sum(_sweep_folder(hierarchy.own) for hierarchy in hierarchies)


def _sweep_folder(folder: Path | str) -> int:
    """``_sweep`` of the cgroups directly in ``folder`` (and, in a stale one, of its own)."""
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        owner = entry.name[len(CGROUP_PREFIX):].split("-", 1)[0]
        if not (entry.name.startswith(CGROUP_PREFIX) and owner.isdigit() and entry.is_dir(follow_symlinks=False)) \
                or os.path.exists(f"/proc/{owner}"):
            continue
        removed += _sweep_folder(entry.path)
        try:
            os.rmdir(entry.path)
            removed += 1
        except OSError:
            pass
    return removed


def _remove_inner(folder: Path) -> None:
    """Remove every cgroup inside ``folder``, deepest first, killing what is in each (never raises:
    one that will not go leaves ``folder``'s own rmdir to fail, and ``Cgroup.remove`` to retry)."""
    try:
        inner = [Path(entry.path) for entry in os.scandir(folder) if entry.is_dir(follow_symlinks=False)]
    except OSError:
        return
    for child in inner:
        _remove_inner(child)
        kill_all(int(p) for p in _read(child / "cgroup.procs").split() if p.isdigit())
        try:
            child.rmdir()
        except OSError:
            pass


_PROBED: dict = {}


def unavailable() -> str | None:
    """Why no cgroup per candidate can be made here (one line), or None. Probed once per
    process (a cgroup made and removed); ``CONSTRAIN_HARNESS_NO_CGROUP`` is read every time."""
    if os.environ.get(NO_CGROUP_ENV):
        return f"cgroups are switched off ({NO_CGROUP_ENV} is set)"
    if "answer" not in _PROBED:
        try:
            probe = Cgroup.make(1, 256)
        except ResourcesUnavailable as exc:
            _PROBED["answer"] = str(exc)
        else:
            _PROBED["answer"] = None if probe.remove() else f"cannot remove {probe.folders[0]}"
    return _PROBED["answer"]


# --------------------------------------------------------------------------- a uid of its own


def _runtime_dir() -> Path:
    """Where the uid locks are: ``/run/constrain-harness`` (root's), else under the temp folder;
    a folder of ours that no one else may write."""
    for base in (Path("/run"), Path(tempfile.gettempdir())):
        if not (base.is_dir() and os.access(base, os.W_OK)):
            continue
        folder = base / ("constrain-harness" if base == Path("/run") else f"constrain-harness-{os.geteuid()}")
        try:
            folder.mkdir(mode=0o700, exist_ok=True)
            info = folder.lstat()
        except OSError:
            continue
        if info.st_uid == os.geteuid() and not folder.is_symlink() and not info.st_mode & 0o022:
            return folder
    raise ResourcesUnavailable("no private folder for the uid locks (/run or the temp folder)")


class UidLease:
    """A uid held for one candidate: ``uid``; ``release()`` frees it (so does this process's end)."""

    def __init__(self, uid: int, fd: int):
        self.uid = uid
        self._finalizer = weakref.finalize(self, os.close, fd)

    def release(self) -> None:
        self._finalizer()


def lease_uid() -> UidLease:
    """A uid from ``UID_BASE`` that no other candidate holds and no process runs as (its lock
    file's ``flock``); the search starts at a random one, so parallel graders rarely meet."""
    folder = _runtime_dir() / "uids"
    folder.mkdir(mode=0o700, exist_ok=True)
    start = secrets.randbelow(UID_COUNT)
    running: set[int] | None = None
    for step in range(UID_COUNT):
        uid = UID_BASE + (start + step) % UID_COUNT
        fd = os.open(folder / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        running = _running_uids() if running is None else running
        if uid in running:  # a grader killed before its candidate's tree ended: never share
            os.close(fd)
            continue
        return UidLease(uid, fd)
    raise ResourcesUnavailable(f"all {UID_COUNT} candidate uids from {UID_BASE} are in use")


def _running_uids() -> set[int]:
    uids = set()
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                uids.add(entry.stat().st_uid)
            except OSError:
                pass
    return uids


class UidProcesses:
    """The stand-in for a cgroup where none can be made: the candidate's processes are those
    running as its own uid (``uid``). The same interface as ``Cgroup`` where it can answer
    (``members``, ``kill``, ``remove``); ``cpu_seconds`` is None (the caller reads the tree
    from ``/proc``) and ``peak_memory`` 0 (unknown)."""

    version = 0
    folders: tuple[Path, ...] = ()

    def __init__(self, uid: int, processes: int, memory_mb: int, why: str):
        self.uid, self.processes, self.memory_mb, self.why = uid, processes, memory_mb, why

    def enter(self, pid: int) -> None:
        """Nothing to enter: the candidate's uid (setpriv, after bwrap) is what groups it."""

    def members(self) -> set[int]:
        return set(_processes_of(self.uid))

    def kill(self) -> None:
        kill_all(self.members())

    def remove(self) -> bool:
        """SIGKILL every process of the uid until none runs (at most ``EMPTY_WAIT`` s); True
        when none is left. Never raises."""
        deadline, pause = time.monotonic() + EMPTY_WAIT, 0.001
        while self.members():
            if time.monotonic() > deadline:
                return False
            self.kill()
            time.sleep(pause)  # killed processes still exiting
            pause = min(0.05, pause * 2)
        return True

    def cpu_seconds(self) -> float | None:
        return None

    def peak_memory(self) -> int:
        return 0

    def oom_killed(self, since: int = 0) -> bool:
        return False   # unknown: no cgroup counts it

    def oom_kills(self) -> int:
        return 0

    def describe(self) -> str:
        return (f"no cgroup on this machine ({self.why}); a uid of its own instead: per-user process limit "
                f"{self.processes} (RLIMIT_NPROC counts this candidate's processes only), CPU seconds counted "
                f"over its process tree from /proc (the PID namespace's init reaps every orphan; RLIMIT_CPU "
                f"on each process), memory {self.memory_mb} MB per process (RLIMIT_AS, not for the tree)")


def kill_all(pids) -> None:
    """SIGKILL each of ``pids``; one already gone (or not ours to signal) is skipped."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _processes_of(uid: int) -> list[int]:
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


# --------------------------------------------------------------------------- both


class Claim:
    """One candidate's cgroup and, when asked for, its uid (``uid``, else None).

    ``enter()`` runs in the candidate's process between fork and exec; ``release()`` (idempotent)
    ends every process of the cgroup, removes it and frees the uid; so does the ``Claim``
    being garbage collected (a caller that only wanted ``describe()``)."""

    def __init__(self, cgroup: Cgroup | UidProcesses, lease: UidLease | None):
        self.cgroup, self.lease = cgroup, lease
        self.uid = lease.uid if lease is not None else None
        self._finalizer = weakref.finalize(self, _release, cgroup, lease)

    def enter(self) -> None:
        self.cgroup.enter(os.getpid())

    def cpu_seconds(self) -> float | None:
        """The tree's CPU seconds as the kernel counted them; None where no cgroup counts them."""
        return self.cgroup.cpu_seconds()

    def peak_memory(self) -> int:
        return self.cgroup.peak_memory()

    def oom_killed(self) -> bool:
        """The kernel's OOM killer ended a process of the tree at the cgroup's own limit (``Cgroup.oom_killed``)."""
        return self.cgroup.oom_killed()

    def release(self) -> None:
        self._finalizer()

    def describe(self) -> str:
        """The header's words for the cgroup (the uid is said where the user is)."""
        if isinstance(self.cgroup, UidProcesses):
            return self.cgroup.describe()
        return (f"a cgroup of its own ({self.cgroup.describe()}): {self.cgroup.tasks_limit()} tasks, "
                f"{self.cgroup.memory_limit_mb()} MB and the CPU seconds counted over its whole process tree")


def _release(cgroup: Cgroup | UidProcesses, lease: UidLease | None) -> None:
    cgroup.remove()
    if lease is not None:
        lease.release()


def claim(limits, *, uid: bool) -> Claim:
    """A cgroup bounded by ``limits.processes`` and ``limits.memory_mb`` (a ``confine.Limits``),
    and with ``uid`` a uid of its own; raises ``ResourcesUnavailable`` (nothing left behind)."""
    group = Cgroup.make(limits.processes, limits.memory_mb)
    try:
        lease = lease_uid() if uid else None
    except (OSError, ResourcesUnavailable):
        group.remove()
        raise
    return Claim(group, lease)


def claim_uid_only(limits, why: str) -> Claim:
    """The weaker mechanism where no cgroup can be made (``why``): a uid of its own, its
    processes bounded by ``RLIMIT_NPROC`` (the caller sets it to ``limits.processes``) and
    ended by uid (``UidProcesses``). Root only; raises ``ResourcesUnavailable`` else, or when
    no uid is free."""
    if os.geteuid() != 0:
        raise ResourcesUnavailable(f"{why}; and no uid of its own for each candidate without root")
    lease = lease_uid()
    return Claim(UidProcesses(lease.uid, limits.processes, limits.memory_mb, why), lease)
