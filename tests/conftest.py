"""Project test configuration: Hypothesis profiles, the markers that select the fast loop,
and the fixtures many modules share (``harness_unchanged``, ``engine``, ``server``, ``http``,
``copies_elsewhere``); plain helpers are in ``tests/support/helpers.py``.

Selections (README.md, "Run the tests"; docs/testing.md):

- ``python -m pytest``: the full suite (what CI runs): every test but ``slow`` and ``bench``;
- ``python -m pytest -m "not e2e"``: the fast loop, every module's unit tests without the
  end-to-end runs (a test is ``e2e`` when it starts a candidate process or runs a verb end to end);
- ``python -m pytest -m slow``: the exhaustive runs.

``slow`` and ``bench`` tests run only when the ``-m`` expression names them (a
``pytest_collection_modifyitems`` hook here, not ``addopts``: a ``-m`` on the command line
replaces the one in ``addopts``, so ``-m "not e2e"`` would otherwise bring them back).

Profiles, chosen by the environment variable ``CONSTRAIN_HARNESS_PROFILE``
(default ``dev``, or ``ci`` when the variable ``CI`` is set, as CI sets it):

- ``dev``: 50 examples drawn from the run's seed, printed in the header (``--hypothesis-seed=N``
  or ``CONSTRAIN_HARNESS_TEST_SEED=N`` draws them again), and the local example database
  (a failure found before is tried first);
- ``ci``: derandomized (the same examples every run), no database writes, 50 examples;
- ``thorough``: 1000 examples, derandomized, for slow exhaustive runs.
"""

from __future__ import annotations

import fcntl
import gc
import hashlib
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from harness.sandbox.isolated import ONE_THREAD_ENV
from harness.sandbox.lending import LEND_VARIABLE

# The tests' processes, and every process they start, run numeric libraries on one thread, as the
# constrain-harness program runs its own and its children (harness.cli.program): a test that calls a
# verb's library function (a mutant run, a golden replay) starts that verb's children as the
# program would. Set before the xdist workers start, so they inherit it too.
os.environ.update(ONE_THREAD_ENV)
# The gallery's candidates (tests/candidates, tests/outside_bugs, the mutants) are the staff's own
# wrappers of the reference: it is lent to their sandboxes (harness.sandbox.lending). A student's
# sandbox never has it; tests/sandbox/test_reference_lending.py runs without this to show that.
os.environ[LEND_VARIABLE] = "1"

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("dev", max_examples=50, **_COMMON)
settings.register_profile("ci", max_examples=50, derandomize=True, database=None, print_blob=True, **_COMMON)
settings.register_profile("thorough", max_examples=1000, derandomize=True, database=None, **_COMMON)
settings.load_profile(os.environ.get("CONSTRAIN_HARNESS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))


# Tests of one run share the checkout, and a few change its files on purpose (an unconfined attack,
# the guard's restore tests: marker ``writes_checkout``), which any check running beside them would
# read as tampering. So every test runs holding a shared lock, a ``writes_checkout`` test an
# exclusive one (pytest-xdist's workers are processes: a file lock, per checkout). A writer first
# takes the turnstile and keeps it, so the tests that arrive after it wait and it is not starved.
_LOCKS = Path(tempfile.gettempdir()) / ("constrain-harness-tests-"
                                        + hashlib.sha256(str(Path(__file__).resolve().parents[1]).encode())
                                        .hexdigest()[:12])
_HELD = "CONSTRAIN_HARNESS_TESTS_LOCK_HELD"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Hold the checkout's lock through the test's setup (module fixtures too), call and teardown.
    A pytest started by a test (its environment says the lock is held) takes none: it would wait
    for a writer that waits for its parent."""
    if os.environ.get(_HELD):
        yield
        return
    writer = item.get_closest_marker("writes_checkout") is not None
    with open(f"{_LOCKS}.turnstile", "a") as turnstile, open(f"{_LOCKS}.lock", "a") as lock:
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        if not writer:
            fcntl.flock(turnstile, fcntl.LOCK_UN)
        fcntl.flock(lock, fcntl.LOCK_EX if writer else fcntl.LOCK_SH)
        os.environ[_HELD] = "1"
        try:
            yield
        finally:
            os.environ.pop(_HELD, None)
            if writer:   # still alone: the bytecode its restored files made stale, written again
                _compile_protected_trees()
            fcntl.flock(lock, fcntl.LOCK_UN)
            fcntl.flock(turnstile, fcntl.LOCK_UN)


@pytest.fixture
def copies_elsewhere():
    """Planted copies of the harness's folders where neither the checkout, nor a home, nor
    the temp folder is: beside the checkout and in /var/tmp (a course machine's other
    checkouts, CI's worktrees)."""
    checkout = Path(__file__).resolve().parents[1]
    decoys = [folder / f".constrain-decoy-{os.getpid()}" for folder in (checkout.parent, Path("/var/tmp"))]
    for decoy in decoys:
        (decoy / "oracles").mkdir(parents=True)
        (decoy / "oracles" / "derivatives.py").write_text("SECRET = 'the grader keeps this'\n")
        decoy.chmod(0o755)
    yield decoys
    for decoy in decoys:
        shutil.rmtree(decoy)


OPT_IN_MARKERS = ("slow", "bench", "peer_versions")
"""Markers whose tests run only when the ``-m`` expression names them."""


def pytest_configure(config):
    """Before any test process starts (the xdist workers, when ``-n`` runs them): the run's
    Hypothesis seed (``_hypothesis_run_seed``); and the bytecode of every protected file
    (``helpers.tree_digest``'s roots), so that no process of the run writes a ``__pycache__``
    into the tree while another's test compares its digest (``harness_unchanged``) or a check
    verifies it (``harness.sandbox.files``)."""
    _hypothesis_run_seed(config)
    if hasattr(config, "workerinput"):  # an xdist worker: the controller compiled the trees
        config.addinivalue_line("filterwarnings", FORK_IN_A_WORKER)
        return
    _run_own_user_cache(config)
    _compile_protected_trees()


def pytest_unconfigure(config):
    """The controller removes the run's own user cache (``_run_own_user_cache``) at the end."""
    folder = getattr(config, "_constrain_user_cache", None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


FORK_IN_A_WORKER = ("ignore:This process \\(pid=\\d+\\) is multi-threaded, use of fork\\(\\) may lead to deadlocks"
                    ":DeprecationWarning")
"""Python 3.12+ warns at every ``os.fork()`` of a process with more than one thread. An xdist
worker always has two: the tests' and execnet's, which carries the worker's messages. The forks
the tests make there (a verb's guard, ``harness.sandbox.guard``, called in-process;
``helpers.bounded_call``) run the test's own work and end in ``os._exit``, never touching
execnet's thread or its locks, so in a worker the warning is about xdist, not the code under
test; it is ignored there only. A run in one process (``-n 0``) has no such thread and still
warns of a fork made beside a thread of the test's own (an in-process server's)."""


def _run_own_user_cache(config) -> None:
    """The run's processes keep what the product caches between processes (the mutant
    generation's site lists, a coverage map without ``--state``: ``XDG_CACHE_HOME``) in one
    temporary folder of the run's own, handed to the xdist workers through the environment and
    removed at the end: a test run never writes into the user's ``~/.cache``, and no run's
    figures depend on what an earlier run left there. A caller's own ``XDG_CACHE_HOME`` is
    kept (a developer who wants the cache warm across runs sets it)."""
    if os.environ.get("XDG_CACHE_HOME"):
        return
    folder = tempfile.mkdtemp(prefix="constrain-harness-tests-cache-")
    os.environ["XDG_CACHE_HOME"] = folder
    config._constrain_user_cache = folder


SEED_VARIABLE = "CONSTRAIN_HARNESS_TEST_SEED"


def _hypothesis_run_seed(config) -> None:
    """Every Hypothesis test of the run draws from one printed seed (the header says it):
    ``--hypothesis-seed=N`` or ``CONSTRAIN_HARNESS_TEST_SEED=N`` when given, else one drawn
    here, in the controller, and handed to the xdist workers it starts through the
    environment. A profile that derandomizes (``ci``, ``thorough``) draws from each test's
    own digest instead, the same examples every run."""
    import hypothesis.core

    given = config.getoption("hypothesis_seed", None) or os.environ.get(SEED_VARIABLE)
    if given is None:
        import secrets

        given = str(secrets.randbelow(1 << 32))
    try:
        seed = int(given)
    except ValueError:
        raise pytest.UsageError(f"the Hypothesis seed must be an integer, not {given!r}") from None
    os.environ[SEED_VARIABLE] = str(seed)  # the workers' environment: the same seed in every process
    hypothesis.core.global_force_seed = seed


def pytest_report_header(config):
    if settings.default.derandomize:
        return f"hypothesis: profile {settings.get_current_profile_name()}, derandomized (each test's own seed)"
    return (f"hypothesis run seed: {os.environ[SEED_VARIABLE]} (the same examples again: "
            f"{SEED_VARIABLE}={os.environ[SEED_VARIABLE]} python -m pytest ...)")


def _compile_protected_trees() -> None:
    """The bytecode of every protected file, written where it is missing or stale, and pytest's
    rewritten catalogue (``harness.run.rewritten``, which every ``check`` writes first). Again after
    each ``writes_checkout`` test, under its exclusive lock: the files it changed were restored
    with a new mtime (and a check's verify drops the ``.pyc`` written meanwhile), so the next
    worker to import one would write its bytecode into the tree while another test compares the
    tree's digest (seen with ``-n 4``: ``test_wall``'s ``harness_unchanged`` failing)."""
    import compileall

    from harness.paths import protected_roots
    from harness.run import rewritten
    from tests.support.helpers import CANDIDATES, SUITES

    for root in [*protected_roots(), CANDIDATES, SUITES]:
        compileall.compile_dir(root, quiet=2, workers=1)
    rewritten.refresh()   # pytest's rewritten catalogue, as check writes it (else the first check would, mid-test)


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session):
    """While the test modules are collected, let pytest keep its assertion-rewritten bytecode
    (``tests/__pycache__/*-pytest-*.pyc``) even when ``PYTHONDONTWRITEBYTECODE`` is set: else
    every process of every run rewrites and compiles every test module again (3.5 CPU s a
    worker, 2026-12-02). Only during collection: no test runs then (xdist's workers all
    collect before the first test is handed out), and the protected trees' bytecode was
    written before (``pytest_configure``), so no digest a test compares sees it change."""
    keep = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    try:
        yield
    finally:
        sys.dont_write_bytecode = keep


def pytest_collection_finish(session):
    """What the collection imported (the harness, the oracles, numpy, Hypothesis, the test modules:
    some 425,000 objects a worker, none of them garbage) lives to the end of the run: the garbage
    collector stops looking at it (one full collection, then ``gc.freeze``), as the catalogue's own
    grader does (``harness.suite.plugin``). Every old collection of a worker scanned it again
    (40-60 of them a worker on 3.10, ~0.23 CPU s each), and every fork a test makes (``guard.guarded``,
    ``helpers.bounded_call``) copied its pages when it did. Only when garbage made before the tests
    start would be freed changes; every object a test makes is collected as before.

    From then on a young collection waits for ``YOUNG_THRESHOLD`` new objects (Python's default is
    700; the grader's own child waits for 50,000, ``harness.suite.plugin``): the tests make many
    short-lived parse trees, modules and records, and every tenth middle collection scanned all the
    objects made since the freeze again. On 3.10, three fast-loop files in one process
    (``test_mutants_generated``, ``test_mutants_evidence``, ``test_deep_exact``, 2026-12-07, started
    together at load 6-9): 8,242 young, 748 middle and 68 full collections, 5.1 CPU s, against 662, 59
    and 6, 3.1 CPU s. The candidates start as new interpreters, with the collector's defaults
    (``tests/sandbox/test_sandbox.py``)."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)


YOUNG_THRESHOLD = 7_000
"""New objects between two young collections in the tests' processes, after the collection."""


TESTS = Path(__file__).resolve().parent

LONGEST_FIRST = (
    # CPU s (and wall s where a file waits) on 3.11, 2026-12-07 night: the cost audit of the whole suite
    # (`-n 2`, cgroup, candidates included, a quiet machine), each file by the larger of the two
    "fanout/test_dask_fanouts.py",                # 23, waits on its cluster (76 wall in that audit, 60 of it
                                                  # the killed-worker test's failed wait, since fixed)
    "mutants/test_mutants_errors.py",             # 37, one test 31
    "grading/test_grade_tests.py",                # 37
    "grading/test_autograder.py",                 # 25
    "grading/test_grader_fork.py",                # 22
    "mutants/test_mutants.py",                    # 21, one test 15
    "suite/test_fairness.py",                     # 23, one test 16
    "server/test_conform.py",                     # 14, 20 wall
    "grading/test_check_twin.py",                 # 19
    "sandbox/test_wall.py",                       # 14, 19 wall
    "sandbox/test_knowledge.py",                  # 19
    "server/test_serve_stress.py",                # 13, 18 wall, one test 13
    "mutants/test_mutants_evidence.py",           # 18
    "sandbox/test_resources.py",                  # 13, 18 wall
    "grading/test_check_isolation.py",            # 16
    "suite/test_deep_exact.py",                   # 12, 17 wall
    "golden/test_golden_replay.py",               # 11, 17 wall
    "mutants/test_mutants_generated.py",          # 14
    "grading/test_batch_policy.py",               # 14
    "sandbox/test_cpu_limits.py",                 # 5, 11 wall
    "server/test_serve_load.py",                  # 8, 11 wall
    "sandbox/test_channel_bounds.py",             # 10
    "grading/test_grade_tests_wheel.py",          # 11, one test 11
    "grading/test_same_verdict.py",               # 11, one test 11
    "golden/test_tools_golden.py",                # 10
    "grading/test_spec_layout.py",                # 11, one test 6
    "peers/test_peers_isolation.py",              # 7, 11 wall
    "grading/test_wall_calibration.py",           # 1, 10 wall
    "grading/test_check.py",                      # 10
    "suite/test_fairness_tools.py",               # 10, one test 8
    "server/test_serve_hostile.py",               # 7, 10 wall
    "grading/test_batch_isolation.py",            # 10, one test 10
    "sandbox/test_zygote.py",                     # 6, 9 wall
    "grading/test_grade_tests_normalise.py",      # 9, one test 5
    "mutants/test_tools_mutants.py",              # 7
    "grading/test_grade_tests_readings.py",       # 7
    "grading/test_reproducible.py",               # 7
    "grading/test_batch.py",                      # 7
    "sandbox/test_reference_lending.py",          # 7
    "mutants/test_mutants_evidence_pick.py",      # 6
    "grading/test_autograder_visibility.py",      # 2, 7 wall
    "mutants/test_mutants_grader_tmp.py",         # 5
    "server/test_conform_transport.py",           # 2, 7 wall
    "oracles/test_bounds_stress.py",              # 6
    "mutants/test_mutants_evidence_budgets.py",   # 6
    "golden/test_golden.py",                      # 6
    "grading/test_batch_roster.py",               # 6
    "mutants/test_seed_stability.py",             # 6
    "mutants/test_mutants_budgets.py",            # 6
    "mutants/test_mutants_own_limit.py",          # 5
    "grading/test_course_seed.py",                # 5
    "differential/test_corpus.py",                # 2, 5 wall
    "mutants/test_tools_generated.py",            # 5
    "mutants/test_mutants_state.py",              # 4
    "suite/test_strength.py",                     # 5
    "mutants/test_mutants_anchors.py",            # 5
    "mutants/test_mutants_identical_bytecode.py", # 5
    "grading/test_worst_case.py",                 # 5
    "project/test_cost_audit.py",                 # 1, 5 wall
    "mutants/test_mutants_traffic.py",            # 5
    "mutants/test_mutants_merge.py",              # 5
    "mutants/test_mutants_stage_memo.py",         # 4
    "oracles/test_bounds.py",                     # 4
    "mutants/test_mutants_oracle_memo_lazy.py",   # 4
    "mutants/test_mutants_infection.py",          # 4
    "strategies/test_strategies.py",              # 4
)
"""The test files that take longest (their paths under ``tests/``), longest first, handed out first
when xdist runs the files on several workers: a long file that starts last keeps one core busy after
the other is done (the longest-first rule of scheduling jobs on two machines). Every file of about 5
CPU s or more is here, so the files that follow (in collection order) are small and the two workers
end within seconds of each other. Until 2026-12-07 the list held 36 files and the unlisted ones
followed in collection order, so ``suite/test_deep_exact.py`` (~27 CPU s, unlisted, and in the last
folder) started among the last, and ``grading/test_spec_layout``, ``test_batch``,
``test_grade_tests_normalise`` and three more grading files of 10-21 CPU s were unlisted too.
Ranked by CPU seconds (a file that waits, by its wall); placed again from the cost audit's figures
(docs/testing.md) when a file's cost moves a lot.
``--dist loadfile`` takes the files in collection order only with ``--no-loadscope-reorder``
(``addopts``); the other files follow in their own order."""


def pytest_collection_modifyitems(config, items):
    expression = config.getoption("markexpr") or ""
    skipped = [m for m in OPT_IN_MARKERS if not re.search(rf"\b{m}\b", expression)]
    kept, deselected = [], []
    for item in items:
        (deselected if any(item.get_closest_marker(m) for m in skipped) else kept).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept
    if hasattr(config, "workerinput"):  # an xdist worker (every worker sorts alike: the same order)
        rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
        items.sort(key=lambda item: rank.get(item.path.relative_to(TESTS).as_posix(), len(rank)))


# ------------------------------------------------------------------ the wall's checks


@pytest.fixture
def harness_unchanged(request):
    """Asserts after the test that the harness's files (``helpers.tree_digest``) are as they
    were and that nothing was written into the grader's home. A module whose own process
    imports harness modules while the test runs sets ``HARNESS_DIGEST_BYTECODE = False``
    (its bytecode lands in ``__pycache__``; see ``tree_digest``)."""
    from tests.support.helpers import HOME_TARGETS, tree_digest

    bytecode = getattr(request.module, "HARNESS_DIGEST_BYTECODE", True)
    before = tree_digest(bytecode=bytecode)
    yield
    assert tree_digest(bytecode=bytecode) == before, "the harness's files changed"
    assert not any(p.exists() for p in HOME_TARGETS), "the candidate wrote into the grader's home"


# ------------------------------------------------------------------ the reference server


@pytest.fixture(scope="session")
def engine():
    """The reference server's engine over cl100k_base (built once: loading the vocabulary
    is the costly part); modules that use it skip without the ``serve`` extra."""
    from harness.server.reference.decode import Engine
    from harness.server.reference.model import load_vocabulary

    return Engine(load_vocabulary("cl100k_base"))


@pytest.fixture(scope="module")
def server(engine):
    """The reference server on a free loopback port in this process, one per module."""
    from harness.server.reference.app import create_app
    from harness.server.reference.runner import ServerThread

    running = ServerThread(create_app(engine)).start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def http(server):
    """An HTTP client of ``server`` (httpx, or httpx2 in openai 3) with a 60 s timeout."""
    try:
        import httpx
    except ImportError:
        import httpx2 as httpx
    with httpx.Client(base_url=server.base_url, timeout=60.0) as client:
        yield client
