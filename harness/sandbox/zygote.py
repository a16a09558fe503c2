"""The zygote, the grader's side: one warm confined process per mutant worker, forked into a
candidate process per catalogue run (generated mutants only; a student's candidate always gets
a fresh bubblewrap).

A candidate's start is 0.17-0.20 CPU s of every catalogue run (a new bwrap, its namespaces and
seccomp filter, the interpreter, numpy, the server). ``Zygote`` starts one confined process
exactly as ``Candidate`` starts one (``confine.plan``: the same bubblewrap, seccomp filter,
cgroup, uid and rlimits; the harness lent whole, as to every staff-made candidate), which
imports numpy and the server's modules but no candidate (``harness.sandbox.zygote_server``), and
forks it once per candidate process asked for:

- **who holds it**: the warm grader parent of a mutant worker (``harness.mutants.warm``) starts it
  at its first catalogue run of a generated mutant and keeps it; each grader fork inherits the
  control socket and finds it through ``ZYGOTE_ENV`` (its descriptor, the zygote's cgroup, the
  processes of the zygote itself). There the catalogue's candidate class is ``ZygoteCandidate``
  (``candidate_class``), a ``Candidate`` whose process is a fork of the zygote;
- **the mutant's files go as data**: bubblewrap cannot bind a folder once it runs, so the
  package's files (sources and bytecode, with their mtimes) are sent with the fork request, and
  the child writes them, read-only, at the path they have in the grader's file system, on the
  sandbox's own ``/tmp`` (so ``__file__``, ``sys.path`` and the load record are a fresh start's);
  a candidate outside the grader's ``/tmp`` is started fresh;
- **a fresh sandbox state per child**: one child at a time; the zygote waits for it, ends every
  other process of the sandbox and reaps them, empties ``/tmp`` and ``/dev/shm``, and says what
  is left; the grader's side starts the next child only when that is nothing and the cgroup
  holds the zygote's own processes alone (``RLIMIT_NPROC`` and the cgroup are shared by
  consecutive children). The sandbox's IPC namespace is shared by consecutive children too, so
  the zygote removes every System V object a child made (shared memory, semaphore sets, message
  queues: ``zygote_server._remove_sysv_ipc``) and one left counts as left;
- **accounting**: a child's CPU is the cgroup's usage over its life (the zygote waits, idle,
  meanwhile): what the CPU budgets read (``Candidate.cpu_seconds``); memory and tasks are bounded
  by the zygote's cgroup, with the child's own rlimits (``RLIMIT_CPU``, ``RLIMIT_AS``,
  ``RLIMIT_FSIZE``) the run's: its ``RLIMIT_CPU`` under the grader fork's own hard limit (the
  request's ``ceiling``), as ``confine`` sets a fresh candidate's, so a candidate that spins at
  load dies of SIGXCPU at the CPU a fresh one would (30 s for a generated mutant, not the load's
  60-s budget: a kill at load costs half). The whole cgroup's CPU, the zygote's start included, is what the
  warm grader reports for the run's candidates (``Zygote.cpu_seconds``);
- **fallback**: where no zygote can start, a fork request fails, or a child's leftovers are not
  gone, the candidate process starts fresh (``Candidate``) and the zygote is not used again
  (``Zygote.after_run`` says why, once).

Invariant: the zygote never holds a candidate's code; a child is killed by its whole tree
(the cgroup's processes that are not the zygote's own), never by a name.
"""

from __future__ import annotations

import json
import os
import secrets
import select
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness.sandbox import confine, cpulimit, lending, resources, view, zygote_server
from harness.sandbox.client import Candidate

ZYGOTE_ENV = "CONSTRAIN_HARNESS_ZYGOTE"
"""Set by the zygote's holder in a grader fork: JSON ``{"fd", "version", "folders", "own",
"description"}`` (the control socket's descriptor, the cgroup, the zygote's own processes)."""
READY_SECONDS = 60.0  # wall: the zygote's start (a loaded machine included)
REPLY_SECONDS = 10.0  # wall: a fork's pid, a ping's answer, a child's end once asked to end
MAX_FILES, MAX_BYTES = 2_000, 16 << 20  # a package sent as data, at most
LIMITS = confine.Limits(cpu_seconds=24 * 3600)  # the zygote's own RLIMIT_CPU: its start and sweeps, a run long


class ZygoteUnavailable(RuntimeError):
    """The zygote cannot serve this request (the message says why); the caller starts fresh."""


class Zygote:
    """The holder's side: one zygote process (module docstring); ``start`` raises ``ZygoteUnavailable``."""

    def __init__(self, limits: confine.Limits = LIMITS):
        self.limits = limits
        self.plan: confine.Plan | None = None
        self.proc: subprocess.Popen | None = None
        self.control: socket.socket | None = None
        self.own: set[int] = set()
        self.scratch = Path(tempfile.mkdtemp(prefix="constrain-zygote-"))
        self.reported = 0.0
        self.marker = f"zygote-{secrets.token_hex(6)}"  # CONSTRAIN_HARNESS_RUN of every process it holds

    def start(self) -> "Zygote":
        try:
            self._spawn()
            self._await_ready()
        except BaseException as exc:
            self.close()
            if isinstance(exc, ZygoteUnavailable):
                raise
            raise ZygoteUnavailable(f"the zygote did not start: {type(exc).__name__}: {exc}") from None
        return self

    def _spawn(self) -> None:
        home = self.scratch / "home"
        home.mkdir(mode=0o700)
        lent = lending.lending(None, False, self.scratch, staff_made=True)
        binds = view.harness_binds(self.scratch, [], lent)
        hidden = [Path(tempfile.gettempdir()).resolve(), Path.home().resolve()]
        self.plan = confine.plan(self.limits, binds, [h for h in hidden if h != Path("/")], home, self.marker)
        if not self.plan.mode.startswith("bubblewrap") or self.plan.claim is None or \
                not isinstance(self.plan.claim.cgroup, resources.Cgroup):
            raise ZygoteUnavailable(f"no bubblewrap with a cgroup here ({self.plan.mode})")
        # released by ``close`` alone: never at the exit of a grader fork that inherited this object
        self.plan.claim._finalizer.atexit = False
        parent, child = socket.socketpair()
        code = (f"import gc; gc.disable(); import sys; sys.path[:0] = {[str(view.PACKAGE_ROOT)]!r}; "
                f"from harness.sandbox.zygote_server import main; main({child.fileno()})")
        try:
            with open(self.scratch / "output", "wb") as output:
                self.proc = subprocess.Popen(self.plan.prefix + [sys.executable, "-I", "-B", "-c", code],
                                             env=self.plan.env, stdin=subprocess.DEVNULL, stdout=output,
                                             stderr=subprocess.STDOUT,
                                             pass_fds=(child.fileno(), *self.plan.pass_fds),
                                             start_new_session=True, preexec_fn=self.plan.preexec, cwd=str(home))
        finally:
            child.close()
            self.plan.release_fds()
        self.control = parent

    def _await_ready(self) -> None:
        if not select.select([self.control], [], [], READY_SECONDS)[0]:
            raise ZygoteUnavailable(f"the zygote did not say it was ready within {READY_SECONDS:g} s")
        try:
            ready, _ = zygote_server.receive(self.control)
        except (EOFError, ValueError, OSError) as exc:
            raise ZygoteUnavailable(f"the zygote ended before it was ready ({exc}): {self.output()}") from None
        if ready.get("ready") is not True:
            raise ZygoteUnavailable(f"the zygote said {ready!r}")
        self.own = self.cgroup.members()

    @property
    def cgroup(self) -> resources.Cgroup:
        return self.plan.claim.cgroup

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def environment(self) -> dict[str, str]:
        """``ZYGOTE_ENV`` for a grader fork of the holder (which inherits the control socket)."""
        link = {"fd": self.control.fileno(), "version": self.cgroup.version,
                "folders": [str(f) for f in self.cgroup.folders], "own": sorted(self.own),
                "description": self.plan.description}
        return {ZYGOTE_ENV: json.dumps(link)}

    def cpu_seconds(self) -> float:
        """CPU seconds of the zygote's cgroup since the last call (the first: its start too)."""
        now = self.cgroup.cpu_seconds() if self.plan is not None else self.reported
        used, self.reported = max(0.0, now - self.reported), now
        return used

    def after_run(self) -> str | None:
        """After a grader fork that may have used the zygote ended: end whatever of a child is
        left, then ask the zygote whether the sandbox is clean. None when it is; else why not
        (the zygote is then closed: the caller starts candidates fresh from here on)."""
        if not self.alive:
            self.close()
            return "the zygote process ended"
        resources.kill_all(self.cgroup.members() - self.own)
        token = secrets.token_hex(6)
        try:
            zygote_server.send(self.control, {"op": "ping", "id": token})
            reply = _reply(self.control, token, lambda r: "pong" in r)
        except (ZygoteUnavailable, OSError, EOFError, ValueError) as exc:
            self.close()
            return f"the zygote stopped answering ({exc})"
        left = [str(x) for x in reply.get("left", ["?"])]
        strangers = self.cgroup.members() - self.own
        if left or strangers:
            self.close()
            return f"a child left {', '.join(left[:5]) or f'{len(strangers)} processes'}"
        return None

    def output(self) -> str:
        try:
            return (self.scratch / "output").read_text("utf-8", "replace")[-600:].strip()
        except OSError:
            return ""

    def close(self) -> None:
        """End the zygote and every process of its cgroup; remove its folder (idempotent)."""
        if self.control is not None:
            self.control.close()
            self.control = None
        if self.proc is not None:
            try:
                self.proc.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                pass
            from harness.sandbox.client import kill_group

            kill_group(self.proc)
            self.proc = None
        if self.plan is not None:
            self.plan.release()
        if self.scratch.exists():
            shutil.rmtree(self.scratch, ignore_errors=True)


def _reply(control: socket.socket, token: str, wanted, seconds: float = REPLY_SECONDS) -> dict:
    """The zygote's next reply with ``id`` ``token`` that ``wanted`` accepts (replies of an
    earlier request, which a grader fork killed before it read them, are skipped)."""
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([control], [], [], left)[0]:
            raise ZygoteUnavailable(f"no answer from the zygote within {seconds:g} s")
        reply, _ = zygote_server.receive(control)
        if reply.get("id") == token and wanted(reply):
            return reply


# --- a grader fork's side --------------------------------------------------------------------

class _Link:
    """The zygote as a grader fork sees it (``ZYGOTE_ENV``); ``broken``: why it is not used."""

    def __init__(self, data: dict):
        self.control = socket.socket(fileno=os.dup(int(data["fd"])))
        self.cgroup = resources.Cgroup(int(data["version"]), tuple(Path(f) for f in data["folders"]))
        self.own = {int(pid) for pid in data["own"]}
        self.description = str(data["description"])
        self.broken: str | None = None
        self.busy: _ForkedChild | None = None


_LINKS: dict = {}


def _link() -> _Link | None:
    """This process's link to the zygote, or None (no ``ZYGOTE_ENV``, or its descriptor is no
    socket here: a process that did not inherit it)."""
    text = os.environ.get(ZYGOTE_ENV)
    if not text:
        return None
    if text not in _LINKS:
        try:
            data = json.loads(text)
            _LINKS[text] = _Link(data) if stat.S_ISSOCK(os.fstat(int(data["fd"])).st_mode) else None
        except (OSError, ValueError, KeyError, TypeError):
            _LINKS[text] = None
    return _LINKS[text]


def candidate_class() -> type[Candidate]:
    """The catalogue's candidate class in this process: ``ZygoteCandidate`` in a grader fork of a
    zygote's holder (``ZYGOTE_ENV``), else ``Candidate``."""
    return ZygoteCandidate if _link() is not None else Candidate


class ZygoteCandidate(Candidate):
    """A ``Candidate`` whose process is a fork of the zygote (module docstring), started fresh
    where the zygote cannot serve it. Everything past the start (the channel, the budgets, the
    verdicts) is ``Candidate``'s."""

    forked = False  # whether this candidate's process is a fork of the zygote

    def _spawn(self) -> None:
        link = _link()
        if link is not None and link.broken is None:
            try:
                self._fork(link)
                self.forked = True
                return
            except ZygoteUnavailable as exc:
                link.broken = str(exc)
                self._proc = None
        super()._spawn()

    def _fork(self, link: _Link) -> None:
        folder, files = self._package()
        if link.busy is not None and not link.busy.finish(REPLY_SECONDS):
            raise ZygoteUnavailable("the last child did not end")
        strangers = link.cgroup.members() - link.own
        if strangers:
            raise ZygoteUnavailable(f"{len(strangers)} processes of the last child are still there")
        token = secrets.token_hex(6)
        request = {"op": "fork", "id": token, "folder": folder, "files": files,
                   "paths": [str(p) for p in self._candidate_paths()],
                   "limits": {"cpu_seconds": self.limits.cpu_seconds, "memory_mb": self.limits.memory_mb,
                              "file_mb": self.limits.file_mb, "ceiling": cpulimit.own_hard_limit()}}
        start_cpu = link.cgroup.cpu_seconds()
        theirs, ours = socket.socketpair()
        read_fd, write_fd = os.pipe()
        try:
            zygote_server.send(link.control, request, (theirs.fileno(), write_fd))
            reply = _reply(link.control, token, lambda r: "pid" in r)
        except (OSError, EOFError, ValueError) as exc:
            ours.close()
            os.close(read_fd)
            raise ZygoteUnavailable(f"the zygote did not fork ({exc})") from None
        except ZygoteUnavailable:
            ours.close()
            os.close(read_fd)
            raise
        finally:
            theirs.close()
            os.close(write_fd)
        try:
            child = _ForkedChild(link, token, int(reply["pid"]), os.fdopen(read_fd, "rb", buffering=0))
        except ZygoteUnavailable:
            ours.close()
            resources.kill_all(link.cgroup.members() - link.own)
            raise
        link.busy = child
        self._sock = ours
        self._proc = child
        self.plan = _ChildPlan(link, start_cpu)
        self._output.drain(child.stdout)

    def _package(self) -> tuple[str, list]:
        """(the folder the candidate's files are written in, ``[[name, bytes, mtime_ns], ...]``):
        the package folder the spec names, or its ``.py`` file, under the grader's ``/tmp``."""
        here = tempfile.gettempdir()
        if self.spec is None or not self.spec.startswith("/tmp/") or not (here == "/tmp" or here.startswith("/tmp/")):
            # a temp folder under /tmp (the mutant runner's per-run TMPDIR) is hidden in a fresh sandbox
            # by its private /tmp alone, as /tmp itself: the zygote's sandbox is the same
            raise ZygoteUnavailable("the candidate is not a folder under /tmp")
        path = Path(self.spec)
        paths = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        base = path if path.is_dir() else path.parent
        if len(paths) > MAX_FILES or sum(p.stat().st_size for p in paths) > MAX_BYTES:
            raise ZygoteUnavailable("the candidate's folder is too large to send")
        files = [[str(p.relative_to(base)), p.read_bytes(), p.stat().st_mtime_ns] for p in paths]
        return str(base), files

    def kill(self) -> None:
        proc = self._proc
        if isinstance(proc, _ForkedChild):
            proc.kill_tree()
            return
        super().kill()

    def close(self) -> None:
        proc = self._proc
        if not isinstance(proc, _ForkedChild):
            super().close()
            return
        self._proc = None
        if self._sock is not None:
            self._sock.close()  # the server ends when its channel closes
            self._sock = None
        if not proc.finish(2.0):
            proc.kill_tree()
            if not proc.finish(REPLY_SECONDS):
                proc.link.broken = "a child did not end"
        self._output.join()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None


class _ForkedChild:
    """A zygote's child as ``Candidate`` holds a process (``subprocess.Popen``'s ``pid``,
    ``stdout``, ``poll``, ``wait``); ``pid`` is its id outside the sandbox, the leader of its
    own session; it has ended when the zygote says so (``done``: its whole tree gone)."""

    def __init__(self, link: _Link, token: str, inner_pid: int, stdout):
        self.link, self.token, self.stdout = link, token, stdout
        self.returncode: int | None = None
        self.pid = _outer_pid(link, inner_pid)

    def poll(self) -> int | None:
        if self.returncode is None:
            self.finish(0.0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if not self.finish(REPLY_SECONDS if timeout is None else timeout):
            raise subprocess.TimeoutExpired("zygote child", timeout)
        return self.returncode

    def finish(self, seconds: float) -> bool:
        """Whether the zygote said the child's tree is gone, waiting at most ``seconds``."""
        if self.returncode is not None:
            return True
        try:
            reply = _reply(self.link.control, self.token, lambda r: "done" in r, seconds) if seconds > 0 else \
                self._done_now()
        except ZygoteUnavailable:
            return False
        except (OSError, EOFError, ValueError) as exc:
            self.link.broken = f"the zygote's control socket failed ({exc})"
            self.returncode = -9
            self.link.busy = None
            return True
        if reply is None:
            return False
        status = int(reply.get("status", 0))
        self.returncode = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        if reply.get("left"):
            self.link.broken = f"a child left {reply['left'][:3]}"
        self.link.busy = None
        return True

    def _done_now(self) -> dict | None:
        while select.select([self.link.control], [], [], 0)[0]:
            reply, _ = zygote_server.receive(self.link.control)
            if reply.get("id") == self.token and "done" in reply:
                return reply
        return None

    def kill_tree(self) -> None:
        """SIGKILL every process of the zygote's cgroup that is not the zygote's own: this child's
        whole tree, whatever session or group its processes moved to."""
        resources.kill_all(self.link.cgroup.members() - self.link.own)


def _outer_pid(link: _Link, inner_pid: int) -> int:
    """The id outside the sandbox of the child the zygote calls ``inner_pid``, once it leads its
    own session (its first act), so that killing its process group ends it."""
    deadline = time.monotonic() + REPLY_SECONDS
    while time.monotonic() < deadline:
        for pid in link.cgroup.members() - link.own:
            ids = _status(pid)
            if ids is not None and ids[0] == inner_pid and ids[1] == pid:
                return pid
        time.sleep(0.001)
    raise ZygoteUnavailable(f"the zygote's child {inner_pid} was not found")


def _status(pid: int) -> tuple[int, int] | None:
    """(its id in the innermost PID namespace, its session id here), or None."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            status = f.read()
        with open(f"/proc/{pid}/stat", "rb") as f:
            session = int(f.read().rsplit(b")", 1)[1].split()[3])
    except (OSError, ValueError, IndexError):
        return None
    for line in status.splitlines():
        if line.startswith("NSpid:"):
            return int(line.split()[-1]), session
    return None


class _ChildPlan:
    """What ``Candidate`` reads of its ``plan`` for a zygote's child: the mode and description
    (the zygote's, and that this process is its fork), its CPU seconds (the cgroup's usage since
    the fork: the zygote waits meanwhile), no claim of its own (the zygote's holder ends it)."""

    mode = "bubblewrap"
    claim = None
    pass_fds: tuple = ()

    def __init__(self, link: _Link, start_cpu: float):
        self.link, self.start_cpu = link, start_cpu
        self.start_oom_kills = link.cgroup.oom_kills()
        self.description = f"{link.description}; a fork of a warm zygote started so (generated mutants only)"

    def cpu_seconds(self, pid: int | None) -> float:
        return max(0.0, self.link.cgroup.cpu_seconds() - self.start_cpu)

    def oom_killed(self) -> bool:
        """The OOM killer ended a process of the cgroup at its limit since the fork (the zygote
        runs nothing meanwhile, so it was the child's)."""
        return self.link.cgroup.oom_killed(since=self.start_oom_kills)

    def release_fds(self) -> None:
        pass

    def release(self) -> None:
        pass
