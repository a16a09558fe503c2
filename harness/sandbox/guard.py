"""The harness's files are verified and restored however a run ends, a crash included.

A verb whose own process talks to a candidate (``golden replay --impl``, ``grade-tests``:
they decode what the candidate sends) can die of what it decodes (a SIGSEGV in a C
decoder), and a ``finally`` does not run in a process that died of a signal. So
``guarded(label, work, stdout, stderr)`` splits the verb in two processes:

- this process takes the manifest of the harness's files (``harness.sandbox.files``)
  first, then forks;
- the child runs ``work(stdout, stderr) -> exit code`` (what it prints is relayed to the
  given streams through pipes) and exits;
- this process waits for the child however it ends (an exit, an exception, a signal;
  after Ctrl-C, which the child gets too, at most ``INTERRUPT_GRACE`` seconds, then
  SIGKILL), then verifies the files, restores them, and prints one line per change;
- the child's ``TMPDIR`` (and ``tempfile``'s folder) is a folder this process made and
  removes after it: a child that died of a signal leaves no temporary files (its
  candidates' scratch) behind either;
- the child's garbage collector leaves out what it inherited (``gc.freeze``): the child
  ends in ``os._exit``, so none of it is freed anyway, and a collection that scanned it
  would cost CPU and copy the parent's pages (a test's xdist worker holds some 700,000
  objects).

Exit code: the child's; ``ExitCode.CRASHED`` (3) when it died of a signal (said in one
line on ``stderr``); ``ExitCode.TAMPERED`` (4) when a file changed (it wins).
``verified(label, work, stdout, stderr)`` is the same in this process, for the verbs that
never decode a candidate's message themselves (``check --batch``, ``autograder run``: they
read the reports of check runs, which can be killed at their wall-clock limit before
their own verification runs): ``work`` runs here, the verification in a ``finally``.

Example::

    code = guarded("golden replay", lambda out, err: replay(...).exit_code, stdout, stderr)
"""

from __future__ import annotations

import codecs
import gc
import os
import signal
import sys
import tempfile
import threading
import time
import traceback
from typing import Callable

from harness.exitcodes import ExitCode
from harness.sandbox import bytecode
from harness.sandbox.text import escape

Work = Callable[[object, object], int]
INTERRUPT_GRACE = 30.0  # seconds the child may take to end after Ctrl-C (a batch kills its runs)


def guarded(label: str, work: Work, stdout, stderr) -> int:
    """Run ``work`` in a child process; verify and restore the harness's files after it
    (see the module docstring)."""
    from harness.paths import protected_roots

    sys.dont_write_bytecode = True  # the grader adds nothing to the verified tree (its lazy imports)
    manifest = bytecode.take_manifest(protected_roots())  # its compiled modules written before it
    for stream in (stdout, stderr, sys.stdout, sys.stderr):
        stream.flush()
    private_tmp = tempfile.TemporaryDirectory(prefix="constrain-guarded-", ignore_cleanup_errors=True)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        gc.freeze()  # what it inherited is never freed (it ends in os._exit): no collection scans it
        os.close(out_r)
        os.close(err_r)
        os.environ["TMPDIR"] = tempfile.tempdir = private_tmp.name
        _child(work, out_w, err_w)
    os.close(out_w)
    os.close(err_w)
    relays = [_relay(out_r, stdout), _relay(err_r, stderr)]
    status = None
    try:
        try:
            _, status = os.waitpid(pid, 0)
        except KeyboardInterrupt:  # Ctrl-C reached the child too: it ends its own runs first
            status = _wait_after_interrupt(pid)
    finally:
        if status is None:  # anything else here: end the child before the files are verified
            _end(pid)
            status = 9  # as if killed by SIGKILL
        for relay in relays:
            relay.join(timeout=10)
        private_tmp.cleanup()
        changes = manifest.verify()
        if changes:
            manifest.restore()
        for change in changes:
            print(f"{label}: TAMPERED: harness file {escape(change)}; restored", file=stderr, flush=True)
    code = os.waitstatus_to_exitcode(status)
    if code < 0:
        name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
        print(f"{label}: the grader's process died of {name}; the harness's files were verified after it",
              file=stderr, flush=True)
        code = int(ExitCode.CRASHED)
    return int(ExitCode.TAMPERED) if changes else code


def verified(label: str, work: Work, stdout, stderr) -> int:
    """Run ``work`` here; verify and restore the harness's files after it however it
    ends (an exception too). Exit code: ``work``'s, or ``ExitCode.TAMPERED`` (4)."""
    from harness.paths import protected_roots

    sys.dont_write_bytecode = True  # the grader adds nothing to the verified tree (its lazy imports)
    manifest = bytecode.take_manifest(protected_roots())  # its compiled modules written before it
    code = int(ExitCode.CRASHED)
    try:
        code = int(work(stdout, stderr))
    finally:
        changes = manifest.verify()
        if changes:
            manifest.restore()
        for change in changes:
            print(f"{label}: TAMPERED: harness file {escape(change)}; restored", file=stderr, flush=True)
    return int(ExitCode.TAMPERED) if changes else code


def _child(work: Work, out_fd: int, err_fd: int) -> None:
    code = 1
    try:
        with open(out_fd, "w", encoding="utf-8", errors="replace", buffering=1) as out, \
                open(err_fd, "w", encoding="utf-8", errors="replace", buffering=1) as err:
            try:
                code = int(work(out, err))
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except BaseException:  # noqa: BLE001 - as the interpreter would: the traceback, exit 1
                traceback.print_exc(file=err)
                code = 1
    finally:
        os._exit(code & 0xFF)


def _relay(fd: int, stream) -> threading.Thread:
    def run() -> None:
        decoder = codecs.getincrementaldecoder("utf-8")("replace")  # a character split between reads
        with open(fd, "rb") as source:
            while True:
                chunk = source.read1(1 << 16)
                stream.write(decoder.decode(chunk, final=not chunk))
                stream.flush()
                if not chunk:
                    break
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _wait_after_interrupt(pid: int) -> int:
    """The child's wait status, given ``INTERRUPT_GRACE`` seconds to end (e.g. a batch
    stopping its check runs), then SIGKILL (also at a second Ctrl-C)."""
    deadline = time.monotonic() + INTERRUPT_GRACE
    try:
        while time.monotonic() < deadline:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status
            time.sleep(0.05)
    except KeyboardInterrupt:
        pass
    _end(pid)
    return 9


def _end(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass
