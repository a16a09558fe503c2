"""The zygote's own process, behind the wall: a warm confined interpreter that forks one candidate
process per request (generated mutants only; ``harness.sandbox.zygote`` is the grader's side).

Started exactly as a candidate process is (``confine.plan``: the same bubblewrap, seccomp filter,
cgroup, uid and rlimits), with ``python -I -B -c "...; harness.sandbox.zygote_server.main(FD)"``,
``FD`` its end of the control socket. It imports numpy and the server's modules and no candidate,
then answers requests, one at a time, each a frame of ``_send`` (a 4-byte length, then msgpack)
carrying an ``id`` that its replies repeat:

- ``{"op": "ping"}`` -> ``{"pong": true, "left": [...]}``: the processes of the sandbox other than
  the zygote and its ancestors (none, between two children) and what ``/tmp`` holds (nothing);
- ``{"op": "fork", "limits": {"cpu_seconds", "memory_mb", "file_mb", "ceiling"}, "folder": path,
  "files": [[name, bytes, mtime_ns], ...], "paths": [...]}`` with two descriptors passed along
  (``SCM_RIGHTS``): the channel's end for the child and the write end of its output pipe ->
  ``{"pid": n}`` at once, the child's pid in the sandbox; then, once the child has exited,
  ``{"done": true, "status": n, "left": [...]}``.

The child (``_child``, in a new session) closes the control socket first, then takes the
descriptors as its channel and its stdout/stderr, lowers its rlimits to the run's (``RLIMIT_CPU``
as ``cpulimit.under_own_limit`` sets it under the asking grader's own hard limit, the request's
``ceiling``, as a fresh start from that grader would have it; counting from zero in a fork),
raises its own ``oom_score_adj``
(the cgroup's OOM killer takes a child before the zygote), writes the mutant's files at the path
they have in the grader's file system (sources and their bytecode, each with its mtime, so the
timestamp ``.pyc`` stays valid), puts the candidate's folders last on ``sys.path`` as a fresh
process has them, and runs ``server.main`` on the channel: from there it is the candidate process
a fresh start gives.

Between children (``_after_child``) the zygote ends every process of the sandbox but itself and
its ancestors (a child's orphans come back to it: it is their subreaper), reaps them until none is
left, and empties ``/tmp`` (the home of every child is ``/tmp/home``) and ``/dev/shm`` of all but
what the sandbox itself made there before any child (``_SANDBOX_MADE``: the mount points of a
checkout or interpreter under ``/tmp``, bound read-only at their own paths, and the folders
holding them), and removes every System V IPC object (shared memory, semaphore set, message queue)
of the sandbox's IPC namespace (``_remove_sysv_ipc``, as ``/proc/sysvipc`` lists them); the
``done`` reply lists anything left (nothing, or the grader stops using the zygote). So the next
child starts only after the last one's whole tree is gone, in a ``/tmp`` as the zygote found it.

Invariants: the zygote never imports or runs a candidate's code (only a child does, after the
fork); it is not dumpable (``PR_SET_DUMPABLE`` 0: a child of the same uid cannot read or write
its memory through ``/proc``); one child at a time.
"""

from __future__ import annotations

import ctypes
import os
import resource
import shutil
import signal
import socket
import struct
import sys
import time

from harness.sandbox import cpulimit

MAX_FRAME = 64 << 20  # a request's bytes, at most (a mutant's package with its bytecode is ~0.5 MB)
SWEEP_SECONDS = 10.0  # how long the zygote waits for a child's processes to be gone
EMPTIED = ("/tmp", "/dev/shm")  # emptied after every child
_SANDBOX_MADE: set[str] = set()
"""What ``EMPTIED`` held when the zygote started, before any child (``_sandbox_made``): the mount
points bubblewrap made there and the folders holding them (a checkout or interpreter under
``/tmp`` is bound at its own path). Kept after every child; anything else there is the child's."""
PRELOAD = ("numpy", "msgpack", "harness.sandbox.server", "harness.sandbox.channel", "harness.sandbox.plans",
           "harness.sandbox.candidate", "harness.sandbox.arguments", "harness.sandbox.proxying")
"""What a fresh candidate process imports before the candidate (the server's modules and numpy):
imported once here, so a child starts with them; the contract stub is read here too
(``candidate.read_contract``: the spec's names, harness data, never an answer)."""

_PR_SET_DUMPABLE, _PR_SET_CHILD_SUBREAPER = 4, 36


def send(sock: socket.socket, message: dict, fds: tuple[int, ...] = ()) -> None:
    """One frame: its length (4 bytes, big-endian), then ``message`` as msgpack; ``fds`` ride on
    the length (``SCM_RIGHTS``)."""
    import msgpack

    body = msgpack.packb(message, use_bin_type=True)
    head = struct.pack(">I", len(body))
    if fds:
        socket.send_fds(sock, [head], list(fds))
    else:
        sock.sendall(head)
    sock.sendall(body)


def receive(sock: socket.socket, max_fds: int = 0) -> tuple[dict, list[int]]:
    """One frame of ``send``: (message, descriptors passed with it). Raises ``EOFError`` at the
    end of the stream, ``ValueError`` for a malformed frame."""
    import msgpack

    head, fds, _, _ = socket.recv_fds(sock, 4, max_fds) if max_fds else (sock.recv(4), [], 0, None)
    while head and len(head) < 4:
        more = sock.recv(4 - len(head))
        if not more:
            break
        head += more
    if len(head) < 4:
        _close_all(fds)
        raise EOFError("the control socket closed")
    size = struct.unpack(">I", head)[0]
    if size > MAX_FRAME:
        _close_all(fds)
        raise ValueError(f"a frame of {size} bytes (at most {MAX_FRAME})")
    body = bytearray()
    while len(body) < size:
        chunk = sock.recv(min(1 << 20, size - len(body)))
        if not chunk:
            _close_all(fds)
            raise EOFError("the control socket closed inside a frame")
        body += chunk
    message = msgpack.unpackb(bytes(body), raw=False)
    if not isinstance(message, dict):
        _close_all(fds)
        raise ValueError("a frame that is not a map")
    return message, fds


def _close_all(fds) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def main(fd: int) -> None:
    """Serve the grader on the control socket ``fd`` until it closes (module docstring)."""
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)
    importlib.import_module("harness.sandbox.candidate").read_contract()  # the stub's names, parsed once
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    os.chdir("/")
    _SANDBOX_MADE.update(path for folder in EMPTIED for path in _below(folder))
    sys.stdout.flush()
    control = socket.socket(fileno=fd)
    send(control, {"ready": True, "pid": os.getpid()})
    while True:
        try:
            request, fds = receive(control, max_fds=2)
        except (EOFError, OSError, ValueError):
            break
        op = request.get("op")
        if op == "fork" and len(fds) == 2:
            _fork(control, request, fds)
        else:
            _close_all(fds)
            send(control, {"id": request.get("id"), "pong": op == "ping", "left": _left()})
    os._exit(0)


def _fork(control: socket.socket, request: dict, fds: list[int]) -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        _child(control, request, fds)  # never returns
    _close_all(fds)
    send(control, {"id": request.get("id"), "pid": pid})
    _, status = os.waitpid(pid, 0)
    send(control, {"id": request.get("id"), "done": True, "status": status, "left": _after_child()})


def _child(control: socket.socket, request: dict, fds: list[int]) -> None:
    code = 70
    try:
        control.close()  # first: no code of the child's ever holds the zygote's control socket
        channel_fd, output_fd = fds
        os.setsid()
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(output_fd, 1)
        os.dup2(output_fd, 2)
        os.close(devnull)
        os.close(output_fd)
        _oom_first()
        limits = request["limits"]
        ceiling = limits.get("ceiling")
        resource.setrlimit(resource.RLIMIT_CPU, cpulimit.under_own_limit(
            int(limits["cpu_seconds"]), None if ceiling is None else int(ceiling)))
        _lower(resource.RLIMIT_AS, int(limits["memory_mb"]) << 20, int(limits["memory_mb"]) << 20)
        _lower(resource.RLIMIT_FSIZE, int(limits["file_mb"]) << 20, int(limits["file_mb"]) << 20)
        _write_files(str(request["folder"]), request["files"])
        sys.path += [str(path) for path in request["paths"]]
        from harness.sandbox.server import main as serve

        serve(channel_fd)  # never returns: os._exit(0) when the channel closes
    except BaseException:  # noqa: BLE001 - the child ends here whatever happened
        import traceback

        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _oom_first() -> None:
    """Raise this process's ``oom_score_adj`` to the most (allowed without privilege): the
    cgroup's OOM killer then ends a child before the zygote."""
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:
        pass


def _lower(which: int, soft: int, hard: int) -> None:
    """Set a limit, never above the one in force (a limit can only be lowered)."""
    _, current = resource.getrlimit(which)
    if current != resource.RLIM_INFINITY:
        hard, soft = min(hard, current), min(soft, current)
    resource.setrlimit(which, (min(soft, hard), hard))


def _write_files(folder: str, files: list) -> None:
    """The mutant's package at ``folder`` (its path in the grader's file system, on this
    sandbox's own ``/tmp``): each ``[name, data, mtime_ns]`` written read-only with its mtime."""
    if not folder.startswith("/tmp/"):
        raise ValueError(f"the candidate's folder {folder!r} is not under /tmp")
    for name, data, mtime_ns in files:
        if name.startswith("/") or ".." in name.split("/"):
            raise ValueError(f"a file name outside the candidate's folder: {name!r}")
        path = os.path.join(folder, name)
        os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        os.chmod(path, 0o444)
        os.utime(path, ns=(mtime_ns, mtime_ns))


def _after_child() -> list[str]:
    """End every other process of the sandbox, reap them, empty ``EMPTIED``: what is left
    (nothing, or one line each)."""
    keep = _ancestors()
    deadline = time.monotonic() + SWEEP_SECONDS
    while time.monotonic() < deadline:
        others = [pid for pid in _pids() if pid not in keep]
        for pid in others:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        _reap()
        if not others:
            break
        time.sleep(0.005)
    for folder in EMPTIED:
        _empty(folder)
    _remove_sysv_ipc()
    return _left()


def _left() -> list[str]:
    keep = _ancestors()
    left = [f"process {pid}" for pid in _pids() if pid not in keep]
    for folder in EMPTIED:
        left += sorted(path for path in _below(folder) if path not in _SANDBOX_MADE)
    return left + [f"System V {kind} {ident}" for kind, ident in _sysv_ipc()]


SYSV_IPC = ("shm", "sem", "msg")  # System V IPC's kinds: /proc/sysvipc/<kind>, removed by <kind>ctl
_IPC_RMID = 0


def _sysv_ipc() -> list[tuple[str, int]]:
    """``(kind, id)`` of every System V shared-memory segment, semaphore set and message queue of
    this IPC namespace (the sandbox's own: bubblewrap's ``--unshare-ipc``), as
    ``/proc/sysvipc/{shm,sem,msg}`` list them (a header line, then one per object, its id second)."""
    found = []
    for kind in SYSV_IPC:
        try:
            with open(f"/proc/sysvipc/{kind}", encoding="ascii", errors="replace") as f:
                rows = [line.split() for line in f.read().splitlines()[1:]]
        except OSError:
            continue
        found += [(kind, int(row[1])) for row in rows if len(row) > 1 and row[1].isdigit()]
    return found


def _remove_sysv_ipc() -> None:
    """Remove every System V IPC object a child made (``IPC_RMID``: the zygote has the children's
    uid, so it may; a segment goes at once, its last process being gone), so the next child sees
    none; one that stays is in ``_left``."""
    libc = ctypes.CDLL(None, use_errno=True)
    for kind, ident in _sysv_ipc():
        if kind == "sem":
            libc.semctl(ident, 0, _IPC_RMID)
        else:
            getattr(libc, f"{kind}ctl")(ident, _IPC_RMID, None)


def _below(folder: str) -> list[str]:
    """Every path under ``folder``, never inside a mount point (a bound folder of the harness
    is read-only, and not the child's)."""
    paths = []
    for root, dirs, files in os.walk(folder, onerror=lambda error: None):
        paths += [os.path.join(root, name) for name in files]
        inside = []
        for name in dirs:
            path = os.path.join(root, name)
            paths.append(path)
            if not os.path.ismount(path) and not os.path.islink(path):
                inside.append(name)
        dirs[:] = inside
    return paths


def _ancestors() -> set[int]:
    """This process and its ancestors in the sandbox (bubblewrap's own processes above it)."""
    pids, pid = {os.getpid()}, os.getpid()
    for _ in range(16):
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                parent = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
        if parent <= 0:
            break
        pids.add(parent)
        pid = parent
    return pids


def _pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _empty(folder: str) -> None:
    """Remove everything in ``folder`` the sandbox did not make (``_SANDBOX_MADE``; its own modes
    restored first: a child may have made a folder unreadable; every file here is the zygote's
    uid's)."""
    made = sorted(path for path in _SANDBOX_MADE if path.startswith(folder + "/") and os.path.isdir(path)
                  and not os.path.ismount(path) and not os.path.islink(path))
    for each in [folder, *made]:
        _empty_one(each)


def _empty_one(folder: str) -> None:
    """Remove the entries of ``folder`` (not below) that the sandbox did not make."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        path = os.path.join(folder, name)
        if path in _SANDBOX_MADE:
            continue
        if os.path.isdir(path) and not os.path.islink(path):
            _open_up(path)
            shutil.rmtree(path, ignore_errors=True)
        else:
            try:
                os.unlink(path)
            except OSError:
                pass


def _open_up(folder: str) -> None:
    """chmod 0700 every folder below ``folder`` (so ``rmtree`` can list and empty it)."""
    try:
        os.chmod(folder, 0o700)
    except OSError:
        return
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            _open_up(entry.path)
