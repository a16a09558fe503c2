"""The pytest plugin the catalogue runs under: options, the candidate behind the wall, the result file.

Use::

    python3 -m pytest harness/suite -p harness.suite.plugin [--impl X] [--ref-deps] [--deep]
        [--strict] [--timeout S] [--load-seconds S] [--seed N] [--memory MB] [--results-file F]
        [--golden-file G]

This process is the grader: the tests, the oracles and every assertion run here. The
candidate is imported only in a confined candidate process (``harness.sandbox``), and
the ``impl`` fixture is a proxy of its module: the DFA, TokenIndex and Constraint it
returns stay there, their attributes and methods are read through the data-only
channel. Nothing the candidate does can reach this process's modules or the result file.

Options: ``--run JSON``, the whole run as one document (``harness.run.CatalogueRun``: what
``harness.grading.check`` and the mutant runner give; ``run_of`` reads it, and the options below are
then not read), or, for a hand run, the separate options, read into the same value:

- ``--impl X``: the implementation under test (a module name, a ``.py`` file or a package
  directory; see ``harness.sandbox.candidate``). Default: the reference ``oracles.automaton``.
- ``--ref-deps``: supply the reference sampling and GPT-2 byte map where X lacks them.
- ``--deep``: also run the Hypothesis differential properties (``test_deep.py``).
- ``--strict``: grade the contract's own decisions too (``harness.suite.tiers``).
- ``--timeout S``: the CPU seconds each test's calls into the candidate may use, counted
  over the candidate's process tree (``harness.sandbox.cputime``; default
  ``POLICY.test_cpu_seconds``); wall time only as the backstop ``POLICY.backstop(S)``, for
  a candidate that sleeps or blocks (``harness.sandbox.client``). A verdict never depends on
  how busy the machine is.
- ``--wall-reference WALL:CPU``: the reference's wall and CPU seconds for the same work,
  measured as the grading run started (``harness.grading.wall_calibration``): put in force
  before the candidate starts, it makes ``POLICY.backstop(S)`` the calibrated wall limit
  (``harness.policy.WallCalibration``) instead of the fixed 10x.
- ``--load-seconds S``: CPU seconds for importing the candidate (``POLICY.load_cpu_seconds``).
- ``--seed N``: the run seed every random choice comes from (``harness.suite.seeding``;
  default 0, the catalogue's own constants; ``harness.grading.check`` passes the submission's).
- ``--memory MB``: the candidate process's address-space limit (2048).
- ``--results-file F``: append one JSON object per line to F, flushed as it is written,
  so that a crash of this process loses nothing already recorded (``harness.grading.check`` reads it).
- ``--results-key-fd N``: sign each record (HMAC-SHA256, a ``"mac"`` field) with a key
  read from file descriptor N, so a record anyone else appends to F is ignored
  (``harness.grading.check``; it matters where the candidate could reach F: the fallback).
- ``--golden-file G``: the masks golden file to replay (default ``golden/masks_golden.json``).
- ``--only A,B`` / ``--skip A,B``: run only / not these tests, by exact name.

Result records (``"event"`` first):

- ``{"event": "load", "status": "ok"|"error"|"usage", "reason": str, "problems": [str],
  "notes": [str], "ref_deps": [str], "module": str, "file": str, "confinement": str, "mode": str}``: the candidate was
  imported (or not); ``problems`` are contract names it lacks (the tests needing them
  fail, the others run), ``notes`` signatures that cannot take the spec's call;
- ``{"event": "start", "test": name}``: a test began;
- ``{"event": "result", "test": name, "outcome": "passed"|"failed"|"error"|"crashed"|"timeout",
  "reason": one line, "details": text, "duration": seconds, "notes": [str]}``; a test
  whose call into the candidate crashed, hung or broke the protocol is ``crashed``
  (protocol: the reason says so) or ``timeout``, and the next test gets a fresh
  candidate process (at most ``MAX_RESTARTS``); a test whose request the grader could not
  send (``harness.sandbox.failures.HarnessCannotSend``: the harness's error) is ``error``;
- ``{"event": "finish", "exitstatus": int}``: the session ended normally.

Everything the candidate wrote (messages, output) is escaped (``harness.sandbox.text``).

State. A session's state (its run value, the candidate process, restarts, each test's start
and reports, and the catalogue's ``CatalogueState``: the run seed, the tier, the running test's
notes and facts, ``harness.suite.session``) is one ``_Run`` kept in the session's
``config.stash`` under ``RUN_KEY``; the hooks pytest calls without a config are its methods (it
is registered as a plugin of its own session). The candidate process begun before pytest was
imported comes to the session as an object passed explicitly (``harness.suite.early``'s
``EarlyCandidate``, a plugin object given to ``pytest.main``). What stays module-level in the
grader child, each bounded:

- ``harness.suite.session._IN_FORCE``: a reference to the ``CatalogueState`` in force (at most
  one: this session's, put in force in ``pytest_configure``, taken out in ``pytest_unconfigure``),
  through which the catalogue's helpers, called from the tests without a config, read the run
  seed (``seeding.seeded_rng``) and the tier (``tiers.decision``);
- ``harness.suite.inputs._SHAPE``: the ``Constraint`` shape the candidate accepted (one name,
  emptied in ``pytest_configure``);
- ``harness.policy._WALL_IN_FORCE``: at most one wall calibration (the run's);
- ``harness.run.launch._STASH``: a forked child's six inherited std streams, kept unflushed;
- the sandbox's caches of facts about this machine, each a few entries: ``confine._FOUND``,
  ``_WORKS``, ``_FAILURES``, ``_INTERPRETER_PATHS`` (the confinement found and whether it
  works), ``resources._PROBED``, ``plans._DRAWING`` (one bit generator per kind) and
  ``server._SEEDS`` (in the candidate process);
- ``harness.sandbox.client._EXCEPTION_CLASSES``: one class per (exception name, built-in base)
  a candidate raised, at most ``proxying.MAX_EXCEPTION_CLASSES`` (1,024; past it a new kind's
  class is made for that exception alone and not kept).

What stays module-level in a process that starts grader children (``harness.grading.check``
through ``harness.run.launch``: the verb, a batch's check jobs), with its bound; used only where
the process cannot fork its own grader child (``launch.forkable``):

- ``harness.run.launch._SERVERS``: the warm grader-child servers (``harness.run.forkserver``), one
  per grader environment, at most ``launch.MAX_SERVERS`` (2); past it the least recently used one
  is retired: kept in ``_RETIRED`` only until the children it still runs have ended (closed at the
  next server's start), so at most one per grader child still running. A fork of the process starts
  with neither (its parent's servers are not its own); ``tests/run/test_launch.py`` holds the bound;
- ``harness.run.launch._SERVERS_OFF``: the grader environments whose server failed to start, and
  why (not tried again while listed), at most ``launch.MAX_SERVERS_OFF`` (16): past it the oldest
  is forgotten (its next child tries a server once more);
- ``harness.run.launch.REFUSALS``: a count per reason a server refused a child, each reason cut to
  200 characters, at most ``launch.MAX_REFUSAL_REASONS`` (32) reasons; later new ones are counted
  under ``launch.OTHER_REFUSALS``. ``tests/run/test_launch.py`` holds both bounds.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback

import pytest

from harness.policy import POLICY
from harness.run import CatalogueRun
from harness.run.value import run_from_options
from harness.sandbox.text import escape
from harness.suite.seeding import stable_text

MAX_RESTARTS = 20  # fresh candidate processes after crashes, at most: a candidate that crashes everywhere ends
sys.dont_write_bytecode = True  # leave no __pycache__ in the checkout (its files are verified after the run)


def run_of(config) -> CatalogueRun:
    """The run this session is asked for (``harness.run.CatalogueRun``), read once in
    ``pytest_configure``: ``--run``, the whole value as one JSON document (what
    ``harness.grading.check`` gives), else the separate options of a hand run
    (``harness.run.value.run_from_options``; every default ``harness.policy.POLICY``'s but for
    ``--ref-deps``, a flag: off unless given), the marker then from ``CONSTRAIN_HARNESS_MARKER``.
    A bad value is a ``pytest.UsageError`` naming the field or the option."""
    text = config.getoption("--run", default=None)
    try:
        if text is not None:
            return CatalogueRun.from_json(text)
        return run_from_options(lambda name: config.getoption(name, default=None),
                                os.environ.get("CONSTRAIN_HARNESS_MARKER"))
    except (TypeError, ValueError) as exc:
        raise pytest.UsageError(f"harness.suite.plugin: {exc}") from None


class _Run:
    """One pytest session of the catalogue (made in ``pytest_configure``, kept in the session's
    ``config.stash`` under ``RUN_KEY``, never in a module global): its run value and the state
    that changes while it runs (the candidate process, restarts, each test's start). The hooks
    pytest calls without the config (a test's start, reports and finish, a warning) are its
    methods: it is registered as a plugin of its own session, and unregistered when it ends."""

    def __init__(self, settings: CatalogueRun, out, write) -> None:
        from harness.suite.session import CatalogueState

        self.settings = settings
        # the run seed, the tier, the running test's notes and facts (harness.suite.session)
        self.state = CatalogueState(seed=settings.seed, strict=settings.strict)
        self.out = out  # the results file, line-buffered (None: no --results-file)
        self.write = write  # writes one (signed) record to ``out``
        self.golden: dict | None = None  # the masks golden file, read before any candidate runs
        self.tests: int | None = None  # the count of tests the candidate's RLIMIT_CPU is sized for
        self.early = None  # a candidate begun in configure, not yet waited for (_begin_candidate)
        self.early_started = None  # the early candidate, handed to the first load
        self.candidate = None  # the live candidate process
        self.restarts = 0  # fresh candidate processes after crashes (at most MAX_RESTARTS)
        self.served_first_half = False  # the live candidate served a test before twin.SPLIT_AT (_at_the_split)
        self.load_failure: dict | None = None  # the load record of a candidate that did not load
        self.incident_before = None  # the candidate's incident when the current test began
        self.started: dict[str, float] = {}  # nodeid -> time.monotonic() at its start
        self.reports: dict[str, list] = {}  # nodeid -> its reports (setup, call, teardown)
        self.config = None  # the session's pytest config
        self.twin = None  # the main's end of its twin's stream (harness.suite.twin.TwinStream), or None
        self.sink = None  # a twin's stream to its main (harness.suite.twin.Sink), or None
        self.hangs: set[str] = set()  # calls that ran out of time: never asked again (Candidate.known_hangs)

    # ----------------------------------------------------------------- the hooks without a config

    def pytest_runtest_logstart(self, nodeid, location) -> None:
        if self.sink is not None:
            self.sink.flush()  # the test before this one is over, its warnings with it
        self.write({"event": "start", "test": _name(nodeid)})
        self.started[nodeid] = time.monotonic()
        self.incident_before = self.candidate.incident if self.candidate is not None else None

    def pytest_runtest_logreport(self, report) -> None:
        self.reports.setdefault(report.nodeid, []).append(report)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logfinish(self, nodeid, location) -> None:
        from harness.suite import tiers

        reports = self.reports.pop(nodeid, [])
        outcome, reason, details = _summarize(reports)
        notes = [note for report in reports for key, value in getattr(report, "user_properties", [])
                 if key == "notes" for note in value]
        late_notes = tiers.drain_notes()
        notes += late_notes
        if self.sink is not None:
            self.sink.finished(self.config, nodeid, reports, late_notes)
        started = self.started.pop(nodeid, time.monotonic())
        if self.candidate is not None:
            self.candidate.limit_cpu(None)
        self.write({"event": "result", "test": _name(nodeid), "outcome": outcome, "reason": escape(reason),
                    "details": escape(details, keep_newlines=True),
                    "duration": round(time.monotonic() - started, 3),
                    "notes": [escape(n) for n in dict.fromkeys(notes)]})

    def pytest_warning_recorded(self, warning_message, when, nodeid, location) -> None:
        if self.sink is not None and when == "runtest":
            self.sink.warning(warning_message, nodeid)


RUN_KEY = pytest.StashKey[_Run]()
"""Where a session's ``_Run`` is kept in its ``config.stash``."""
_HOOKS_NAME = "harness.suite.plugin.run"   # the name the session's ``_Run`` is registered under


def run_of_session(config) -> _Run | None:
    """The catalogue session of ``config`` (None when it was not configured by this plugin)."""
    return config.stash.get(RUN_KEY, None)


def live_candidate(config):
    """The candidate process of ``config``'s session, or None (the coverage run's plugin,
    ``harness.mutants.coverage_plugin``, asks it for its lines)."""
    run = run_of_session(config)
    return run.candidate if run is not None else None


def pytest_addoption(parser) -> None:
    group = parser.getgroup("constrain-harness", "the conformance catalogue")
    group.addoption("--impl", default=None, help="implementation under test (module, .py file, package dir)")
    group.addoption("--ref-deps", action="store_true", default=False,
                    help="supply the reference sampling and byte map where the candidate lacks them")
    group.addoption("--deep", action="store_true", default=False,
                    help="also run the Hypothesis differential properties")
    group.addoption("--timeout", type=float, default=POLICY.test_cpu_seconds,
                    help="CPU seconds per test for calls into the candidate (its process tree)")
    group.addoption("--load-seconds", type=float, default=POLICY.load_cpu_seconds,
                    help="CPU seconds for importing the candidate and checking the contract")
    group.addoption("--seed", type=int, default=0, help="the run seed (harness.suite.seeding; 0: the catalogue's own)")
    group.addoption("--memory", type=int, default=POLICY.memory_mb,
                    help="MB of address space for the candidate process")
    group.addoption("--results-file", default=None, help="append JSON-lines results here")
    group.addoption("--results-key-fd", type=int, default=None,
                    help="read a hex key from this file descriptor and sign every result record with it")
    group.addoption("--golden-file", default=None, help="the masks golden file to replay")
    group.addoption("--only", default="", help="comma-separated test names to run (exact names)")
    group.addoption("--skip", default="", help="comma-separated test names not to run (exact names)")
    group.addoption("--twin-in-fd", type=int, default=None,
                    help="read the --twin-tests' results from this file descriptor (harness.suite.twin)")
    group.addoption("--twin-tests", default="", help="comma-separated test names a twin runs (harness.suite.twin)")
    group.addoption("--wall-reference", default=None, metavar="WALL:CPU",
                    help="the reference's wall and CPU seconds for the same work, measured as the run started: "
                         "each call's wall limit is calibrated from them (harness.policy.WallCalibration)")
    group.addoption("--twin-out-fd", type=int, default=None,
                    help="a twin: write each finished test to this file descriptor (harness.suite.twin)")
    group.addoption("--run", default=None, metavar="JSON",
                    help="the whole run as one JSON document (harness.run.CatalogueRun; what check gives): "
                         "the options above are then not read")
    # --strict is pytest's own (a deprecated alias of --strict-markers, which the catalogue
    # meets: its markers are registered below); the tiers read it, no second option.


def pytest_configure(config) -> None:
    for marker, text in (("unit", "a hand-checked example"), ("smoke", "the quickest sign of life"),
                         ("golden", "replays a recorded file or oracle"), ("property", "a generated, seeded property"),
                         ("boundary", "bad input and limits"), ("deep", "Hypothesis differential property (--deep)")):
        config.addinivalue_line("markers", f"{marker}: {text}")
    settings = run_of(config)  # a fresh session (pytest.main may run twice in one process)
    from harness.policy import use_wall_calibration

    use_wall_calibration(settings.wall_calibration)  # every call's wall limit from here on
    out = open(settings.results_file, "a", encoding="utf-8", buffering=1) if settings.results_file else None
    key = _read_key(settings.results_key_fd) if settings.results_key_fd is not None else None
    run = _Run(settings, out, _writer(out, key))
    run.config = config
    config.stash[RUN_KEY] = run
    config.pluginmanager.register(run, _HOOKS_NAME)
    _undumpable()
    _open_twin_streams(run)
    from harness.suite import inputs, session

    session.use(run.state)  # the run seed and the tier the catalogue's helpers read (seeding, tiers)
    inputs.forget_constraint_shape()  # the last session's candidate's, in a process that held one
    _begin_candidate(run)


def _begin_candidate(run: _Run) -> None:
    """Start the candidate process and its import now, while pytest collects the catalogue
    (``Candidate.begin``; ``pytest_collection_finish`` waits for it): the two start-ups
    overlap on a second core; or take the one ``harness.suite.early`` began before pytest
    was imported, where it is the same (never ``--unconfined``). The golden file is read
    first, as before any candidate runs, unless the candidate began early, confined: it
    cannot write the checkout (bound read-only), which is verified after the run. Only
    where the tests to be collected are known here (not ``--deep``: its properties are
    counted at collection), since their count sets the process's ``RLIMIT_CPU``
    (``CatalogueRun.limits``); ``pytest_collection_finish`` checks the count and starts
    afresh if it differs."""
    from harness.sandbox.candidate import spec_problem
    from harness.suite.catalogue import NAMES

    settings = run.settings
    if settings.deep or spec_problem(settings.impl):
        return  # (a usage problem's record is written at collection)
    run.tests = len([n for n in NAMES if settings.selects(n)])
    from harness.suite import early

    run.early = early.take(run.config, settings.impl, settings.policy.ref_deps, settings.limits(run.tests),
                           settings.marker, settings.load_cpu_seconds)
    run.golden = _read_golden(settings.golden_file)
    if run.early is not None:
        return  # begun before pytest was imported (harness.suite.early: never unconfined)
    run.early = _new_candidate(run)
    try:
        run.early.begin()
    except Exception:  # noqa: BLE001 - e.g. no confinement: said when the load is waited for
        run.early.close()
        run.early = None


def _open_twin_streams(run: _Run) -> None:
    """The main's reader of its twin's stream, or a twin's sink to its main (``harness.suite.twin``)."""
    from harness.suite import twin

    settings = run.settings
    if settings.twin_in_fd is not None:
        run.twin = twin.TwinStream(settings.twin_in_fd)
    if settings.twin_out_fd is not None:
        run.sink = twin.Sink(settings.twin_out_fd)


def _read_key(fd: int) -> bytes:
    """One hex line from ``fd`` (a pipe from ``harness.grading.check``), which is then closed."""
    data = b""
    while not data.endswith(b"\n") and len(data) < 256:
        chunk = os.read(fd, 256)
        if not chunk:
            break
        data += chunk
    os.close(fd)
    key = bytes.fromhex(data.decode("ascii").strip())
    if len(key) < 16:
        raise pytest.UsageError("--results-key-fd: no key of at least 16 bytes was read")
    return key


def _undumpable() -> None:
    """Other processes of this uid may not read this one's memory, fds or environment
    (``/proc/<pid>/...``): what a candidate in the fallback confinement would try."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass


def _writer(out, key: bytes | None):
    import hmac

    dumps = json.dumps

    def write(record: dict) -> None:
        if out is not None:
            if key is not None:  # signed: harness.grading.check ignores records without the signature
                body = dumps(record, sort_keys=True, default=str).encode()
                record = {**record, "mac": hmac.new(key, body, "sha256").hexdigest()}
            out.write(dumps(record, default=str) + "\n")
            out.flush()  # in the kernel's cache once written: the parent reads it even if this process dies
            # (no fsync: it guards only against the machine's own crash, which ends the parent too,
            # and cost 3-6 ms a record, some 35 a check, on this machine's ext4 under load)
    return write


def pytest_ignore_collect(collection_path, config):
    if collection_path.name == "test_deep.py" and not _deep(config):
        return True
    return None


def _deep(config) -> bool:
    """Whether this run includes the deep tier: the run value's word (``--run``), else the option."""
    run = config.stash.get(RUN_KEY, None)
    return run.settings.deep if run is not None else bool(config.getoption("--deep"))


def pytest_collection_modifyitems(session, config, items) -> None:
    """Run the catalogue in the spec's order (deep properties after it)."""
    from harness.suite.catalogue import NAMES

    rank = {name: i for i, name in enumerate(NAMES)}
    items.sort(key=lambda item: rank.get(item.name, len(rank)))
    settings = config.stash[RUN_KEY].settings
    if settings.only or settings.skip:  # exact names (pytest's -k matches substrings: test_hand_example_masks)
        keep = [i for i in items if settings.selects(i.name)]
        config.hook.pytest_deselected(items=[i for i in items if i not in keep])
        items[:] = keep
    _seed_hypothesis(items)


def _seed_hypothesis(items) -> None:
    """The deep properties draw from the run seed (at seed 0: derandomized, as written)."""
    from harness.suite.seeding import hypothesis_seed

    for item in items:
        test = getattr(item, "obj", None)
        seed = hypothesis_seed(item.name)
        if seed is not None and hasattr(test, "_hypothesis_internal_use_seed"):
            test._hypothesis_internal_use_seed = seed


def pytest_collection_finish(session) -> None:
    """Read the golden file (unless configure did), then start the candidate process and
    load the candidate (or wait for the load configure began, ``_begin_candidate``)."""
    run = session.config.stash[RUN_KEY]
    if run.golden is None:
        run.golden = _read_golden(run.settings.golden_file)
    _collect_less()
    early, run.early = run.early, None
    if early is not None and run.tests != len(session.items):
        early.close()  # another count of tests than foreseen: another RLIMIT_CPU, a fresh process
        early = None
    run.tests = len(session.items)
    run.early_started = early
    run.write({"event": "start", "test": "<load>"})
    record = _start_candidate(run)
    run.write(record)
    if record["status"] != "ok":
        run.load_failure = record
        pytest.exit(record["reason"], returncode=2 if record["status"] == "usage" else 3)


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    """With a twin (``harness.suite.twin``): run this session's own tests, then replay the
    twin's in the catalogue's order, running here any the twin cannot give, and every one
    after it. Without one, pytest's own loop."""
    run = session.config.stash[RUN_KEY]
    stream, run.twin = run.twin, None
    if stream is None:
        return None
    from harness.suite import tiers, twin

    items = session.items
    own = [item for item in items if item.name not in run.settings.twin_tests]
    theirs = items[len(own):]
    usable = (not session.testsfailed and not session.config.option.collectonly and theirs
              and own + theirs == items and all(item.name in run.settings.twin_tests for item in theirs))
    if not usable:  # (the parent split the catalogue otherwise than it was collected: run every test here)
        stream.close()
        return None
    _run_items(session, own)
    for index, item in enumerate(theirs):
        # started here before the wait: check's watch gives this process a test's limits meanwhile
        item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        message = stream.result_for(item.nodeid)
        if message is None:
            _run_items(session, theirs[index:])
            break
        twin.replay(item, message, tiers.keep_notes)
        _stop_if_asked(session)
    stream.close()
    return True


def _run_items(session, items) -> None:
    """pytest's own loop (``_pytest.main.pytest_runtestloop``) over ``items``."""
    for index, item in enumerate(items):
        nextitem = items[index + 1] if index + 1 < len(items) else None
        item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
        _stop_if_asked(session)


def _stop_if_asked(session) -> None:
    if session.shouldfail:
        raise session.Failed(session.shouldfail)
    if session.shouldstop:
        raise session.Interrupted(session.shouldstop)


GC_YOUNG_THRESHOLD = 50_000  # new objects between two young collections in the grader (Python's default: 700)


def _collect_less() -> None:
    """The grader's garbage collector, from here on: the modules, the catalogue and the
    golden file (some 300,000 objects, none of them garbage) are left out of every
    collection (``gc.freeze``), and a young collection waits for ``GC_YOUNG_THRESHOLD``
    new objects: 0.16 of the grader's ~1.3 CPU s went to some 340 collections, 0.07 now
    (measured on the reference). Until here the collector was off (``harness.suite.early``:
    the imports and the collection make no garbage worth a collection; ~0.05 CPU s a
    grader child). Only when garbage is freed changes (in this process; never in the
    candidate's): no verdict, record or output."""
    import gc

    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, old)
    gc.enable()


def _start_candidate(run: _Run) -> dict:
    """A fresh candidate process; its load record (``status`` ok / error / usage)."""
    from harness.sandbox import CandidateFolderError, CandidateGone, RemoteError
    from harness.sandbox.candidate import CandidateError, spec_problem

    problem = spec_problem(run.settings.impl)
    if problem:
        return {"event": "load", "status": "usage", "reason": problem, "problems": []}
    candidate, run.early_started = run.early_started or _new_candidate(run), None
    candidate.known_hangs = run.hangs   # the early one too (harness.suite.early makes it without the run)
    run.candidate = candidate
    try:
        info = candidate.start()
    except CandidateFolderError as exc:  # nothing started: whoever named the candidate must move it
        candidate.close()
        return {"event": "load", "status": "usage", "reason": str(exc), "problems": []}
    except RemoteError as exc:
        candidate.close()
        status = "usage" if exc.remote_type == CandidateError.__name__ and "candidate" in str(exc) else "error"
        return {"event": "load", "status": status, "problems": [], **_confinement(candidate),
                "reason": f"importing the candidate failed: {exc.remote_type}: {_one_line(exc)}"
                          + (f" (at {exc.where})" if exc.where else ""),
                "details": candidate.output()}
    except CandidateGone as exc:  # the machine's refusal (exc.verdict "harness") is not called a crash
        said = _one_line(exc) if exc.verdict == "harness" else f"the candidate crashed while loading: {_one_line(exc)}"
        return {"event": "load", "status": "error", "problems": [], **_confinement(candidate),
                "reason": said, "details": candidate.output()}
    record = {"event": "load", "status": "ok"}
    record.update({k: info[k] for k in ("problems", "notes", "ref_deps", "file", "confinement", "mode")})
    record["module"] = info["name"]
    record["problems"] = [escape(p) for p in record["problems"]]
    record["notes"] = [escape(p) for p in record["notes"]]
    if record["problems"]:
        record["reason"] = f"contract: {len(record['problems'])} name(s) missing or unusable; the tests that " \
                           f"need them fail, the others run"
    return record


def _new_candidate(run: _Run):
    """A candidate process not started yet, under the run's limits (``CatalogueRun.limits``)."""
    from harness.sandbox import Candidate

    settings = run.settings
    return Candidate(settings.impl, ref_deps=settings.policy.ref_deps, limits=settings.limits(run.tests or 1),
                     marker=settings.marker, load_cpu_seconds=settings.load_cpu_seconds,
                     known_hangs=run.hangs)


def _confinement(candidate) -> dict:
    plan = candidate.plan
    return {"confinement": plan.description, "mode": plan.mode} if plan is not None else {}


def _read_golden(path) -> dict:
    from harness.suite import golden_masks

    return golden_masks.read_golden(path)


@pytest.fixture
def impl(request):
    """The implementation under test: a proxy of the candidate's module, in a live
    candidate process (a fresh one after a crash, and at the catalogue's split), its calls
    in this test bounded by one CPU budget of ``--timeout`` seconds (or the run's budget of this
    test, below it: ``CatalogueRun.test_budgets``, which the mutant runner calibrates)."""
    run = request.config.stash[RUN_KEY]
    if run.load_failure is not None:
        pytest.fail(run.load_failure.get("reason", "the candidate did not load"), pytrace=False)
    _at_the_split(run, request.node.originalname, request.session.items)
    candidate = run.candidate
    if not candidate.alive:
        if run.restarts >= MAX_RESTARTS:
            pytest.fail(f"not run: the candidate process crashed {MAX_RESTARTS} times", pytrace=False)
        run.restarts += 1
        record = _start_candidate(run)
        if record["status"] != "ok":
            pytest.fail(f"a fresh candidate process did not load: {record['reason']}", pytrace=False)
        candidate = run.candidate
    candidate.limit_cpu(run.settings.budget_of(request.node.originalname))   # the run's own budget for it, if any
    return candidate.module


def _at_the_split(run: _Run, test: str, items) -> None:
    """The catalogue's second half (``twin.SPLIT_AT`` on) never runs in a candidate process
    that served a test of the first half: the main child closes its candidate at the split
    and the next test starts a fresh one. A twin's candidate serves only the second half, so
    with a twin, without one (``--deep``, ``CONSTRAIN_HARNESS_TWIN=0``, a batch) or after the
    twin failed, every test meets a candidate process with the same history: the verdict of
    a candidate whose answers depend on what ran before in its process is the same in every
    mode, by construction. The fresh candidate's ``RLIMIT_CPU`` is sized, as the twin's, for
    the session's tests of the second half."""
    from harness.suite.twin import in_second_half

    if not in_second_half(test):
        run.served_first_half = True
    elif run.served_first_half:
        run.served_first_half = False
        if run.candidate is not None and run.candidate.alive:
            run.candidate.close()   # not a crash: the next lines start a fresh one, outside MAX_RESTARTS
            run.tests = sum(1 for item in items if in_second_half(item.originalname))
            record = _start_candidate(run)
            if record["status"] != "ok":
                pytest.fail(f"a fresh candidate process did not load: {record['reason']}", pytrace=False)


@pytest.fixture(scope="session")
def golden(pytestconfig):
    """The masks golden file, read before the candidate process started."""
    return pytestconfig.stash[RUN_KEY].golden


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    run = item.config.stash[RUN_KEY]
    candidate = run.candidate
    incident = candidate.incident if candidate is not None else None
    if incident is not None and incident is not run.incident_before and call.when == "call":
        # The candidate process died, hung or broke the protocol during this test: that is
        # the verdict, whatever the test made of the exception.
        report.outcome = "failed"
        report.ch_status = "timeout" if incident.verdict == "timeout" else "crashed"
        prefix = "protocol violation: " if incident.verdict == "protocol" else ""
        report.ch_reason = prefix + _one_line(incident)
        report.ch_details = candidate.output()
        return
    if call.excinfo is not None:
        exc = call.excinfo.value
        report.ch_reason = _reason_of(exc)
        report.ch_details = getattr(exc, "details", None)
        if isinstance(exc, MemoryError) or getattr(exc, "remote_type", "") == "MemoryError":
            report.ch_status = "crashed"
        if getattr(exc, "verdict", None) == "harness":  # the grader could not send its request: never the candidate's
            report.ch_status = "error"


def exception_lines(traceback_text: str) -> str:
    """Of pytest's report of a failure, only the exception and its message (its ``E`` lines,
    without the ``E``): the catalogue's source, the grader's objects and paths in the
    traceback above them are the hidden tests, never a record's ``details`` (issue 50). A
    student's own exception already names its place in the reason (``(at constrain.py:12)``)."""
    lines = [line[1:].strip() for line in traceback_text.splitlines() if line.startswith("E ")]
    return "\n".join(line for line in lines if line)


def _summarize(reports) -> tuple[str, str, str]:
    for report in reports:
        if report.failed:
            outcome = getattr(report, "ch_status", None) or ("failed" if report.when == "call" else "error")
            reason = getattr(report, "ch_reason", None) or _first_line(report.longreprtext)
            if report.when != "call":
                reason = f"in {report.when}: {reason}"
            details = getattr(report, "ch_details", None)
            if details is None:   # not the catalogue's counterexample: pytest's traceback of the catalogue
                details = exception_lines(report.longreprtext)   # only what was raised, never the source
            return outcome, reason, _clip(stable_text(details))
    for report in reports:
        if report.skipped:
            # The catalogue never skips (optional packages only shorten a test): a skip
            # here is the catalogue's bug, and a test not run is not a pass.
            longrepr = report.longrepr
            text = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
            return "failed", f"the test was skipped: {text.removeprefix('Skipped: ')}", ""
    return "passed", "", ""


def pytest_sessionfinish(session, exitstatus) -> None:
    run = session.config.stash[RUN_KEY]
    if run.sink is not None:
        run.sink.close()  # the last test's, before the candidate's slower close
    if run.twin is not None:
        run.twin.close()
    for candidate in (run.candidate, run.early, run.early_started):
        if candidate is not None:
            candidate.close()
    run.write({"event": "finish", "exitstatus": int(exitstatus)})
    if run.out is not None:
        run.out.close()


def pytest_unconfigure(config) -> None:
    """A candidate process begun in configure and never waited for (the session ended
    before collection finished) ends here; the session's hooks are unregistered."""
    run = run_of_session(config)
    if run is None:
        return
    from harness.suite import session

    session.release(run.state)  # out of force: nothing of this session's state is left for the next
    if config.pluginmanager.get_plugin(_HOOKS_NAME) is run:
        config.pluginmanager.unregister(run, _HOOKS_NAME)
    for name in ("early", "early_started"):
        candidate = getattr(run, name)
        if candidate is not None:
            setattr(run, name, None)
            candidate.close()


# --------------------------------------------------------------------------- reasons


def _reason_of(exc: BaseException) -> str:
    """A one-line reason for a test's exception: the catalogue's own failure message,
    or the candidate's exception (its class, message and line), or the grader's."""
    reason = getattr(exc, "reason", None)
    if reason:
        return reason
    remote = getattr(exc, "remote_type", None)
    if remote is not None:
        if remote == "MemoryError":
            return "MemoryError: the candidate ran out of memory (the --memory limit)"
        if isinstance(exc, AttributeError):
            return f"the candidate lacks a name this test needs: {_one_line(exc)}"
        return f"{remote}: {_one_line(exc)}" + (f" (at {exc.where})" if exc.where else "")
    if isinstance(exc, AssertionError):
        return _first_line(str(exc)) or "assertion failed"
    where = _test_frame(exc)
    return f"{type(exc).__name__}: {_one_line(exc)}" + (f" (at {where})" if where else "")


def _test_frame(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    for frame in reversed(frames):
        if "/site-packages/" not in frame.filename and "/lib/python" not in frame.filename:
            return f"{os.path.basename(frame.filename)}:{frame.lineno} in {frame.name}"
    return ""


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return escape(_clip(text[0] if text else type(exc).__name__, 300))


def _first_line(text: str) -> str:
    for line in (text or "").splitlines():
        line = line.strip()
        if line.startswith("E "):
            return _clip(line[1:].strip(), 300)
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return _clip(lines[-1] if lines else "", 300)


def _clip(text: str, limit: int = 8000) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n... ({len(text) - limit} more characters)"


def _name(nodeid: str) -> str:
    return nodeid.rsplit("::", 1)[-1]


__all__ = ["RUN_KEY", "impl", "golden", "live_candidate", "run_of", "run_of_session"]
