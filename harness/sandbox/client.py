"""The grader's side of the wall: a candidate process, its proxies, its failures.

``Candidate(spec).start()`` spawns ``harness.sandbox.server`` confined
(``harness.sandbox.confine``), imports the candidate there and returns the load summary;
``candidate.module`` is a ``Proxy`` of the candidate's module. Reading a proxy's
attribute asks the candidate process (data comes back as data, other objects as new
proxies); calling a method is one round trip; ``call_many(method, arg_tuples)`` calls a
method over many argument tuples in one round trip (the data-only batch for hot loops).
Arguments are data, proxies, or objects described in ``harness.sandbox.arguments`` (a
``numpy.random.Generator`` is sent as its state and, after the call, set to the state
the candidate left it in, so it advances exactly as if it had been used in-process).

Failures:

- an exception the candidate raises comes back as ``RemoteError`` subclassing the
  builtin class it derives from (a ``ValueError`` is caught by ``except ValueError``),
  named as the candidate named it, with its message and the candidate's line;
- the process dying mid-call raises ``CandidateCrashed``, missing the deadline
  ``CandidateTimeout`` (a call whose input is named that ran out of time is kept in
  ``known_hangs``, and asking it again later in the run raises ``CandidateNotAsked`` at
  once: ``harness.sandbox.hangs``), breaking the channel's rules ``CandidateProtocolError``
  (``harness.sandbox.failures``, the messages' words ``harness.sandbox.wording``); all derive from
  ``CandidateGone`` (a ``BaseException``, so a test's ``except Exception`` cannot swallow
  it), the process is ended and ``candidate.incident`` keeps the first one; a later call
  on the same ``Candidate`` raises it again.

The candidate process's ``sys.path`` is the harness's package root, the standard library
and site-packages, then the candidate's folder, last: a student's file named
``numpy.py`` or ``regex.py`` beside their module cannot shadow a library (their own
helpers with other names still import). The grader's processes never have the
candidate's folder on their path (``harness.sandbox.isolated``).

Time limits count CPU seconds of the candidate's process tree (its cgroup's count of every
process it ever ran, ``harness.sandbox.resources``; ``harness.sandbox.cputime`` where an
unconfined run has no cgroup),
never the machine's business: ``limit_cpu(seconds)`` starts a budget that bounds every
call until ``limit_cpu(None)`` (a catalogue test's calls share one); without one each
call gets ``Limits.call_seconds`` CPU seconds, and loading gets ``load_cpu_seconds``. A
call waits for its reply in slices of ``SLICE`` seconds and, between them, reads the
tree's CPU time: past the budget it is ended, ``CandidateTimeout("CPU-time limit: ...")``.
Wall time is only a backstop, ``harness.policy.BACKSTOP_FACTOR`` times the budget, for a
candidate that sleeps or blocks (``CandidateTimeout("wall-clock backstop: ...")``); on a
loaded machine (``cputime.machine_loaded``) the backstop is granted once more before it
stands (the verdict and its words are the same either way). ``RLIMIT_CPU``
(``Limits.cpu_seconds``) is the hard fence of every process. ``deadline`` (a
``time.monotonic()`` instant), when a caller sets it, is a plain wall-clock deadline
instead (the verbs that have not moved to budgets). Output the candidate prints is
drained by a thread into a bounded buffer (``OUTPUT_HEAD`` + ``OUTPUT_TAIL`` bytes).

Example::

    >>> with Candidate(None) as cand:                  # the reference
    ...     dfa = cand.module.regex_to_dfa("ab")
    ...     dfa.n_states, dfa.step(0, b"ab")
    (3, 2)
"""

from __future__ import annotations

import os
import secrets
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from harness.policy import POLICY
from harness.sandbox import (
    arguments,
    channel,
    confine,
    cpulog,
    cputime,
    failures,
    hangs,
    lending,
    proxying,
    view,
    wording,
)
from harness.sandbox.candidate import CONTRACTS, import_place
from harness.sandbox.failures import CandidateCrashed, CandidateGone, CandidateProtocolError, CandidateTimeout

PACKAGE_ROOT = Path(__file__).resolve().parents[2]
SLICE = 0.1  # seconds a call waits for its reply between two readings of the tree's CPU time
OUTPUT_HEAD, OUTPUT_TAIL = 4096, 16384
CPU_LIMIT_SHARE = 0.9
"""Of its ``RLIMIT_CPU``, the exact CPU count (its cgroup's, read after its death) at which a SIGKILL
is its CPU limit's (``own_limit_kill``): the kernel checks the limit against tick-sampled time,
which runs ahead of the exact count (measured: a candidate killed at an 8 s limit with 7.63 s
counted). A count read earlier than the death takes a lower share (``check.LAST_LOOK_SHARE``)."""
MAX_REPEAT = 100_000  # calls in one ``repeat_call`` round trip (``server.MAX_REPEAT``)
TRAFFIC: list = [None]
"""``TRAFFIC[0]``: None, or a callable ``(candidate, request, reply, load)`` told of every round trip
of this process's candidates once its reply arrived whole and well formed: the request's and the
reply's frame bodies as they crossed the channel (``load``: the round trip is ``begin``'s load). Set
only by a recording run of the reference (``harness.mutants.traffic_plugin``); it changes nothing."""


class RemoteError(Exception):
    """An exception raised by the candidate's code (see the module docstring). Under the
    tools contract it also carries a proxy of the candidate's exception object, and an
    attribute it lacks is read from there (``exc.status``, ``exc.to_json()``)."""

    remote_type = "?"
    where = ""
    remote = None

    def __getattr__(self, name: str):
        remote = self.__dict__.get("remote")
        if remote is None or name.startswith("__"):
            raise AttributeError(name)
        return getattr(remote, name)


class Candidate:
    """One candidate process (see the module docstring)."""

    STAFF_MADE = False  # True in a subclass serving only the staff's implementations (harness.sandbox.lending)

    def __init__(self, spec: str | None, ref_deps: bool = False, limits: confine.Limits = confine.Limits(),
                 marker: str | None = None, contract: str = "constrain",
                 load_cpu_seconds: float = POLICY.load_cpu_seconds, known_hangs: set[str] | None = None):
        if contract not in CONTRACTS:
            raise ValueError(f"contract must be one of {CONTRACTS}, not {contract!r}")
        self.spec, self.ref_deps, self.limits, self.contract = _absolute(spec), ref_deps, limits, contract
        self.marker = marker or os.environ.get("CONSTRAIN_HARNESS_MARKER") or secrets.token_hex(8)
        self.deadline: float | None = None
        self.load_cpu_seconds = load_cpu_seconds
        # calls (op, name and input: ``wording.what``) that ran out of time earlier in the run; shared by
        # the run's candidate processes (harness.suite.plugin), so a later test never asks again
        self.known_hangs = known_hangs if known_hangs is not None else set()
        self.budget: CpuBudget | None = None
        self.incident: CandidateGone | None = None
        self.load: dict = {}
        self.module: Proxy | None = None
        self.plan: confine.Plan | None = None
        self._proc: subprocess.Popen | None = None
        self._sock: socket.socket | None = None
        self._scratch: Path | None = None
        self._output = _Output()
        self._lock = threading.Lock()
        self._loading: tuple | None = None  # (load frame, sent?, budget to restore): from begin to start
        self._load_body = b""  # the load request's frame body (``begin``)
        self.last_reply = b""  # the last reply's frame body, as it came (``exchange_body``)
        # round trips begun so far: a proxy answers from its handle's snapshot only while this is
        # what it was when the proxy was made (nothing of the candidate's ran since: ``Proxy``)
        self.epoch = 0

    # ------------------------------------------------------------------ life cycle

    def start(self) -> dict:
        """Spawn, import the candidate; the load summary ``{"module", "problems", "notes",
        "ref_deps", "name", "file", "confinement"}``. An import failure raises
        ``RemoteError``; a crash or hang while loading raises ``CandidateGone``. After
        ``begin``, only waits for the load it started. A candidate loaded already raises
        RuntimeError at once (its load's reply was read: waiting again would wait forever)."""
        if self.load:
            raise RuntimeError("this candidate process was started already")
        for attempt in (1, 2):  # a process the machine could not start (EAGAIN, ENOMEM) is started once more
            try:
                if self._loading is None:
                    self.begin()
                return self._finish_load()
            except BaseException as exc:  # a load that failed leaves no process and no folder behind
                self.close()
                refused = failures.machine_refusal(exc, self._output.text())
                if refused is None:
                    raise
                if attempt == 2:
                    self.incident = failures.HarnessCouldNotStart(f"{failures.COULD_NOT_START} (tried twice): "
                                                                  f"{refused}")
                    raise self.incident from None
                self._loading, self.incident, self._output, self.plan = None, None, _Output(), None
        raise AssertionError("unreachable: the second attempt returns or raises")

    def begin(self) -> None:
        """Spawn the candidate process and send its load request without waiting for the
        answer, so the import runs while the caller does other work (the grader child
        collects the catalogue meanwhile); ``start`` then waits for it, under the same
        CPU budget (``load_cpu_seconds``, counted from here)."""
        if self._loading is not None or self._proc is not None:
            raise RuntimeError("this candidate process was started already")
        self._scratch = Path(tempfile.mkdtemp(prefix="constrain-candidate-"))
        try:
            self._spawn()
            frame = ["load", 0, self.spec, [self.ref_deps, self.contract], {}]
            previous = self.limit_cpu(self.load_cpu_seconds)
            self._load_body = channel.pack(frame)
            try:
                channel.send_body(self._sock, self._load_body)
                sent = True
            except OSError:  # it died at once: the wait for the reply says so (_finish_load)
                sent = False
            self._loading = (frame, sent, previous)
        except BaseException:
            self.close()
            raise

    def _spawn(self) -> None:
        home = self._scratch / "home"
        home.mkdir(mode=0o700)
        candidate = [view.readable(p, self._scratch) for p in view.outermost(self._candidate_paths())]
        self.lent = lending.lending(self.spec, self.ref_deps, self._scratch, self.STAFF_MADE, self.contract)
        binds = [*view.harness_binds(self._scratch, candidate, self.lent), *candidate]
        hidden = [Path(tempfile.gettempdir()).resolve(), Path.home().resolve()]
        self.plan = confine.plan(self.limits, binds, [h for h in hidden if h != Path("/")], home, self.marker)
        lent = self.lent.description if self.plan.mode != "unconfined" else "the reference: importable (unconfined)"
        self.plan.description = f"{self.plan.description}; {lent}"
        parent, child = socket.socketpair()
        # the harness first, the candidate's folder last: after the standard library and
        # site-packages, so a student's numpy.py or regex.py shadows no library (see above);
        # the collector off for the harness's imports, on again before the candidate's (server.main)
        code = (f"import gc; gc.disable(); import sys; sys.path[:0] = {[str(PACKAGE_ROOT)]!r}; "
                f"sys.path += {[str(p) for p in self._candidate_paths()]!r}; "
                f"from harness.sandbox.server import main; main({child.fileno()})")
        argv = self.plan.prefix + [sys.executable, "-I", "-B", "-c", code]
        try:
            self._proc = subprocess.Popen(argv, env=self.plan.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT, pass_fds=(child.fileno(), *self.plan.pass_fds),
                                          start_new_session=True, preexec_fn=self.plan.preexec, cwd=str(home))
        finally:
            child.close()
            self.plan.release_fds()  # the seccomp filter's descriptor: bwrap has its own copy
        self._sock = parent
        self._output.drain(self._proc.stdout)

    def _finish_load(self) -> dict:
        """The reply to the load ``begin`` sent (or the load sent now, if that failed)."""
        frame, sent, previous = self._loading
        try:
            status, value, _ = self._exchange(None if sent else frame, wording.what("load", self.spec))
        finally:
            self.budget = previous
        value = self._wrap(value)
        if status == "err":
            raise _remote_exception(value)
        self.module = value["module"]  # already a Proxy (wrapped)
        self.load = {**value, "confinement": self.plan.description, "mode": self.plan.mode}
        return self.load

    def _candidate_paths(self) -> list[Path]:
        if self.spec is None:
            return []
        path = Path(self.spec)
        if self.spec.endswith(".py") or "/" in self.spec or path.exists():
            # the spec's layout: python/ and python/tinyllm/infer; a module of the harness's own
            # packages (the reference as oracles/automaton) is in the sandbox already (view.harness_binds)
            return [f for f in import_place(path).folders if not view.harness_own(f)]
        return [Path.cwd().resolve()]  # a module name: importable from the grader's folder

    @property
    def pid(self) -> int | None:
        """The candidate process's id (the root of the tree whose CPU time counts), or None."""
        proc = self._proc
        return proc.pid if proc is not None else None

    def kill(self) -> None:
        """End the candidate's process tree now (e.g. a caller's limit was hit); ``close``
        still cleans up. A request waiting for it then fails as ``CandidateGone``."""
        proc = self._proc
        if proc is not None:
            kill_group(proc)
            if self.plan is not None and self.plan.claim is not None:
                self.plan.claim.cgroup.kill()  # whatever left its process group (setsid, double fork)

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None and self.incident is None

    def close(self) -> None:
        """End the candidate process and everything it started; remove its folders."""
        if self._proc is not None and os.environ.get(cpulog.CPU_LOG):
            cpulog.log_cpu(os.environ[cpulog.CPU_LOG], self.cpu_seconds())
        proc, self._proc = self._proc, None
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if proc is not None:
            try:
                proc.wait(timeout=2.0)  # the server exits when its channel closes
            except subprocess.TimeoutExpired:
                pass
            kill_group(proc)
            if self.plan is not None and not self.plan.mode.startswith("bubblewrap"):
                confine.kill_marked(self.marker)  # belt and braces: a PID namespace already ended them
            self._output.join()
        if self.plan is not None:
            self.plan.release()  # every process left in its cgroup ended, the cgroup removed, the uid freed
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def __enter__(self) -> "Candidate":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def output(self) -> str:
        """What the candidate printed (head and tail, control characters escaped)."""
        from harness.sandbox.text import escape

        return escape(self._output.text(), keep_newlines=True)

    # ------------------------------------------------------------------ requests

    def request(self, op: str, target: int, name, args, kwargs):
        """One round trip; see the module docstring for what it raises."""
        rngs: list = []
        status, value, extras = self.exchange([op, target, name, list(args), dict(kwargs)],
                                              wording.what(op, name, args), _describer(self, rngs))
        self._restore_rngs(rngs, extras)
        self._write_back(list(args), dict(kwargs), extras)
        value = self._wrap(value)
        if status == "err":
            raise _remote_exception(value)
        return value

    def repeat(self, target: int, name, count: int, args: list, kwargs: dict) -> tuple[list, BaseException | None]:
        """``(answers, error)`` of the ``repeat`` request (``server.Server.repeat``): the
        answers of the calls made, in order, and the candidate's exception that stopped them
        (None when all ``count`` were made). A reply with another count of answers is a
        protocol violation (the process is ended: ``CandidateProtocolError``)."""
        if not isinstance(count, int) or not 0 <= count <= MAX_REPEAT:
            raise ValueError(f"repeat: the count must be an int from 0 to {MAX_REPEAT}, not {count!r}")
        args, kwargs, rngs = list(args), dict(kwargs), []
        what = wording.what("repeat", name)
        status, value, extras = self.exchange(["repeat", target, name, [count, args, kwargs], {}], what,
                                              _describer(self, rngs))
        self._restore_rngs(rngs, extras)
        self._write_back(args, kwargs, extras)
        value = self._wrap(value)
        if status == "err":
            raise _remote_exception(value)
        answers, error = value if isinstance(value, list) and len(value) == 2 else (None, None)
        if not isinstance(answers, list) or not (len(answers) == count if error is None else len(answers) < count):
            got = f"{len(answers)} answers" if isinstance(answers, list) else "a malformed reply"
            raise self._gone(CandidateProtocolError, f"protocol violation during {what}: {got} to {count} calls"
                                                     + ("" if error is None else " stopped by an exception"))
        return answers, None if error is None else _remote_exception(error)

    def batch(self, op: str, target: int, name, args: list, most: int, what: str | None = None,
              inputs: bool = False) -> tuple:
        """``(answers, error)`` of a batched loop (a ``plan``): the answers of the calls the
        candidate made, in order, and the exception that stopped them (or None). More than
        ``most`` answers is a protocol violation (the process is ended:
        ``CandidateProtocolError``); fewer are the loop stopping early,
        after which the grader calls one at a time (``harness.suite.batched.Prefetched``). ``what``: the loop for
        messages (default: ``op`` and ``name``); ``inputs``: the reply also says which inputs
        its calls got (a plan's draws): ``(answers, error, inputs)``, ``inputs`` unchecked."""
        rngs: list = []
        what = f"{what or wording.what(op, name)} (a batched loop)"
        status, value, extras = self.exchange([op, target, name, list(args), {}], what, _describer(self, rngs))
        self._restore_rngs(rngs, extras)
        if status == "err":
            raise _remote_exception(self._wrap(value))
        parts = 3 if inputs else 2
        answers, error, *given = value if isinstance(value, list) and len(value) == parts else (None,) * parts
        answers, error = self._wrap(answers), self._wrap(error)  # ``given``: data the grader only compares
        if not isinstance(answers, list) or len(answers) > most or (error is not None and len(answers) >= most):
            got = f"{len(answers)} answers" if isinstance(answers, list) else "a malformed reply"
            raise self._gone(CandidateProtocolError, f"protocol violation during {what}: {got} to at most {most} "
                                                     f"calls")
        return (answers, None if error is None else _remote_exception(error), *given)

    def run_plan(self, kind: str, steps: list, name=None, shown=(), draws: bool = False) -> tuple:
        """``(answers, error)`` of a plan (``harness.sandbox.plans``; the catalogue's are in
        ``harness.suite.batched``), checked here first (a malformed plan is a ValueError
        naming the step; nothing is sent); more answers than the plan can give is a protocol
        violation. ``kind`` labels it in the request; with ``name`` and the plain inputs
        ``shown``, in messages (``reads regex_to_dfa on 'a|b'``: also the key of a known hang,
        ``hangs.hang_key``). ``draws``: ``(answers, error, draws)``, the inputs its loop's draws
        got as the candidate's process says (unchecked: the caller redraws and compares)."""
        from harness.sandbox.plans import check_plan

        answers, error, given = self.batch("plan", 0, kind, [steps], check_plan(steps), wording.what(kind, name, shown),
                                           inputs=True)
        return (answers, error, given) if draws else (answers, error)

    def exchange(self, frame: list, what: str = "a request", describe=None) -> list:
        """One raw round trip, for a relay that already holds channel values (e.g. frames
        from another process, ``harness.grading.gradetests.relay``): send ``frame``, return the reply
        ``[status, value, extras]`` as the candidate sent it (``status`` is ``"ok"`` or
        ``"err"``; handles stay ``channel.Handle``, errors stay data). ``describe`` turns
        objects that are not channel values into them (``channel.send``'s ``default``).
        Bounded by ``deadline`` (else ``Limits.call_seconds``); raises ``CandidateGone``
        (crash, timeout, protocol, a malformed reply) and keeps it as ``incident``."""
        return self._exchange(frame, what, describe)

    def exchange_body(self, body: bytes, what: str = "a request") -> bytes:
        """One round trip of a request already packed (a frame body, e.g. one a recording kept:
        ``harness.mutants.traffic``), under the same budget, checks and failures as ``exchange``:
        the reply's frame body as it came (``channel.receive_body``)."""
        self._exchange(None, what, body=body)
        return self.last_reply

    def _exchange(self, frame: list | None, what: str, describe=None, body: bytes | None = None) -> list:
        """``exchange``; ``frame`` None: the request is ``body`` (packed already), or without one it
        was sent already (``begin``'s load)."""
        if self.incident is not None:
            raise type(self.incident)(f"the candidate process ended earlier: {self.incident}")
        if self._sock is None:
            raise CandidateCrashed("the candidate process is not running")
        hang = hangs.hang_key(what)
        if hang is not None and hang in self.known_hangs:   # the same call on the same input ran out of time
            raise self._gone(hangs.CandidateNotAsked, f"not run: {hang} did not finish earlier in this run")
        load = frame is None and body is None
        if frame is not None:
            body = _packed(frame, describe, what)
        with self._lock:
            self.epoch += 1
            try:
                if body is not None:
                    channel.send_body(self._sock, body)
                if self.deadline is not None:
                    raw = channel.receive_body(self._sock, self.deadline)
                else:
                    raw = self._await_reply(self.budget or self._call_budget(), what)
                reply = channel.decode(raw)
            except (channel.ChannelClosed, OSError):
                raise self._gone(CandidateCrashed, f"the candidate process died during {what}") from None
            except channel.ChannelTimeout:
                raise self._gone(CandidateTimeout, f"no answer within the deadline ({what})") from None
            except _OverBudget as exc:
                if hangs.hang_key(what) is not None:   # an input named (``wording.what``): it would hang again
                    self.known_hangs.add(hangs.hang_key(what))
                raise self._gone(CandidateTimeout, f"{exc} ({what})") from None
            except channel.ProtocolError as exc:
                raise self._gone(CandidateProtocolError, f"protocol violation during {what}: {exc}") from None
        if not (isinstance(reply, list) and len(reply) == 3 and reply[0] in ("ok", "err")):
            raise self._gone(CandidateProtocolError, f"malformed reply to {what}")
        self.last_reply = raw
        if TRAFFIC[0] is not None:
            TRAFFIC[0](self, self._load_body if load else body, raw, load)
        return reply

    def limit_cpu(self, cpu_seconds: float | None) -> "CpuBudget | None":
        """Bound every call from now on by ``cpu_seconds`` CPU seconds of the candidate's
        process tree in all (None: each call by ``Limits.call_seconds``); returns the
        budget it replaces."""
        previous = self.budget
        self.budget = None if cpu_seconds is None else self._new_budget(cpu_seconds)
        return previous

    def cpu_seconds(self) -> float:
        """CPU seconds the candidate's process tree has used so far (0.0 before it starts):
        its cgroup's count, every process it ever ran (``confine.Plan.cpu_seconds``)."""
        proc, plan = self._proc, self.plan
        return 0.0 if proc is None or plan is None else plan.cpu_seconds(proc.pid)

    def _new_budget(self, cpu_seconds: float) -> "CpuBudget":
        return CpuBudget(float(cpu_seconds), self.cpu_seconds(), time.monotonic())

    def _call_budget(self) -> "CpuBudget":
        """One call's budget when no test set one: counted from the call's first slice (a
        reading of the tree per call would cost more than the call; at most ``SLICE``
        seconds of CPU go uncounted)."""
        return CpuBudget(float(self.limits.call_seconds), None, time.monotonic())

    def _await_reply(self, budget: "CpuBudget", what: str) -> bytes:
        """The reply's frame body, waited for in slices; between slices the budget is checked
        (module docstring)."""
        while True:
            wait = min(SLICE, max(0.0, budget.wall_end - time.monotonic()))
            if select.select([self._sock], [], [], wait)[0]:
                return channel.receive_body(self._sock, budget.wall_end)  # started: the rest by the backstop
            budget.check(self.cpu_seconds())

    def _gone(self, kind: type, message: str) -> CandidateGone:
        proc = self._proc
        if proc is not None and kind is not CandidateCrashed:
            kill_group(proc)
        code = _wait(proc)
        if kind is CandidateCrashed:
            message += f" ({wording.how(code, self._own_limit(code))})"
        self._output.join()  # what it printed up to its end (bounded: 5 s)
        tail = self._output.text()[-600:].strip()
        if tail:
            from harness.sandbox.text import escape

            message += f"; its last output: {escape(tail)}"
        self.incident = kind(message)
        self.close()
        return self.incident

    def _own_limit(self, code: int | None) -> str:
        """Which of its own limits dealt the candidate's SIGKILL (``own_limit_kill``), read from its
        cgroup before it is removed; its CPU limit is its ``RLIMIT_CPU`` soft limit as
        ``confine.cpu_rlimits`` sets it (the SIGKILL of a candidate that ignored the soft limit's
        SIGXCPU comes at its hard limit, above it)."""
        if code not in wording.KILLED or self.plan is None:
            return ""
        soft, _hard = confine.cpu_rlimits(self.limits.cpu_seconds)
        return own_limit_kill(code, oom_killed=self.plan.oom_killed(), cpu_seconds=self.cpu_seconds(),
                              cpu_limit=soft)

    def _restore_rngs(self, rngs: list, extras) -> None:
        states = (extras or {}).get("rng", []) if isinstance(extras, dict) else []
        for rng, state in zip(rngs, states):
            try:
                rng.bit_generator.state = state
            except (TypeError, ValueError, KeyError) as exc:
                raise self._gone(CandidateProtocolError, f"a generator state came back malformed: {exc}") from None

    def _write_back(self, args: list, kwargs: dict, extras) -> None:
        """Copy into the caller's numpy arrays what the call wrote into their copies on the
        candidate's side (``server._written``), so an in-place write is seen as it would be
        in one process. Only an array the grader passed, with its own shape, can be written."""
        written = (extras or {}).get("written", []) if isinstance(extras, dict) else []
        for entry in written:
            key, array = entry if isinstance(entry, list) and len(entry) == 2 else (None, None)
            original = (args[key] if isinstance(key, int) and 0 <= key < len(args) else
                        kwargs.get(key) if isinstance(key, str) else None)
            if not isinstance(original, np.ndarray) or not isinstance(array, np.ndarray) or \
                    array.shape != original.shape:
                raise self._gone(CandidateProtocolError, f"a written-back argument came back malformed: {key!r}")
            if original.flags.writeable:
                original[...] = array

    def _wrap(self, value):
        return proxying.wrap(value, lambda handle: Proxy(self, handle), channel.Handle)


class _OverBudget(Exception):
    """A call ran past its CPU budget or its wall-clock backstop (the message says which)."""


class CpuBudget:
    """CPU seconds the candidate's tree may use from ``cpu_start`` on, and the wall-clock
    backstop (``POLICY.backstop(cpu_seconds)`` from ``wall_start``), granted once more
    when the machine is loaded. Invariant: ``wall_end`` only moves later, once."""

    def __init__(self, cpu_seconds: float, cpu_start: float | None, wall_start: float):
        self.cpu_seconds, self.cpu_start = cpu_seconds, cpu_start
        self.backstop = POLICY.backstop(cpu_seconds)
        self.wall_end = wall_start + self.backstop
        self.extended = False

    def check(self, cpu_now: float) -> None:
        """Raise ``_OverBudget`` when the tree is past its CPU budget or the backstop stands
        (a budget without ``cpu_start`` starts counting at its first check)."""
        if self.cpu_start is None:
            self.cpu_start = cpu_now
        if cpu_now - self.cpu_start > self.cpu_seconds:
            raise _OverBudget(f"{wording.CPU_BUDGET_WORDS}{self.cpu_seconds:g} CPU s")
        if time.monotonic() >= self.wall_end:
            if not self.extended and cputime.machine_loaded():
                self.extended = True  # a busy machine may have starved it: retried once before it stands
                self.wall_end = time.monotonic() + self.backstop
                return
            raise _OverBudget(f"wall-clock backstop: {self.backstop:g} s, the candidate slept or blocked")


def own_limit_kill(code: int | None, *, oom_killed: bool, cpu_seconds: float, cpu_limit: float | None,
                   share: float = CPU_LIMIT_SHARE) -> str:
    """Which of a process's own limits dealt its SIGKILL (exit ``code``, ``wording.KILLED``), in
    the keys of ``wording.OWN_LIMIT_KILLS``: "memory" when its cgroup counted an OOM kill at its
    own limit (``oom_killed``: ``resources.Cgroup.oom_killed``), "cpu" when its CPU seconds reached
    ``share`` of its ``RLIMIT_CPU`` (``cpu_limit``; None: none), else "" (killed from
    outside the harness, or by the kernel: unknown). The kernel checks ``RLIMIT_CPU`` against
    tick-sampled time, which runs ahead of the exact count, hence the share. Shared by the
    candidate's client (``Candidate._own_limit``) and the grader child's watch
    (``harness.grading.check``).

    >>> own_limit_kill(-9, oom_killed=False, cpu_seconds=7.63, cpu_limit=8)
    'cpu'
    >>> own_limit_kill(-9, oom_killed=False, cpu_seconds=2.08, cpu_limit=3)
    ''
    >>> own_limit_kill(-9, oom_killed=False, cpu_seconds=2.08, cpu_limit=3, share=0.6)
    'cpu'
    >>> own_limit_kill(-9, oom_killed=False, cpu_seconds=1.0, cpu_limit=8)
    ''
    """
    if code not in wording.KILLED:
        return ""
    if oom_killed:
        return "memory"
    return "cpu" if cpu_limit is not None and cpu_seconds >= share * cpu_limit else ""


def _absolute(spec: str | None) -> str | None:
    """A path spec made absolute (the candidate process runs in its own folder)."""
    if spec is None:
        return None
    path = Path(spec)
    if spec.endswith(".py") or "/" in spec or path.exists():
        return str(path.resolve())
    return spec


def _wait(proc: subprocess.Popen | None) -> int | None:
    if proc is None:
        return None
    try:
        return proc.wait(timeout=5.0)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        return None


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL ``proc``'s whole process group (it was started in a new session) and reap it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10.0)
    except subprocess.TimeoutExpired:  # pragma: no cover - an unkillable process
        pass


class _Output:
    """The candidate's stdout and stderr: the first and last bytes, and the count."""

    def __init__(self):
        self.head, self.tail, self.total = bytearray(), bytearray(), 0
        self.thread: threading.Thread | None = None

    def drain(self, stream) -> None:
        def run() -> None:
            while True:
                chunk = stream.read1(1 << 16) if hasattr(stream, "read1") else stream.read(1 << 16)
                if not chunk:
                    break
                self.total += len(chunk)
                room = OUTPUT_HEAD - len(self.head)
                if room > 0:
                    self.head += chunk[:room]
                self.tail = (self.tail + chunk)[-OUTPUT_TAIL:]
            stream.close()
        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def join(self) -> None:
        if self.thread is not None:
            self.thread.join(timeout=5.0)

    def text(self) -> str:
        if self.total <= OUTPUT_HEAD + OUTPUT_TAIL:
            data = bytes(self.head) + bytes(self.tail[len(self.tail) - (self.total - len(self.head)):]) \
                if self.total > len(self.head) else bytes(self.head)
        else:
            left_out = self.total - OUTPUT_HEAD - OUTPUT_TAIL
            data = bytes(self.head) + f"\n... ({left_out} bytes left out) ...\n".encode() \
                + bytes(self.tail)
        return data.decode("utf-8", "replace")


# --------------------------------------------------------------------------- proxies


class Proxy(proxying.ProxyBase):
    """An object in the candidate process (see the module docstring); the operations that
    are one round trip each come from ``proxying.ProxyBase``, shared with the shim of
    grade-tests. Attributes named like dunders are never asked for, equality never asks
    the candidate, ``repr`` does (escaped, bounded)."""

    __slots__ = ("_epoch",)
    OWNER = "the candidate's"

    def __init__(self, link, handle):
        super().__init__(link, handle)
        object.__setattr__(self, "_epoch", link.epoch)

    def __getattr__(self, name: str):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)  # numpy and pytest probe dunders: never a round trip
        if name in self._handle.methods:
            return RemoteMethod(self, name)
        snapshot = self._handle.snapshot
        if snapshot is not None and not name.startswith("_") and self._epoch == self._link.epoch:
            # nothing of the candidate's has run since the handle came: a plain read would give this
            values, live, type_name = snapshot
            if name in values:
                return values[name]
            if name not in live:  # no such attribute: the AttributeError a read would bring back
                raise _remote_exception({"type": "AttributeError", "kinds": _ATTRIBUTE_ERROR_KINDS,
                                         "message": f"'{type_name}' object has no attribute '{name}'", "where": ""})
        return self._ask("getattr", name)

    def __eq__(self, other):
        # Never the candidate's __eq__: an object that equals everything must not pass a
        # test's comparison. A proxy equals only itself (a handle to the same object).
        return isinstance(other, Proxy) and other._link is self._link and other._handle.id == self._handle.id

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((id(self._link), self._handle.id))

    def __repr__(self):
        from harness.sandbox.text import escape

        try:
            return escape(str(self._ask("repr")))[:300]
        except (RemoteError, CandidateGone):
            return f"<candidate {self._handle.kind} #{self._handle.id}>"

    def __str__(self):
        return repr(self)


class RemoteMethod(proxying.RemoteMethodBase):
    """A method of a proxied object, called in one round trip (or over many argument
    tuples in one, ``many``)."""

    __slots__ = ()

    def many(self, arg_tuples) -> list:
        """One answer per argument tuple, in order; a reply with more or fewer answers than
        calls is a protocol violation (the process is ended: ``CandidateProtocolError``)."""
        calls = [list(a) for a in arg_tuples]
        return self.counted(self.owner._ask("many", self.name, calls), len(calls))

    def counted(self, answers, calls: int) -> list:
        """``answers`` of a ``many`` request of ``calls`` calls, exactly one per call (any
        other count is a protocol violation: the process is ended, ``CandidateProtocolError``)."""
        if not isinstance(answers, list) or len(answers) != calls:
            got = f"{len(answers)} answers" if isinstance(answers, list) else f"a {type(answers).__name__}"
            raise self.owner._link._gone(CandidateProtocolError, f"protocol violation during many {self.name}: "
                                                                 f"{got} to {calls} calls")
        return answers

    def repeat(self, count: int, args: tuple, kwargs: dict) -> tuple[list, BaseException | None]:
        """``count`` calls with the same arguments in one round trip (``Candidate.repeat``)."""
        return self.owner._link.repeat(self.owner._handle.id, self.name, count, list(args), kwargs)

    def __repr__(self):
        return f"<candidate method {self.owner._handle.kind}.{self.name}>"


def call_many(method, arg_tuples) -> list:
    """``[method(*a) for a in arg_tuples]``, in one round trip when ``method`` is a
    candidate's method (works on in-process callables too)."""
    if isinstance(method, RemoteMethod):
        return method.many(arg_tuples)
    return [method(*a) for a in arg_tuples]


class Fresh:
    """An argument of ``repeat_call`` built anew before each call: ``function(*args,
    **kwargs)`` (e.g. a fresh ``Constraint`` for each draw). Behind the wall ``function``
    is a candidate's method or proxy and the arguments are data or its proxies."""

    __slots__ = ("function", "args", "kwargs")

    def __init__(self, function, *args, **kwargs):
        self.function, self.args, self.kwargs = function, args, kwargs

    def build(self):
        return self.function(*self.args, **self.kwargs)


def repeat_call(method, count: int, *args, **kwargs):
    """Yields ``method(*args, **kwargs)`` ``count`` times, each call getting what a single
    call across the wall would: ``Fresh`` arguments built anew (in argument order), its own
    copy of every list, tuple and dict argument (and of the arrays in them); but the same
    generator and the same top-level arrays every time (a ``numpy.random.Generator``
    advances across the calls, as in a loop of single calls). An exception of a call (or of
    a build) is raised after the answers of the calls before it, as the loop would have
    raised it. A candidate's method or callable proxy makes all the calls in one round trip
    (``Candidate.repeat``, ``server.Server.repeat``); anything else one call per item, lazily."""
    if isinstance(method, Proxy):  # a callable that is no method of its object's class
        answers, error = method._link.repeat(method._handle.id, None, count, list(args), kwargs)
    elif isinstance(method, RemoteMethod):
        answers, error = method.repeat(count, args, kwargs)
    else:
        for _ in range(count):
            yield method(*[_per_call(a) for a in args], **{k: _per_call(v) for k, v in kwargs.items()})
        return
    yield from answers
    if error is not None:
        raise error


def _per_call(value, depth: int = 1):
    """One call's argument in-process, as ``server.Server.resolve`` gives it behind the wall."""
    if isinstance(value, Fresh) and depth == 1:
        return value.build()
    if isinstance(value, list):
        return [_per_call(v, depth + 1) for v in value]
    if isinstance(value, tuple):
        return tuple(_per_call(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return {k: _per_call(v, depth + 1) for k, v in value.items()}
    if isinstance(value, np.ndarray) and depth > 1:
        return value.copy()
    return value


def _packed(frame: list, describe, what: str) -> bytes:
    """``frame``'s body (``channel.pack``); what the grader cannot encode (a value the channel
    does not carry, a bound) is ``HarnessCannotSend``: its own error, never the candidate's
    exception (a UnicodeEncodeError or TypeError of the grader's must not pass a test that
    expects the candidate to raise ValueError or TypeError), nor the candidate's protocol
    violation. Nothing is sent; the candidate's process goes on."""
    try:
        return channel.pack(frame, describe)
    except Exception as exc:  # noqa: BLE001 - whatever the encoding raised is the grader's
        from harness.sandbox.text import escape

        raise failures.HarnessCannotSend(f"{failures.CANNOT_SEND} {what}: {type(exc).__name__}: "
                                         f"{escape(str(exc))[:300]}") from exc


def _describer(candidate: Candidate, rngs: list):
    """Turns what the grader passes into channel values (proxies, generators, tokenizers)."""
    def to_value(obj):
        if isinstance(obj, Proxy):
            if obj._link is not candidate:
                raise TypeError("a proxy from another candidate process cannot be passed here")
            return obj._handle
        if isinstance(obj, RemoteMethod):
            raise TypeError("pass the object, not its bound method")
        if isinstance(obj, Fresh):
            return _fresh_description(obj, to_value)
        if isinstance(obj, np.random.Generator):
            rngs.append(obj)
            return channel.Described("rng", obj.bit_generator.state)
        return arguments.describe_argument(obj)
    return to_value


def _fresh_description(fresh: Fresh, to_value) -> channel.Described:
    """A ``Fresh`` as ``Described("fresh", {"target", "name", "args", "kwargs"})``
    (``server.Server.fresh``): its function a method or proxy of this candidate, its
    arguments data or proxies (a generator or another ``Fresh`` is refused)."""
    function = fresh.function
    if isinstance(function, RemoteMethod):
        target, name = function.owner, function.name
    elif isinstance(function, Proxy):
        target, name = function, None
    else:
        raise TypeError("Fresh needs a method or proxy of the candidate behind the wall")

    def value(obj):
        if isinstance(obj, (np.random.Generator, Fresh)):
            raise TypeError(f"a {type(obj).__name__} cannot be an argument of Fresh")
        if isinstance(obj, (list, tuple)):
            return type(obj)(value(v) for v in obj)
        if isinstance(obj, dict):
            return {k: value(v) for k, v in obj.items()}
        if obj is None or isinstance(obj, (bool, int, float, str, bytes, bytearray, set, frozenset, np.ndarray,
                                           np.generic)):
            return obj
        return to_value(obj)
    return channel.Described("fresh", {"target": to_value(target).id, "name": name, "args": value(list(fresh.args)),
                                       "kwargs": value(dict(fresh.kwargs))})


_EXCEPTION_CLASSES: dict = {}
_ATTRIBUTE_ERROR_KINDS = [k.__name__ for k in AttributeError.__mro__]  # what server._error sends for it
MAX_MESSAGE_CHARS = 4000  # of a candidate's exception message (the server cuts there too, if it was not rewritten)


def _remote_exception(info) -> BaseException:
    if not isinstance(info, dict):
        return CandidateProtocolError("malformed error reply")
    from harness.sandbox.text import escape

    info = {**info, "message": str(info.get("message", ""))[:MAX_MESSAGE_CHARS]}  # the server's cut, redone here
    exc = proxying.exception_class(info, RemoteError, "candidate", _EXCEPTION_CLASSES)
    if exc is None:  # pragma: no cover - Exception always works
        return RemoteError(info["message"])
    exc.remote_type, exc.where = type(exc).__name__, escape(str(info.get("where", "")))[:200]
    if isinstance(info.get("handle"), Proxy):
        exc.remote = info["handle"]
    return exc
