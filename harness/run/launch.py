"""Starting the grader child of a catalogue run: a fork of this warm process where that is the
same as a new interpreter, else a new interpreter (``harness.sandbox.isolated``).

``start_catalogue(run, key, cwd=, env=, out=, extra_fds=())`` starts the catalogue for the run
value ``run`` (``harness.run.CatalogueRun``): ``python -m harness.suite.early`` then pytest, with
``pytest_arguments(run)`` (the catalogue, its plugin, pytest's fixed options and the run as one
``--run`` JSON document, its ``results_key_fd`` the read end of a pipe that holds ``key``, the
records' signing key; ``harness.run.records.ResultReader`` checks it). The lower level:

``start(args, cwd=, env=, out=, key_fd=, extra_fds=())`` starts ``python -m pytest ARGS`` for
``harness.grading.check`` in its own session, in ``cwd``, with exactly ``env``, stdin from
``/dev/null``, stdout and stderr into ``out``, and only ``key_fd`` (the records' signing
key) and ``extra_fds`` (a twin's stream, ``harness.suite.twin``) inherited; it returns an
object with ``pid``, ``poll()``, ``wait()`` and ``returncode`` (negative: the signal), as
``subprocess.Popen``.

Why: every ``check --batch`` submission (and every Gradescope run) is one ``check``
process started by ``harness.grading.autograder.grading``, which has already imported pytest,
numpy and the catalogue's helpers to write its report (``harness.grading.report``); its grader
child started as a new interpreter imported them all again: some 0.3-0.5 CPU s of the
~1 CPU s each submission spends outside its tests (measured on the 2-core machine, issue
23). A fork shares them.

When: only where the fork runs the catalogue exactly as the new interpreter would
(``forkable``): this process was itself started isolated the way the child would be
(``isolated.command``'s interpreter flags and boot code in ``sys.orig_argv``, the same
interpreter, every ``PYTHON*`` variable exactly ``isolated.GRADER_PYTHON_ENV``, so the same
``sys.path``, hash seed, stdio encoding and flags, and ``isolated.ONE_THREAD_ENV``'s, so numpy's
one-thread BLAS), it runs one thread, no tracer or
profiler is set, and ``CONSTRAIN_HARNESS_GRADER_FORK`` is not ``0``. ``check`` started by
hand (the console script) runs itself again so (``isolated_again``, from ``harness.cli``) where
that changes nothing it does, else it starts a new interpreter per child, as before.

What the forked child does before pytest, so that it is the process a new interpreter
would be (invariant: the same records, the same output, the same exit status):
``setsid``; ``chdir``; stdin, stdout, stderr onto ``/dev/null`` and ``out``; every other
descriptor but ``key_fd`` and ``extra_fds`` closed; signal handlers back to an exec's (Python's handlers to
the default, then the interpreter's own: SIGINT raises KeyboardInterrupt, SIGPIPE and
SIGXFSZ ignored); the parent's exit handlers dropped (its temporary folders are its own);
``os.environ`` replaced by ``env``, ``tempfile``'s cached folder forgotten (``TMPDIR``
moves), the random generators reseeded, fresh ``sys.std*`` streams with the interpreter's
buffering, ``sys.argv`` and ``__main__`` as ``python -m pytest`` sets them; at the end
the interpreter's exit (threads joined, exit handlers, streams flushed) and
``os._exit`` with ``SystemExit``'s status. The parent's objects are frozen in the
collector before the fork (``gc.freeze``), so the child never finalizes one of them (a
file object would close a descriptor the child reuses). Nothing the child does can
return into the parent's code: every path ends in ``os._exit``.

The candidate is confined exactly as before: the plugin starts it from this child
(``harness.sandbox``), and every limit is the same (the child's own CPU is watched by
``harness.grading.check``; ``RLIMIT_CPU`` and the run's process tree are inherited by a fork as by
an exec). One difference, not a verdict's: the forked child's ``/proc/PID/environ`` is
its parent's start-up environment (``putenv`` does not rewrite it), so the run's marker
is not in it; the candidate processes, started with ``exec``, carry it as before.

Example::

    child = start(["harness/suite", "-p", "harness.suite.plugin", ...], cwd=sandbox, env=env, out=log, key_fd=fd)
    child.wait()
"""

from __future__ import annotations

import atexit
import collections
import faulthandler
import gc
import io
import os
import signal
import subprocess
import sys
import threading
import traceback
from pathlib import Path

from harness.paths import PACKAGE_ROOT
from harness.sandbox import isolated
from harness.sandbox.isolated import (  # noqa: F401 - the chain's names for them (harness.cli, the tests)
    _BOOT_FLAGS,
    FORK_ENV,
    UNBUFFERED_ENV,
    isolated_again,
    isolated_environment,
    started_isolated,
    unbuffered_again,
)

__all__ = ["FORK_ENV", "ForkedChild", "SUITE_DIR", "UNBUFFERED_ENV", "UNUSED_PLUGINS", "WARM_MODULES", "forkable",
           "isolated_again", "isolated_environment", "pytest_arguments", "start", "start_catalogue",
           "started_isolated", "unbuffered_again", "warm"]

SUITE_DIR = Path(__file__).resolve().parents[1] / "suite"   # the catalogue (harness/suite)

_STASH: list = []   # the parent's std streams, kept alive in a forked child (never flushed twice)


def forkable() -> bool:
    """Return True if and only if a fork of this process runs pytest as ``isolated.command``'s
    new interpreter would (module docstring)."""
    if not hasattr(os, "fork") or os.environ.get(FORK_ENV) == "0":
        return False
    orig = getattr(sys, "orig_argv", [])
    own = os.path.realpath(orig[0]) == os.path.realpath(sys.executable) if orig else False
    python_env = {k: v for k, v in os.environ.items() if k.startswith(isolated.DROPPED_PREFIXES)}
    threads = {k: os.environ.get(k) for k in isolated.ONE_THREAD_ENV}
    return (started_isolated() and own and python_env == isolated.GRADER_PYTHON_ENV
            and threads == isolated.ONE_THREAD_ENV
            and sys.flags.hash_randomization == 0 and sys.flags.no_user_site and faulthandler.is_enabled()
            and threading.active_count() == 1 and sys.gettrace() is None and sys.getprofile() is None)


WARM_MODULES = ("pytest", "harness.sandbox", "harness.sandbox.client", "harness.suite.inputs", "harness.suite.explain",
                "harness.suite.tiers", "harness.suite.session", "harness.suite.seeding", "harness.suite.batched",
                "harness.suite.strength", "harness.suite.twin", "harness.suite.golden_masks", "oracles.stdlib",
                "oracles.derivatives", "numpy.random", "tomllib", "harness.sandbox.shapes", "harness.sandbox.text")
"""What every grader child imports before its first test, imported by ``warm`` in the parent
of forked children: each fork shares it instead of importing it again. Never the
catalogue's plugin, conftest or test modules: pytest rewrites their ``assert`` statements as
it imports them, and says so (a warning) of one imported before; nor ``harness.suite.early``,
which the child runs as ``__main__`` (``runpy`` warns, into the child's output, of a module
run so that was imported before). ``numpy.random`` (the catalogue's seeded generators),
``tomllib`` (pytest reads the checkout's ``pyproject.toml`` with it; 3.11+) and the sandbox's
``shapes`` and ``text`` were imported by both children of a ``check`` (each grader child's
``sys.modules`` at its end against the parent's at the fork, 2026-12-07): ~0.01 CPU s a child."""


def warm() -> None:
    """Import ``WARM_MODULES`` here (once; a module that does not import is left to the child,
    which meets the same error and reports it as before)."""
    import importlib

    for name in WARM_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            pass


UNUSED_PLUGINS = ("cacheprovider", "junitxml", "pastebin", "doctest", "unittest", "legacypath", "stepwise",
                  "setuponly", "setupplan", "debugging", "subtests")
"""pytest's own plugins the catalogue never uses, not loaded in a grader child (``-p no:NAME``):
no cache, no pytest-written report (``check``'s reports are written from the records), no
doctest, unittest or subtests item, no legacy ``tmpdir``/``testdir``, no option of stepwise,
setup-only, setup-plan or the debugger. Their imports and hooks were ~0.02 CPU s of each
child's start (two children a check; measured with a one-test session, 3 x 6 runs).
Everything else of pytest's is loaded as before (capture, logging, warnings, faulthandler:
what a test prints, logs or warns reads the same)."""


def pytest_arguments(run) -> list[str]:
    """The grader child's pytest command line for ``run`` (a ``CatalogueRun``): the catalogue, its
    plugin, pytest's fixed options, and the run whole, as one JSON document (``--run``;
    ``harness.suite.plugin.run_of`` reads it back)."""
    # --confcutdir: no conftest.py above the catalogue's own folder is read; the assertion-pass hook pinned
    # off: the rewritten catalogue harness.run.rewritten writes beforehand is then the code pytest makes here
    unused = [arg for name in UNUSED_PLUGINS for arg in ("-p", f"no:{name}")]
    return [str(SUITE_DIR), "-p", "harness.suite.plugin", "--confcutdir", str(SUITE_DIR),
            *unused, "-q", "--no-header", "-o", "addopts=",
            "-o", "console_output_style=classic", "-o", "enable_assertion_pass_hook=false",
            "--rootdir", str(PACKAGE_ROOT), "--run", run.to_json()]


def start_catalogue(run, key: bytes, *, cwd, env: dict[str, str], out, extra_fds: tuple[int, ...] = ()):
    """The grader child of ``run`` (started by ``start``, through ``harness.suite.early``), its
    records signed with ``key``: handed through a pipe (never on disk), whose read end is the
    run's ``results_key_fd``."""
    key_read, key_write = os.pipe()
    try:
        child = start(pytest_arguments(run.with_(results_key_fd=key_read)), cwd=cwd, env=env, out=out,
                      key_fd=key_read, extra_fds=extra_fds, module="harness.suite.early")
    finally:
        os.close(key_read)
    os.write(key_write, key.hex().encode() + b"\n")
    os.close(key_write)
    return child


def start(args: list[str], *, cwd, env: dict[str, str], out, key_fd: int, extra_fds: tuple[int, ...] = (),
          module: str = "pytest"):
    """``python -m pytest args`` as ``harness.grading.check``'s grader child (module docstring);
    ``extra_fds`` are inherited too (a twin's stream: ``harness.suite.twin``); ``module``: run
    that one instead, which runs pytest (``harness.suite.early``)."""
    keep = (key_fd, *extra_fds)
    if forkable():
        warm()
        return _fork(list(args), str(cwd), dict(env), out.fileno(), keep, module)
    served = _served(list(args), str(cwd), dict(env), out.fileno(), keep, module)
    if served is not None:
        return served
    return subprocess.Popen(isolated.command(module, *args), cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=out, stderr=subprocess.STDOUT, start_new_session=True, pass_fds=keep)


RUN_ENV = ("CONSTRAIN_HARNESS_MARKER", "TMPDIR", "PYTEST_CURRENT_TEST")
"""The grader child's variables that are the run's own (``harness.grading.check._child_env``: its
marker and temporary folder; a calling pytest's current test, which the child's own pytest sets
anew): a warm server (``harness.run.forkserver``) is started without them and serves a caller whose
grader environment is its own but for them (nothing the server imports reads one)."""
SERVED_MODULES = ("harness.suite.early", "pytest")
"""What a warm server's fork may run (``python -m MODULE``)."""
SERVER_START_SECONDS = 120.0   # wall: a warm server says it is ready within this (a loaded machine included)
MAX_SERVERS = 2   # a process's warm servers, one per grader environment (a test that changes it gets its own);
# past it the least recently used one ends
RESOURCE_LIMITS = ("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_DATA", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_NPROC",
                   "RLIMIT_STACK", "RLIMIT_CORE", "RLIMIT_MEMLOCK")


def own_state() -> dict:
    """What a caller and its warm server must share for the server's fork to be the caller's new
    interpreter: resource limits, cgroups, umask (``harness.run.forkserver`` compares them)."""
    import resource

    limits = {name: list(resource.getrlimit(getattr(resource, name))) for name in RESOURCE_LIMITS
              if hasattr(resource, name)}
    try:
        with open("/proc/self/cgroup") as f:
            cgroup = f.read()
        with open("/proc/self/status") as f:   # read, never set: another thread may be making a file
            mask = next((line.split()[1] for line in f if line.startswith("Umask:")), "")
    except OSError:
        cgroup, mask = "", ""
    return {"limits": limits, "cgroup": cgroup, "umask": mask}


class _Server:
    """A warm server (``harness.run.forkserver``) this process started, and its end of the channel."""

    def __init__(self, env: dict[str, str]):
        import socket

        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.proc = subprocess.Popen(isolated.command("harness.run.forkserver", str(theirs.fileno())), env=env,
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, start_new_session=True,
                                         pass_fds=(theirs.fileno(),))
        finally:
            theirs.close()
        self.channel = mine
        mine.settimeout(SERVER_START_SECONDS)
        try:
            said = mine.recv(64)
        except OSError:
            said = b""
        mine.settimeout(None)
        if said != b"ready":
            self.close()
            raise OSError(f"the warm grader server did not start (it said {said!r})")

    def retire(self) -> None:
        """Ask the server to end once the children it runs have ended (it forks no other)."""
        try:
            self.channel.send(b"retire")
        except OSError:
            pass

    def close(self) -> None:
        self.channel.close()   # the server ends every child it still has, then itself
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


MAX_REFUSAL_REASONS = 32
"""``REFUSALS`` keeps at most this many distinct reasons (each cut to 200 characters); later new ones
are counted under ``OTHER_REFUSALS``."""
OTHER_REFUSALS = "other reasons (past MAX_REFUSAL_REASONS distinct ones)"
MAX_SERVERS_OFF = 16
"""``_SERVERS_OFF`` keeps at most this many environments whose server failed to start; past it the
oldest is forgotten (its next grader child tries a server once more)."""
REFUSALS: "collections.Counter[str]" = collections.Counter()
"""Why this process's warm servers refused a child (each then started as a new interpreter), and how
often: a server serves only a caller in its own state (``harness.run.forkserver``). At most
``MAX_REFUSAL_REASONS`` reasons, plus ``OTHER_REFUSALS``."""
_SERVERS: dict[tuple, _Server] = {}
_RETIRED: list[_Server] = []   # asked to end once their children have (``_Server.retire``); reaped later
_SERVERS_LOCK = threading.Lock()
_SERVERS_OF = [0]   # the pid that started them (a fork of this process starts its own)
_SERVERS_OFF: dict[tuple, str] = {}   # environments whose server failed to start, and why (none is tried again)


def _server_for(env: dict[str, str]) -> _Server | None:
    key = tuple(sorted((k, v) for k, v in env.items() if k not in RUN_ENV))
    with _SERVERS_LOCK:
        if _SERVERS_OF[0] != os.getpid():
            _SERVERS.clear()   # a fork's copies: its parent's servers are not its own
            _RETIRED.clear()
            _SERVERS_OFF.clear()
            _SERVERS_OF[0] = os.getpid()
        if key in _SERVERS_OFF:
            return None
        server = _SERVERS.pop(key, None)
        if server is not None:
            _SERVERS[key] = server   # the most recently used last
        if server is not None and server.proc.poll() is not None:
            server = _SERVERS.pop(key)
            server.close()
            server = None
        if server is None:
            for old in [r for r in _RETIRED if r.proc.poll() is not None]:
                _RETIRED.remove(old)
                old.close()
            while len(_SERVERS) >= MAX_SERVERS:   # the least recently used one makes room (a child it runs ends first)
                old = _SERVERS.pop(next(iter(_SERVERS)))
                old.retire()
                _RETIRED.append(old)
            try:
                server = _SERVERS[key] = _Server(dict(key))
            except OSError as exc:
                while len(_SERVERS_OFF) >= MAX_SERVERS_OFF:   # the oldest is forgotten: bounded
                    del _SERVERS_OFF[next(iter(_SERVERS_OFF))]
                _SERVERS_OFF[key] = str(exc)[:200]
                return None
        return server


def close_servers() -> None:
    """End this process's warm servers (``atexit`` too); the next grader child starts one again."""
    with _SERVERS_LOCK:
        servers = [*_SERVERS.values(), *_RETIRED] if _SERVERS_OF[0] == os.getpid() else []
        _SERVERS.clear()
        _RETIRED.clear()
    for server in servers:
        server.close()


def serving() -> bool:
    """Whether a grader child of this process would come from a warm server (``_served``): forks
    are on, the process cannot fork its own (``forkable``) and the kernel has pidfds."""
    return (hasattr(os, "fork") and hasattr(os, "pidfd_open") and os.environ.get(FORK_ENV) != "0"
            and not forkable())


def _served(args: list[str], cwd: str, env: dict[str, str], out_fd: int, keep: tuple[int, ...],
            module: str) -> "ServedChild | None":
    """The grader child forked by this process's warm server (``harness.run.forkserver``), or None
    (no server here, or it refused: the caller starts a new interpreter)."""
    import json
    import socket

    if not serving() or module not in SERVED_MODULES:
        return None
    server = _server_for(env)
    if server is None:
        return None
    status, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    request = {"args": args, "cwd": cwd, "env": env, "module": module, "targets": list(keep), **own_state()}
    try:
        with _SERVERS_LOCK:
            socket.send_fds(server.channel, [json.dumps(request).encode()], [theirs.fileno(), out_fd, *keep])
    except OSError:
        status.close()
        return None
    finally:
        theirs.close()
    status.settimeout(SERVER_START_SECONDS)
    try:
        said = json.loads(status.recv(4096) or b"{}")
    except (OSError, ValueError):
        said = {}
    status.settimeout(None)
    if not isinstance(said, dict) or not isinstance(said.get("pid"), int):
        status.close()
        why = said.get("refused") if isinstance(said, dict) else None
        _count_refusal(str(why or "no answer")[:200])
        return None
    return ServedChild(said["pid"], status)


def _count_refusal(reason: str) -> None:
    """Count one refusal in ``REFUSALS``, keeping at most ``MAX_REFUSAL_REASONS`` distinct reasons."""
    if reason not in REFUSALS and len(REFUSALS.keys() - {OTHER_REFUSALS}) >= MAX_REFUSAL_REASONS:
        reason = OTHER_REFUSALS
    REFUSALS[reason] += 1


class ServedChild:
    """A grader child forked by a warm server, read as a ``subprocess.Popen``: its exit status comes
    on its status socket (``exit_fd`` turns readable then); the server's end without one reads as
    a SIGKILL (the child died with it)."""

    def __init__(self, pid: int, status):
        self.pid = pid
        self.returncode: int | None = None
        self._status = status

    def exit_fd(self) -> int:
        return self._status.fileno()

    def poll(self) -> int | None:
        if self.returncode is None:
            self._read(block=False)
        return self.returncode

    def wait(self) -> int:
        while self.returncode is None:
            self._read(block=True)
        return self.returncode

    def _read(self, block: bool) -> None:
        import json

        self._status.setblocking(block)
        try:
            said = self._status.recv(4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            said = b""
        try:
            code = json.loads(said).get("exitcode") if said else None
        except (ValueError, AttributeError):
            code = None
        self.returncode = code if isinstance(code, int) else -signal.SIGKILL
        self._status.close()


atexit.register(close_servers)


class ForkedChild:
    """The forked grader child, read as a ``subprocess.Popen``."""

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self._reap(os.WNOHANG)
        return self.returncode

    def wait(self) -> int:
        while self.returncode is None:
            self._reap(0)
        return self.returncode

    def _reap(self, flags: int) -> None:
        try:
            pid, status = os.waitpid(self.pid, flags)
        except ChildProcessError:  # reaped elsewhere: its status is lost, say it was killed
            self.returncode = -signal.SIGKILL
            return
        if pid:
            self.returncode = os.waitstatus_to_exitcode(status)


def _fork(args: list[str], cwd: str, env: dict[str, str], out_fd: int, keep: tuple[int, ...],
          module: str) -> ForkedChild:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()   # nothing buffered here may be written twice
        except (OSError, ValueError):
            pass
    gc.freeze()
    try:
        pid = os.fork()
        if pid == 0:
            _child(args, cwd, env, out_fd, keep, module)   # never returns
    finally:
        gc.unfreeze()   # here only: the child never leaves _child
    return ForkedChild(pid)


def _child(args: list[str], cwd: str, env: dict[str, str], out_fd: int, keep: tuple[int, ...], module: str) -> None:
    code = 1
    try:
        os.setsid()
        os.chdir(cwd)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out_fd, 1)
        os.dup2(out_fd, 2)
        low = 3
        for fd in sorted({fd for fd in keep if fd >= 3}):   # every descriptor but those kept
            os.closerange(low, fd)
            low = fd + 1
        os.closerange(low, _max_fd())
        _as_a_new_interpreter(env)
        code = _run_pytest(args, module)
    except BaseException:  # noqa: BLE001 - before or after pytest: said in the log, never returned from
        try:
            os.write(2, traceback.format_exc().encode("utf-8", "replace"))
        except BaseException:  # noqa: BLE001
            pass
    finally:
        os._exit(code)


def _max_fd() -> int:
    try:
        return int(os.sysconf("SC_OPEN_MAX"))
    except (ValueError, OSError):
        return 65536


def _as_a_new_interpreter(env: dict[str, str]) -> None:
    import atexit
    import random
    import tempfile

    for number in signal.valid_signals():   # an exec keeps what is ignored and resets what is handled
        if number in (signal.SIGKILL, signal.SIGSTOP):
            continue
        try:
            if callable(signal.getsignal(number)):
                signal.signal(number, signal.SIG_DFL)
        except (OSError, ValueError):
            pass
    if signal.getsignal(signal.SIGINT) == signal.SIG_DFL:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    for number in (signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(number, signal.SIG_IGN)
    atexit._clear()
    os.environ.clear()
    os.environ.update(env)
    tempfile.tempdir = None
    random.seed()
    if "numpy.random" in sys.modules:
        sys.modules["numpy.random"].seed()
    _fresh_streams()
    faulthandler.enable(file=sys.stderr, all_threads=True)


def _fresh_streams() -> None:
    """``sys.std*`` as the interpreter makes them for files: stdout block-buffered, stderr
    line-buffered with ``backslashreplace``; the encoding the same environment chose here."""
    old_in, old_out, old_err = sys.__stdin__, sys.__stdout__, sys.__stderr__
    _STASH.extend((sys.stdin, sys.stdout, sys.stderr, old_in, old_out, old_err))
    encoding = getattr(old_out, "encoding", None) or "utf-8"
    errors = getattr(old_out, "errors", None) or "strict"
    sys.stdin = sys.__stdin__ = _stream(0, "rb", encoding, errors, line_buffering=False)
    sys.stdout = sys.__stdout__ = _stream(1, "wb", encoding, errors, line_buffering=False)
    sys.stderr = sys.__stderr__ = _stream(2, "wb", encoding, "backslashreplace", line_buffering=True)


def _stream(fd: int, mode: str, encoding: str, errors: str, line_buffering: bool) -> io.TextIOWrapper:
    """As CPython's ``create_stdio`` on POSIX: a buffered binary file, newlines as ``\\n``."""
    binary = io.open(fd, mode, closefd=False)
    return io.TextIOWrapper(binary, encoding=encoding, errors=errors, newline="\n", line_buffering=line_buffering)


def _run_pytest(args: list[str], module: str = "pytest") -> int:
    """``python -m pytest args`` (or ``module``) from here on (``isolated.BOOT``'s ``runpy``
    call), and the interpreter's exit; the exit status."""
    import runpy

    sys.argv = ["-c", *args]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as exc:
        code = _exit_status(exc.code)
    except KeyboardInterrupt:
        traceback.print_exc()
        _exit_like_the_interpreter()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)   # as CPython: an uncaught Ctrl-C ends by the signal
        code = 130
    except BaseException:  # noqa: BLE001 - as the interpreter: the traceback, status 1
        sys.excepthook(*sys.exc_info())
        code = 1
    _exit_like_the_interpreter()
    return code


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _exit_like_the_interpreter() -> None:
    import atexit

    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is not None:
        shutdown()   # non-daemon threads joined, as at the interpreter's exit
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


def main(argv: list[str] | None = None) -> int:
    """``python -m harness.run.launch LOG ARGS...``: run ``pytest ARGS`` through ``start``
    (forked where ``forkable``), here, with this environment, output into LOG, and a key
    pipe holding one line; its exit status (negative: the signal). For the tests (the fork and
    the new interpreter side by side) and to see what ``check`` starts."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print("usage: python -m harness.run.launch LOG PYTEST-ARGS...", file=sys.stderr)
        return 2
    key_read, key_write = os.pipe()
    os.write(key_write, b"00\n")
    os.close(key_write)
    with open(argv[0], "wb") as out:
        child = start(argv[1:], cwd=os.getcwd(), env=dict(os.environ), out=out, key_fd=key_read)
        os.close(key_read)
        return child.wait()


if __name__ == "__main__":
    code = main()
    sys.exit(code if code >= 0 else 128 - code)
