"""check's twin grader child (``harness.suite.twin``, issue 23 item 4): the catalogue's
second half is graded beside the first, and a check reports what one grader child running
every test reports.

The oracle is the run without a twin (``CONSTRAIN_HARNESS_TWIN=0``: one grader child, as
``check`` ran before): the same candidate graded both ways gives the same JSON report,
timings aside, for wrong and hostile candidates (and the reference under ``-m slow``: every test
it passes, a wrong candidate passes all but one of); the same when the twin is killed
part-way (the main child then runs the twin's tests itself) and, for the processes, when
the main child is killed (its twin and every candidate process end with it). That the
twin really ran its half is read from the candidate's side: the plugin sizes a candidate
process's ``RLIMIT_CPU`` by the tests its grader collected (the load's CPU seconds plus
twice each test's, ``CatalogueSettings.limits``), so a candidate can tell which process
serves it.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from harness.exitcodes import ExitCode
from harness.grading import check
from harness.grading.check import CheckOptions, run_check
from harness.suite.catalogue import NAMES
from harness.suite.twin import SPLIT_AT, TWIN_ENV, second_half
from tests.grading.test_same_verdict import comparable
from tests.support.helpers import CANDIDATES, confined, left_over, tree_digest

LOAD, TIMEOUT = 11.0, 7.0  # the runs' limits (odd values, so an RLIMIT_CPU names its process)
ONE_A_HALF = ("test_hand_example", "test_vocab_bytes")  # a test before the split (twin.SPLIT_AT) and one after
# loops_once_in_each_half.py's two loops, each between a test before it and one after it (its candidate
# restarted after the timeout): the first three in the main child, the last three (from the split) in the twin
LOOPS_AND_NEIGHBOURS = ("test_every_state_is_live", "test_canonical_form", "test_unsupported_syntax_raises",
                        "test_reachable_states_never_have_an_empty_mask",
                        "test_json_schema_rejects_keywords_outside_the_subset", "test_vocab_bytes")
# crashes_interpreter.py dies (SIGSEGV) in 10 of the catalogue's 16 tests, each crash a new candidate: in each
# half a crash, a test passed by the restarted candidate, and a crash (the main child's two crash in a batched
# read and in a call; the twin's first test is a crash); the whole catalogue runs under -m slow
CRASHES_AND_NEIGHBOURS = ("test_canonical_form", "test_unsupported_syntax_raises", "test_masks_match_the_golden_file",
                          "test_constraint_lifecycle", "test_apply_mask", "test_greedy_takes_the_best_allowed_token")


def _grade(impl, monkeypatch, twin: bool, timeout: float = TIMEOUT, during=None, only: tuple[str, ...] = ()):
    """``run_check`` of ``impl`` (the tests ``only``, default all) with or without a twin;
    (result, the twin's own records or None)."""
    monkeypatch.setenv(TWIN_ENV, "1" if twin else "0")
    seen: dict = {}
    watch = check._watch

    def watching(watched, reader, result, twin=None):
        child = watched.child
        if twin is not None:  # keep what the watch reads of the twin's records
            records, read_new = seen.setdefault("records", []), twin.reader.read_new
            twin.reader.read_new = lambda: records.extend(read_new()) or records[len(records):]
        if during is not None:
            threading.Thread(target=during, args=(child, twin), daemon=True).start()
        try:
            return watch(watched, reader, result, twin)
        finally:
            if twin is not None:
                twin.reader.read_new()
    monkeypatch.setattr(check, "_watch", watching)
    result = run_check(CheckOptions(impl=None if impl is None else str(impl), only=only, timeout=timeout,
                                    load_seconds=LOAD))
    assert left_over(result.marker) == [], "processes of the run are still running"
    assert result.integrity == [], result.integrity
    return result, seen.get("records")


def _results(records) -> dict[str, str]:
    return {r["test"]: r["outcome"] for r in records or [] if r.get("event") == "result"}


def test_the_twin_runs_the_catalogue_from_the_split_on():
    theirs = second_half(NAMES)
    assert theirs == NAMES[NAMES.index(SPLIT_AT):]
    assert second_half(NAMES[:3]) == () and second_half(theirs) == ()  # one half empty: no twin
    assert second_half([NAMES[0], NAMES[-1]]) == (NAMES[-1],)


@pytest.fixture(scope="module")
def graded_alone():
    """``_grade`` without a twin, run once a module per (candidate, timeout): the oracle several
    tests compare with (the harness's files checked unchanged around the run)."""
    runs: dict = {}

    def alone(impl, monkeypatch, timeout: float = TIMEOUT, only: tuple[str, ...] = ()):
        key = (str(impl), timeout, only)
        if key not in runs:
            before = tree_digest()
            runs[key], _ = _grade(impl, monkeypatch, twin=False, timeout=timeout, only=only)
            assert tree_digest() == before
        return runs[key]
    return alone


@pytest.mark.e2e
@confined
@pytest.mark.parametrize("impl", [pytest.param(None, marks=pytest.mark.slow), "wrong_greedy_ties.py", "skips_tests.py",
                                  "crashes_interpreter.py", "loops_once_in_each_half.py",
                                  pytest.param("crashes_interpreter.py:all", marks=pytest.mark.slow)])
def test_a_check_with_a_twin_reports_what_one_grader_child_reports(impl, monkeypatch, graded_alone):
    # loops_once_in_each_half times out in one test of each half (its candidate restarted after it,
    # in the main child and in the twin): the timeout path, at 1 CPU s a timeout, on the tests around
    # its two loops (LOOPS_AND_NEIGHBOURS); crashes_interpreter the crash path on the tests around two
    # of its crashes in each half (CRASHES_AND_NEIGHBOURS; ':all': the whole catalogue, -m slow); the
    # others on the whole catalogue. The reference (None) runs under -m slow only: its path, every test
    # passed in each half, is wrong_greedy_ties' too (15 of its 16 tests pass, in both halves; the one
    # it fails is in the twin's half), which carries the claim for it in the default run (11 CPU s)
    before = tree_digest()
    name, _, scope = (impl or "").partition(":")
    path = CANDIDATES / name if name else None
    loops, crashes = name == "loops_once_in_each_half.py", name == "crashes_interpreter.py" and scope != "all"
    timeout, only = (1.0, LOOPS_AND_NEIGHBOURS) if loops else (TIMEOUT, CRASHES_AND_NEIGHBOURS if crashes else ())
    alone = graded_alone(path, monkeypatch, timeout=timeout, only=only)
    paired, records = _grade(path, monkeypatch, twin=True, timeout=timeout, only=only)
    assert comparable(paired) == comparable(alone)
    if loops:
        assert [t.status for t in paired.tests] == ["passed", "timeout", "passed"] * 2, paired.tests
    if crashes:
        assert [t.status for t in paired.tests] == ["crashed", "passed", "crashed"] * 2, paired.tests
    theirs = second_half(only or NAMES)
    assert sorted(_results(records)) == sorted(theirs), "the twin did not run its half"
    assert _results(records) == {t.name: t.status for t in paired.tests if t.name in theirs}
    assert tree_digest() == before


@pytest.mark.e2e
@confined
def test_the_second_half_meets_the_same_candidate_history_with_and_without_a_twin(tmp_path, monkeypatch):
    # a candidate that tells which process serves it (by its RLIMIT_CPU, sized for the tests its
    # grader child collected) fails test_vocab_bytes only in a process that served the first half:
    # with a twin, its candidate serves the second half; without one, the main child starts a fresh
    # candidate at the split, sized as the twin's. The same verdict both ways. One test of each
    # half is enough for a twin and a split (ONE_A_HALF).
    main_limit = int(LOAD + 2 * TIMEOUT * len(ONE_A_HALF))  # the main child collected both tests
    impl = tmp_path / "tells_its_process.py"
    impl.write_text(
        "import resource\n"
        "from oracles.automaton import *  # noqa: F401,F403\n"
        "from oracles.automaton import vocab_bytes as _vocab_bytes\n\n\n"
        "def vocab_bytes(tokens):\n"
        f"    if resource.getrlimit(resource.RLIMIT_CPU)[0] == {main_limit}:\n"
        "        raise RuntimeError('served by the main grader child')\n"
        "    return _vocab_bytes(tokens)\n")
    alone, _ = _grade(impl, monkeypatch, twin=False, only=ONE_A_HALF)
    paired, records = _grade(impl, monkeypatch, twin=True, only=ONE_A_HALF)
    assert sorted(_results(records)) == ["test_vocab_bytes"], "the twin did not run its half"
    assert {t.name: t.status for t in alone.tests} == {t.name: t.status for t in paired.tests}
    assert {t.name: t.status for t in paired.tests}["test_vocab_bytes"] == "passed"
    assert alone.exit_code == paired.exit_code == ExitCode.OK


def _kill_when_up(which: str):
    """``during`` for ``_grade``: SIGKILL the main child or the twin once the twin's
    candidate process has started (a process carrying the run's marker under the twin)."""
    def during(child, twin):
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and twin is not None and twin.child.poll() is None:
            if _descendants(twin.child.pid):
                break
            time.sleep(0.02)
        victim = child if which == "main" else twin.child
        try:
            os.kill(victim.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return during


def _descendants(pid: int) -> list[int]:
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                children.append(int(entry.name))
    return children


@pytest.mark.e2e
@confined
def test_a_twin_killed_part_way_changes_no_verdict(monkeypatch, graded_alone):
    path = CANDIDATES / "wrong_greedy_ties.py"
    alone = graded_alone(path, monkeypatch)   # the run the test above compares with, if it ran
    paired, records = _grade(path, monkeypatch, twin=True, during=_kill_when_up("twin"))
    assert comparable(paired) == comparable(alone)
    assert len(_results(records)) < len(second_half(NAMES)), "the twin was not killed before its half was done"


@pytest.mark.e2e
@confined
def test_a_main_child_killed_ends_its_twin_and_every_candidate_process(monkeypatch):
    before = tree_digest()
    result, _ = _grade(None, monkeypatch, twin=True, during=_kill_when_up("main"))  # _grade: nothing left running
    assert result.exit_code == ExitCode.CRASHED
    assert result.children[0]["returncode"] == -signal.SIGKILL
    assert tree_digest() == before


def test_a_warning_crosses_from_the_twin_as_pytest_prints_it():
    import warnings

    from _pytest.warnings import warning_record_to_str

    from harness.suite.twin import _warning_data, _warning_message

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("a grader-side warning", RuntimeWarning, stacklevel=1)
    original = caught[0]
    crossed = _warning_message(json.loads(json.dumps(_warning_data(original))))
    assert crossed.category is RuntimeWarning
    assert warning_record_to_str(crossed) == warning_record_to_str(original)
