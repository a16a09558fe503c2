"""The warm grader-child server: a process started isolated, with pytest and the catalogue's
helpers imported once, that forks grader children for a caller that cannot fork itself.

``harness.run.launch.start`` forks a grader child from its own process where that is the same
as a new interpreter (``launch.forkable``: a process started isolated, one thread). A process
that is not so (a test run's xdist worker, which runs ``run_check`` in a threaded process; a
program that calls ``run_check`` as a library) started each grader child as a cold ``python -m``
(some 0.35-0.5 CPU s of imports a child, two children a check with a twin). There ``launch``
starts this server once (``python -m harness.run.forkserver FD``, ``isolated.command``, the
caller's grader environment less the run's own variables) and asks it for each child instead:
the server forks it, as ``launch`` would have forked it from a forkable caller.

The channel is a ``SOCK_SEQPACKET`` socket pair (never a path or an abstract name: nothing
else can reach it); the server holds one end (``FD``), its caller the other. A request is one
message: a JSON object (``args``, ``cwd``, ``env``, ``module``, ``targets``: the caller's
numbers of the descriptors the child keeps, and the caller's ``limits``, ``cgroup`` and
``umask``) with descriptors passed over the socket (``SCM_RIGHTS``): a status socket of this
child, its output, then the kept descriptors (the records' key pipe, a twin's stream), in
``targets``' order. The server answers on the status socket: ``{"pid": N}`` once the child is
forked (or ``{"refused": why}``: the caller then starts a new interpreter, as before), then
``{"exitcode": N}`` (negative: the signal, as ``subprocess.Popen.returncode``) once it reaped it.

What keeps the forked child the process a new interpreter would have been (the wall's
guarantees unchanged: the plugin still starts a fresh confined candidate with the same limits,
and the records are signed and read as before):

- the server serves only a caller whose environment, resource limits, cgroups and umask are
  its own (``_refusal``): a test that changed one of them gets a new interpreter;
- the child places the received descriptors at the caller's numbers (``_place``), so the run
  value's ``results_key_fd`` and twin descriptors mean in it what they meant in the caller;
- then it is ``launch``'s forked child exactly (``launch._child``: its own session, the
  descriptors closed but those kept, the signal handlers, environment, streams and random
  generators of a new interpreter);
- it dies with the server (``PR_SET_PDEATHSIG``), and the server, whose socket's end tells it
  that its caller is gone, kills every child it still has before it ends: nothing is left
  running when the caller ends, however it ends.

The caller kills and watches the child as before: its pid (a session leader, ``os.killpg``), its
CPU seconds (``/proc``), its end (the status socket turns readable).
"""

from __future__ import annotations

import ctypes
import fcntl
import gc
import json
import os
import selectors
import signal
import socket
import sys

from harness.run import launch

MAX_MESSAGE = 1 << 20   # a request's JSON (the run value is a few KB)
MAX_FDS = 16            # status, output and the kept descriptors (a key pipe and a twin's stream)
READY = b"ready"
def _refusal(request: dict, base_env: dict[str, str]) -> str | None:
    """Why this server must not fork ``request``'s child (the caller then starts a new interpreter),
    or None."""
    env = {k: v for k, v in request["env"].items() if k not in launch.RUN_ENV}
    if env != base_env:
        changed = sorted(set(env.items()) ^ set(base_env.items()))
        return f"another environment ({', '.join(sorted({k for k, _ in changed})[:5])})"
    mine = launch.own_state()
    for what in ("limits", "cgroup", "umask"):
        if request.get(what) != mine[what]:
            return f"another {what}"
    if request.get("module") not in launch.SERVED_MODULES:
        return f"a module it does not run ({request.get('module')!r})"
    return None


def serve(channel: socket.socket) -> None:
    """Answer requests on ``channel`` until its other end closes, then end every child still running."""
    base_env = {k: v for k, v in os.environ.items() if k not in launch.RUN_ENV}
    if not launch.forkable():
        channel.send(b"not forkable")
        return
    launch.warm()
    gc.freeze()   # the warm modules' objects: never finalized in a child (launch._fork's reason)
    selector = selectors.DefaultSelector()
    selector.register(channel, selectors.EVENT_READ, None)
    children: dict[int, tuple[socket.socket, int]] = {}   # pid -> (its status socket, its pidfd)
    channel.send(READY)
    retiring = False
    while not (retiring and not children):
        for key, _ in selector.select():
            if key.data is None:
                said = _one_request(channel, base_env, selector, children, retiring)
                if said == "gone":
                    _end_all(children)
                    return
                retiring = retiring or said == "retire"
            else:
                _reap(key.data, selector, children)


def _one_request(channel: socket.socket, base_env: dict[str, str], selector, children: dict,
                 retiring: bool) -> str:
    """Read and serve one request: "gone" once the caller's end is closed, "retire" when it asks the
    server to end once its children have (it forks no other then), else "served"."""
    try:
        data, fds, _flags, _addr = socket.recv_fds(channel, MAX_MESSAGE, MAX_FDS)
    except OSError:
        return "gone"
    if not data or data == b"retire":
        for fd in fds:
            os.close(fd)
        return "retire" if data else "gone"
    status = socket.socket(fileno=fds[0]) if fds else None
    try:
        if retiring:
            raise ValueError("the server is retiring")
        request = json.loads(data)
        targets = [int(t) for t in request["targets"]]
        if status is None or len(fds) != 2 + len(targets) or min(targets, default=3) < 3:
            raise ValueError("a request's descriptors do not match its targets")
        why = _refusal(request, base_env)
        if why is not None:
            status.send(json.dumps({"refused": why}).encode())
            status.close()
            return "served"
        pid = _fork(request, fds[1], fds[2:], targets)
    except (ValueError, KeyError, TypeError, OSError) as exc:
        if status is not None:
            try:
                status.send(json.dumps({"refused": f"a bad request ({exc})"}).encode())
            except OSError:
                pass
            status.close()
        return "served"
    finally:
        for fd in fds[1:]:
            os.close(fd)
    pidfd = os.pidfd_open(pid)
    children[pid] = (status, pidfd)
    selector.register(pidfd, selectors.EVENT_READ, pid)
    try:
        status.send(json.dumps({"pid": pid}).encode())
    except OSError:   # the caller gave up on it already: it must not run unwatched
        _kill(pid)
    return "served"


def _fork(request: dict, out: int, kept: list[int], targets: list[int]) -> int:
    server = os.getpid()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    pid = os.fork()
    if pid == 0:   # the grader child: never returns
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)   # 1: PR_SET_PDEATHSIG
            if os.getppid() != server:
                os._exit(70)
            out = _place(out, kept, targets)
        except BaseException:  # noqa: BLE001 - nothing here may return into the server's loop
            os._exit(70)
        launch._child(list(request["args"]), str(request["cwd"]), dict(request["env"]), out, tuple(targets),
                      str(request["module"]))
        os._exit(70)
    return pid


def _place(out: int, kept: list[int], targets: list[int]) -> int:
    """Put each kept descriptor at its caller's number (``targets``); the output's new number.
    Everything is first moved above every target, so that placing one never closes another."""
    floor = max([*targets, 2]) + 1
    out = fcntl.fcntl(out, fcntl.F_DUPFD, floor)
    moved = [fcntl.fcntl(fd, fcntl.F_DUPFD, floor) for fd in kept]
    for fd, target in zip(moved, targets):
        os.dup2(fd, target)   # inheritable, as ``pass_fds`` makes them in a new interpreter
        os.close(fd)
    return out


def _reap(pid: int, selector, children: dict) -> None:
    status, pidfd = children.pop(pid)
    selector.unregister(pidfd)
    os.close(pidfd)
    _, wait_status = os.waitpid(pid, 0)
    try:
        status.send(json.dumps({"exitcode": os.waitstatus_to_exitcode(wait_status)}).encode())
    except OSError:
        pass
    status.close()


def _kill(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _end_all(children: dict) -> None:
    """The caller is gone: no child of it runs on unwatched."""
    for pid, (status, pidfd) in list(children.items()):
        _kill(pid)
        os.waitpid(pid, 0)
        status.close()
        os.close(pidfd)
    children.clear()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or not argv[0].isdigit():
        print("usage: python -m harness.run.forkserver FD (started by harness.run.launch)", file=sys.stderr)
        return 2
    serve(socket.socket(fileno=int(argv[0])))
    return 0


__all__ = ["main", "serve"]

if __name__ == "__main__":
    sys.exit(main())
