"""What many test modules share: the folders they grade from, the wall's checks (the
harness's files unchanged, no process of the run left), the skip for a machine where no
confinement starts, a peer that may be missing, a free port.

The fixtures built on these (``harness_unchanged``, ``engine``) are in ``conftest.py``.

Example::

    from tests.support.helpers import CANDIDATES, confined, left_over

    @confined
    def test_x(harness_unchanged):
        result = run_check(CheckOptions(impl=str(CANDIDATES / "loops_forever.py")))
        assert left_over(result.marker) == []
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.paths import protected_roots
from harness.sandbox import confine

ROOT = Path(__file__).resolve().parents[2]
CANDIDATES = ROOT / "tests" / "candidates"
SUITES = ROOT / "tests" / "student_suites"
WHEATS = ROOT / "harness" / "grading" / "gradetests" / "wheats"  # grade-tests' wheats (package data)
HOME_TARGETS = (Path("/root/constrain-harness-was-here"),
                Path(os.path.expanduser("~root"), ".constrain-harness-was-here"))
"""Where a candidate that reached the grader's home would write (tests/candidates/writes_grader_home.py)."""

confined = pytest.mark.skipif(confine.unavailable() is not None,
                              reason=f"no confinement can start here: {confine.unavailable()}")
"""Skips a test that runs a candidate where bubblewrap cannot start (the verbs refuse there)."""


def tree_digest(*, bytecode: bool = True) -> str:
    """One sha256 over every entry (path, kind, content or link target) of the harness's
    packages, the candidates and the example student suites.

    ``bytecode=False`` leaves ``__pycache__`` folders out: for tests whose own process
    imports harness modules lazily while they run (Python writes their bytecode into the
    tree; a candidate cannot, it runs confined without write access).
    """
    digest = hashlib.sha256()
    for root in [*protected_roots(), CANDIDATES, SUITES]:
        for path in sorted([root, *root.rglob("*")]):
            if not bytecode and "__pycache__" in path.parts:
                continue
            digest.update(str(path.relative_to(ROOT)).encode() + b"\0")
            if path.is_symlink():
                digest.update(b"link:" + os.readlink(path).encode())
            elif path.is_file():
                digest.update(b"file:" + hashlib.sha256(path.read_bytes()).digest())
            else:
                digest.update(b"dir")
    return digest.hexdigest()


def left_over(marker: str) -> list[int]:
    """Processes still carrying the run's marker (in their environment or command line),
    given time to die: up to 30 s of wall (a backstop: it returns as soon as none is left; 5 s
    were too few on a 2-core machine at load 15-20, where a killed tree took longer to go)."""
    deadline = time.monotonic() + 30
    while True:
        pids = confine.marked_processes(marker.encode())
        if not pids or time.monotonic() > deadline:
            return pids
        time.sleep(0.2)


def peer_or_skip(name: str):
    """The peer ``name`` (``harness.peers.load_peer``), or a skip naming why it is missing
    (the ``peers`` extra is optional)."""
    from harness.peers import PeerUnavailable, load_peer

    try:
        return load_peer(name)
    except PeerUnavailable as exc:
        pytest.skip(f"peer {name} not available: {exc.reason}")


def skip_module_without(*modules: str, reason: str | None = None) -> None:
    """Skips the calling test module when one of ``modules`` (top-level names) is not
    installed, found without importing it: ``pytest.importorskip`` imports, and the openai
    client or distributed cost each worker a second or more of its collection."""
    for name in modules:
        if importlib.util.find_spec(name) is None:
            pytest.skip(reason or f"could not import {name!r}", allow_module_level=True)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (at the time of asking)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker_pid(payload) -> dict:
    """An executor task (``"tests.support.helpers:worker_pid"``): the process that ran it, after
    ``payload["sleep"]`` s."""
    import time as _time

    _time.sleep(payload.get("sleep", 0))
    return {"pid": os.getpid()}


def fresh_collector() -> str:
    """``repr((gc.isenabled(), gc.get_threshold()))`` of a new interpreter: the garbage
    collector a candidate's or a student's code must meet (the oracle of the tests of the
    harness's frozen start-up, ``harness.sandbox.server.main``, ``shim.boot._collector_on``)."""
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-I", "-c", "import gc; print(repr((gc.isenabled(), gc.get_threshold())))"],
                          capture_output=True, text=True, check=True).stdout.strip()


def bounded_call(work, cpu_seconds: float):
    """``work()`` in a fork of this process bounded as the mutant runner's fingerprint child is:
    ``RLIMIT_CPU`` at ``cpu_seconds`` (a fork's CPU time starts at 0) and the address space at
    ``harness.mutants.equivalence``'s bound past this process's size. Its value (pickled back),
    or None when it ran past a bound or raised. For code under test that may hang or grow
    without end in-process (a generated mutant): the test's own process never runs it. A fork
    that sleeps or blocks is killed at the wall backstop, ``BACKSTOP_FACTOR`` x ``cpu_seconds``
    (the policy's), so no call of this hangs."""
    import gc
    import math
    import pickle
    import resource
    import signal

    from harness.mutants.equivalence import _bound_memory
    from harness.policy import BACKSTOP_FACTOR

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        gc.freeze()  # the worker's objects: never freed here (os._exit), never scanned
        try:
            os.close(read_end)
            signal.signal(signal.SIGXCPU, signal.SIG_DFL)
            seconds = math.ceil(cpu_seconds)
            resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds))
            _bound_memory()
            data = pickle.dumps(work())
            with os.fdopen(write_end, "wb") as out:
                out.write(data)
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    data = _read_until(read_end, time.monotonic() + BACKSTOP_FACTOR * cpu_seconds)
    if data is None:  # past the wall backstop: it slept or blocked
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    return pickle.loads(data) if data is not None and os.waitstatus_to_exitcode(status) == 0 else None


def _read_until(fd: int, deadline: float) -> bytes | None:
    """Everything ``fd`` gives until its end (then closed), or None once ``deadline`` (a
    ``time.monotonic()`` instant) passes first."""
    import select

    chunks = []
    with os.fdopen(fd, "rb", buffering=0) as answer:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([answer], [], [], left)[0]:
                return None
            chunk = answer.read(1 << 16)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)


def python_refusal(pattern: str) -> tuple[str, int] | None:
    """Python's own refusal of ``pattern`` as Python 3.11 and later make it, or None: the
    ``re.error`` message and offset of ``re.compile`` (bytes when the pattern is ASCII, as the
    subset reads it), and before 3.11 the DeprecationWarning "Flags not at the start of the
    expression ... but at position N" read as the error 3.11 raises there ("global flags
    not at the start of the expression", offset N), which comes before any error 3.10 finds
    further on. The oracle of "malformed" for the refusal tests, apart from both front ends."""
    import re
    import warnings

    if sys.version_info < (3, 11):
        # re's cache would not parse a cached pattern again, so it would not warn again: 3.10's own
        # compile parses afresh (emptying re's cache each call, re.purge(), made every other pattern
        # of the process compile again: a fifth of test_bounds' fuzz)
        import sre_compile
        compile_afresh = sre_compile.compile
    else:
        compile_afresh = re.compile  # no warning is read: 3.11 raises the error, cached or not
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            compile_afresh(pattern.encode("ascii") if pattern.isascii() else pattern)
            refusal = None
        except re.error as error:
            refusal = error.msg, error.pos
        except (OverflowError, RecursionError):
            refusal = None
    for warning in caught:
        said = str(warning.message)
        if issubclass(warning.category, DeprecationWarning) and said.startswith("Flags not at the start"):
            return "global flags not at the start of the expression", int(said.rsplit(" ", 1)[1])
    return refusal


PYTHON_OVER_BUDGET = "re or regex ran past its CPU budget: no opinion from Python"


def python_says(question, pattern: str, text: bytes, want: bool) -> None:
    """Python's ``question`` (``oracles.stdlib.fullmatch`` or ``partial_match``) answers
    ``want``, or has no answer within its CPU budget (``within_cpu``: a Hypothesis event
    says so). Both engines backtrack, exponentially on some generated patterns."""
    from hypothesis import event

    from oracles.stdlib import within_cpu

    answer = within_cpu(question, pattern, text)
    if answer is None:
        event(PYTHON_OVER_BUDGET)
    else:
        assert answer == want, (question.__name__, pattern, text)


BURN = [sys.executable, "-I", "-S", "-c", "while True: pass"]
"""A busy loop in a new interpreter (not a fork of this worker, which has xdist's thread)."""


class Burners:
    """A busy loop in its own process on every core, for the ``with`` block."""

    def __init__(self, count: int | None = None):
        self.count = count or os.cpu_count() or 1
        self.processes: list[subprocess.Popen] = []

    def __enter__(self) -> "Burners":
        try:
            for _ in range(self.count):
                self.processes.append(subprocess.Popen(BURN))
        except BaseException:
            self.__exit__()
            raise
        time.sleep(0.5)  # every burner running before the grading starts
        return self

    def __exit__(self, *exc) -> None:
        for process in self.processes:
            process.kill()
        for process in self.processes:
            process.wait(timeout=10)

    def alive(self) -> list[int]:
        return [p.pid for p in self.processes if p.poll() is None]


def fresh_catalogue_state() -> None:
    """The catalogue's per-run state as a grader child starts it: the default tier, no notes
    pending, no ``Constraint`` shape known (for tests that call catalogue tests in this process)."""
    from harness.suite import inputs, tiers

    tiers.set_strict(False)
    tiers.drain_notes()
    inputs.forget_constraint_shape()


def assert_canonical(dfa) -> None:
    """Raise ``AssertionError`` unless ``dfa`` (the reference's) holds the guarantees its module
    states: every state reachable from 0, numbered in breadth-first order taking bytes 0..255
    ascending, and live. (A check of the reference, not of the contract: it lives with the
    project's tests, so the generated mutants of the reference are the spec's module only.)"""
    from collections import deque

    from oracles.automaton.dfa import DEAD, live_states

    seen, queue, rows = {0: None}, deque([0]), dfa.trans.tolist()
    while queue:
        for t in rows[queue.popleft()]:
            if t != DEAD and t not in seen:
                seen[t] = None
                queue.append(t)
    order = list(seen)
    assert order == list(range(dfa.n_states)), f"states are not numbered breadth first: {order}"
    live = live_states(dfa.trans, dfa.accept)
    assert bool(live.all()), f"dead states present: {live.nonzero()[0].tolist()}"


def without_oracle_memo(monkeypatch) -> None:
    """The mutant runs this test starts fill no oracle memo (``harness.suite.oracle_memo``,
    ``OFF_VARIABLE``): a warm grader fills its memo after each passing default-tier run by
    computing, once more, the oracle calls that run missed (there is no recording run since
    2026-12-07, night), which pays off over a run of many mutants, not a test's one to four.
    For the tests whose claim is
    not the memo's: it changes no verdict (``tests/mutants/test_mutants_errors.py``'s fast path,
    memo included, against the slow path; the memo's own tests), and each warm grader this
    process starts, or any later run of one, reads the variable from the run's environment."""
    from harness.suite import oracle_memo

    monkeypatch.setenv(oracle_memo.OFF_VARIABLE, "1")


def sample_random(draw: str):
    """The random source of a seeded sample of a parametrization's cases (``run_seed_sample``,
    ``seeded_cases``): the run's seed (the header's ``hypothesis run seed``,
    ``CONSTRAIN_HARNESS_TEST_SEED``, set before collection in every process of the run) and
    ``draw`` (a name, so two samples of one run draw apart); under a derandomized profile (``ci``,
    ``thorough``: the header prints no run seed) ``draw`` alone, the same sample every run, as
    Hypothesis's examples there."""
    import random

    from hypothesis import settings

    seed = "derandomized" if settings.default.derandomize else os.environ.get("CONSTRAIN_HARNESS_TEST_SEED", "0")
    return random.Random(f"{seed}:{draw}")


def run_seed_sample(cases, k: int, *, salt: str) -> list:
    """``cases`` as ``pytest.param``s of which ``k``, drawn by ``sample_random(salt)`` (``salt``:
    the test's name), run by default, the others only under ``-m slow``: for a
    parametrization whose cases are instances of one claim on one code path (data only)."""
    if not 0 < k <= len(cases):
        raise ValueError(f"run_seed_sample: k must be in 1..{len(cases)}, got {k}")
    rng = sample_random(salt)
    kept = set(rng.sample(range(len(cases)), k))
    return [pytest.param(case, marks=() if i in kept else pytest.mark.slow) for i, case in enumerate(cases)]


def seeded_cases(config, cases, kinds, *, draw: str) -> list:
    """A parametrization's cases for this run, as ``pytest.param``s. Under a ``-m`` expression
    that names ``slow`` (and not ``not slow``), every case, each marked ``slow`` so the expression
    selects it. Else a sample that holds a case of every kind: ``kinds(case)`` is the set of kinds
    (code paths) a case takes; for each kind no case drawn so far takes, a case of that kind is
    drawn, from the run's seed (the header's ``hypothesis run seed``, ``CONSTRAIN_HARNESS_TEST_SEED``)
    and ``draw`` (a name, so two samples of one run draw apart); under a derandomized profile
    (``ci``, ``thorough``: the header prints no run seed) from ``draw`` alone, the same sample every
    run. The cases left out are marked ``slow`` (deselected, listed as such). Cases are
    ``(values, id)`` pairs, ``values`` a tuple."""
    import re

    expression = config.getoption("markexpr") or ""
    every = bool(re.search(r"\bslow\b", expression)) and not re.search(r"\bnot\s+slow\b", expression)
    if every:
        return [pytest.param(*values, id=name, marks=pytest.mark.slow) for values, name in cases]
    rng = sample_random(draw)
    chosen: set[str] = set()
    covered: set[str] = set()
    for kind in sorted({k for values, _ in cases for k in kinds(*values)}):
        if kind not in covered:
            values, name = rng.choice([case for case in cases if kind in kinds(*case[0])])
            chosen.add(name)
            covered |= set(kinds(*values))
    return [pytest.param(*values, id=name, marks=() if name in chosen else pytest.mark.slow)
            for values, name in cases]


def bounded_calls(works, cpu_seconds: float) -> list:
    """What ``bounded_call`` gives for each of ``works`` (callables of no argument), in order, from
    one fork of this process that runs them one after another instead of one fork each: in a
    worker late in the fast loop a fork (its page tables, its copy-on-write pages) and the garbage
    a work would leave in this process cost more than a small check's work (``tests/suite/
    test_deep_exact.py``'s kills: docs/testing.md, "Test suite speed"). Each work is bounded as
    ``bounded_call`` bounds its one: ``RLIMIT_CPU`` at ``cpu_seconds`` of CPU from the work's own
    start, to the nearest of the whole seconds the limit counts (the soft limit moved up before
    each), the address space at ``_bound_memory``'s bound past the fork's size then, and
    ``BACKSTOP_FACTOR`` x ``cpu_seconds`` of wall for its answer.
    A work that raised gets None; one that ran past a bound (the fork ends there) gets None and
    the works after it run in a new fork. Before each work the recursion limit, numpy's error
    handling and the warnings filters are as the fork started them; anything else a work changes
    stays for the next ones, so each work's code under test must be its own (a generated mutant
    loaded under its own package name) and a caller that needs a work's answer alone, as
    ``bounded_call`` gives it, asks again for the answers it did not expect."""
    import gc
    import math
    import pickle
    import resource
    import signal
    import struct
    import warnings

    import numpy as np

    from harness.mutants.equivalence import _bound_memory
    from harness.policy import BACKSTOP_FACTOR

    works = list(works)
    values: list = [None] * len(works)
    start = 0
    while start < len(works):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            gc.freeze()  # the worker's objects: never freed here (os._exit), never scanned
            try:
                os.close(read_end)
                signal.signal(signal.SIGXCPU, signal.SIG_DFL)
                _, hard = resource.getrlimit(resource.RLIMIT_CPU)
                recursion, errors, filters = sys.getrecursionlimit(), np.geterr(), list(warnings.filters)
                with os.fdopen(write_end, "wb", buffering=0) as out:
                    for index in range(start, len(works)):
                        sys.setrecursionlimit(recursion)
                        np.seterr(**errors)
                        warnings.filters[:] = filters
                        used = sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
                        soft = max(math.floor(used + cpu_seconds + 0.5), math.floor(used) + 1)  # whole seconds
                        resource.setrlimit(resource.RLIMIT_CPU,
                                           (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))
                        _bound_memory()
                        try:
                            data = pickle.dumps(works[index]())
                        except BaseException:  # noqa: BLE001 - None, as bounded_call gives for a work that raised
                            data = pickle.dumps(None)
                        out.write(struct.pack("<Q", len(data)) + data)
            finally:
                os._exit(0)
        os.close(write_end)
        answers = _read_frames(read_end, BACKSTOP_FACTOR * cpu_seconds, len(works) - start)
        if start + len(answers) < len(works):  # the fork ended, or stopped answering, at a work
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        values[start:start + len(answers)] = [pickle.loads(data) for data in answers]
        start += len(answers) + 1  # the work that ended the fork keeps its None
    return values


def _read_frames(fd: int, seconds: float, count: int) -> list[bytes]:
    """The length-prefixed frames (8 bytes, little endian, then the data) ``fd`` gives, at most
    ``count``, each within ``seconds`` of wall after the one before; then ``fd`` is closed."""
    import select
    import struct

    frames, buffer = [], b""
    deadline = time.monotonic() + seconds
    with os.fdopen(fd, "rb", buffering=0) as answer:
        while len(frames) < count:
            if len(buffer) >= 8 and len(buffer) >= 8 + struct.unpack("<Q", buffer[:8])[0]:
                size = struct.unpack("<Q", buffer[:8])[0]
                frames.append(buffer[8:8 + size])
                buffer = buffer[8 + size:]
                deadline = time.monotonic() + seconds
                continue
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([answer], [], [], left)[0]:
                break
            chunk = answer.read(1 << 16)
            if not chunk:
                break
            buffer += chunk
    return frames
