"""The runner's ``error`` outcome (issue 52 item 4): a pass whose verdict may be the harness's
(a grader killed from outside, a runner failure, a kill resting only on tests that errored
outside their call) is run once more; a mutant whose runs only errored is "error" with its
reason, never killed. The end-to-end tests kill a real grader child of the warm server."""

from __future__ import annotations

import os
import signal
import tempfile
import threading
import time
from pathlib import Path

import pytest

from harness.mutants import generation, report, runner, warm
from harness.mutants.runner import HARNESS_ERROR, Outcome, run_generated
from harness.suite import oracle_memo
from tests.mutants.test_mutants_generated import consistent
from tests.support.helpers import confined, without_oracle_memo

KILLER = "test_canonical_form"
MUTANT_ID = "compile.NumberReplacer.4"   # `== 0` -> `== 1`: a one-state language refused as empty


def _mutant():
    site = generation.only(generation.enumerate_sites(modules=["compile"]), [MUTANT_ID])[0]
    mutant, why = generation.build(site)
    assert mutant is not None, why
    return mutant


# --- the rule, on recorded runs (no process) ------------------------------------------------------

def test_only_a_verdict_the_harness_may_have_made_is_suspect():
    suspect = runner._suspect
    assert suspect({"t": "failed", "u": "error"}, None, {}, ("t", "u")) == ""   # a real failure decides
    assert suspect({"t": "crashed"}, None, {}, ("t",)) == ""
    assert suspect({"t": "passed"}, None, {}, ("t",)) == ""                    # a survivor
    assert suspect({}, "timeout", {}, ("t",)) == ""                            # a CPU limit: the mutant's
    why = suspect({"t": "error"}, None, {"t": {"reason": "in setup: a fresh candidate process did not load"}}, ("t",))
    assert why.startswith(HARNESS_ERROR) and "t errored outside its call" in why and "did not load" in why
    assert suspect({}, "load: the candidate crashed while loading: SIGSEGV", {}, ("t",)).startswith("load: ")
    assert suspect({}, "load: importing the candidate failed: TypeError: x (at ast.py:60)", {}, ("t",)) == ""
    assert "no result for 1 test(s), e.g. u" in suspect({"t": "passed"}, None, {}, ("t", "u"))
    assert suspect({}, f"{HARNESS_ERROR}killed", {}, ("t",)) == f"{HARNESS_ERROR}killed"


def _scripted(monkeypatch, runs):
    """``run_catalogue_against`` answering ``runs`` in turn (outcomes, problem, reasons)."""
    calls = []

    def fake(package, tests, deep, timeout, strict=False, first_kill=False, records=None, **kwargs):
        outcomes, problem, said = runs[len(calls)]
        calls.append(tests)
        if records is not None:
            records.update({name: {"test": name, "outcome": outcome, "reason": said.get(name, ""), "notes": []}
                            for name, outcome in outcomes.items()})
        return dict(outcomes), problem
    monkeypatch.setattr(runner, "run_catalogue_against", fake)
    return calls


def test_a_kill_resting_on_errors_alone_is_run_again_and_counts_as_error_when_it_repeats(monkeypatch, tmp_path):
    mutant = _mutant()
    errored = ({KILLER: "error"}, None, {KILLER: "in setup: a fresh candidate process did not load: EAGAIN"})
    calls = _scripted(monkeypatch, [errored, errored])
    result = run_generated(mutant, tmp_path, 30.0, deep=False, tests=(KILLER,), first_kill=True)
    assert len(calls) == 2
    assert result.outcome is Outcome.ERROR and result.detail.startswith(HARNESS_ERROR + "twice: ")
    assert "EAGAIN" in result.detail and result.retried.startswith("run again after: ")
    rates = report.kill_rates([result], {mutant.id: mutant})["total"]["all"]
    assert (rates["invalid"], rates["default"], rates["deep"]) == (1, 0, 0)   # never a kill
    record = runner.result_to_json(result)   # the reasons are kept in the state file's record
    assert (record["outcome"], record["detail"], record["retried"]) == ("error", result.detail, result.retried)
    assert runner.result_from_json(record).retried == result.retried


def test_a_second_run_decides_after_a_harness_error(monkeypatch, tmp_path):
    mutant = _mutant()
    errored = ({KILLER: "error"}, None, {KILLER: "in setup: a fresh candidate process did not load"})
    _scripted(monkeypatch, [errored, ({KILLER: "failed"}, None, {KILLER: "AssertionError"})])
    killed = run_generated(mutant, tmp_path, 30.0, deep=False, tests=(KILLER,), first_kill=True)
    assert (killed.outcome, killed.killed_by, killed.tier) == (Outcome.KILLED, [KILLER], "default")
    assert "did not load" in killed.retried
    load = ({}, "load: the candidate crashed while loading", {})
    _scripted(monkeypatch, [load, load])   # refused twice: the mutant's doing, as before
    refused = run_generated(mutant, tmp_path, 30.0, deep=False, tests=(KILLER,), first_kill=True)
    assert (refused.outcome, refused.tier, refused.detail) == (Outcome.KILLED, "load", load[1])
    raised = ({}, "load: importing the candidate failed: TypeError: x (at ast.py:60)", {})
    calls = _scripted(monkeypatch, [raised])   # its own import raised: the mutant's verdict, run once
    assert run_generated(mutant, tmp_path, 30.0, deep=False, tests=(KILLER,), first_kill=True).tier == "load"
    assert len(calls) == 1


def test_a_signal_below_the_cpu_limit_is_the_harness_s_and_the_cpu_limit_is_a_timeout():
    killed = runner._killed_from_outside
    assert "killed by SIGKILL after 0.30 CPU s" in killed({"code": -9, "cpu": 0.3, "backstop": False}, 30.0)
    assert killed({"code": -9, "cpu": 30.5, "backstop": False}, 30.0) == ""       # past the soft limit
    assert killed({"code": -int(signal.SIGXCPU), "cpu": 30.0, "backstop": False}, 30.0) == ""
    assert killed({"code": None, "cpu": 1.0, "backstop": True}, 30.0) == ""        # the wall backstop
    assert killed({"code": 1, "cpu": 1.0, "backstop": False}, 30.0) == ""


# --- a real grader child killed -----------------------------------------------------------------------

def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except FileNotFoundError:
        return []


def _descendants(pid: int) -> list[int]:
    found, todo = [], _children(pid)
    while todo:
        child = todo.pop()
        found.append(child)
        todo += _children(child)
    return found


def _kill_forks(monkeypatch, times: int, memo: bool = False) -> list[int]:
    """Each of the first ``times`` warm runs: its fork SIGKILLed as soon as it exists. (No zygote:
    the warm grader starts it at its first run, a new child this would take for the fork; a grader
    fork killed while a zygote's child runs is tests/sandbox/test_zygote.py's.) No oracle memo
    unless ``memo``: the killed fork is then writing down the calls its memo misses.)"""
    monkeypatch.setattr(warm, "ZYGOTE", False)
    if not memo:
        monkeypatch.setenv(oracle_memo.OFF_VARIABLE, "1")
    killed: list[int] = []
    original = warm.WarmGrader.run

    def run(self, *args, **kwargs):
        if len(killed) < times:
            before = set(_children(self.proc.pid))

            def kill():
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    new = set(_children(self.proc.pid)) - before
                    if new:
                        pid = new.pop()
                        os.kill(pid, signal.SIGKILL)
                        killed.append(pid)
                        return
                    time.sleep(0.001)
            threading.Thread(target=kill, daemon=True).start()
        return original(self, *args, **kwargs)
    monkeypatch.setattr(warm.WarmGrader, "run", run)
    return killed


def _nothing_left(before: set[int]):
    """No process the test started is left (``before``: this process's descendants at its start,
    e.g. a session fixture's server under xdist)."""
    warm.close_all()
    deadline = time.monotonic() + 20
    while set(_descendants(os.getpid())) - before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert set(_descendants(os.getpid())) - before == set()


@pytest.mark.e2e
def test_a_grader_child_killed_once_is_run_again_and_the_mutant_keeps_its_verdict(monkeypatch, tmp_path):
    monkeypatch.setattr(warm, "WARM", True)
    warm.close_all()
    before = set(_descendants(os.getpid()))
    mutant = _mutant()
    killed = _kill_forks(monkeypatch, times=1)
    result = run_generated(mutant, tmp_path, 30.0, deep=False, tests=(KILLER,), first_kill=True)
    assert len(killed) == 1
    # the spec's verdict: a one-state language is not empty, so the canonical-form test fails on it
    assert (result.outcome, result.killed_by, result.tier) == (Outcome.KILLED, [KILLER], "default")
    assert "the grader child was killed by SIGKILL" in result.retried
    _nothing_left(before)


@pytest.mark.e2e
def test_a_grader_child_killed_while_its_oracle_memo_records_keeps_nothing_and_the_verdict(monkeypatch, tmp_path):
    """A default-tier fork writes down the oracle calls its memo misses (harness.suite.oracle_memo):
    killed, it writes nothing, the warm grader keeps nothing from it (no file to read, none left
    behind), and the pass run once more decides, as with the memo off."""
    monkeypatch.delenv(oracle_memo.OFF_VARIABLE, raising=False)
    monkeypatch.setattr(warm, "WARM", True)
    warm.close_all()
    before = set(_descendants(os.getpid()))
    leftovers = set(Path(tempfile.gettempdir()).glob("constrain-oracle-memo-*"))
    mutant = _mutant()
    killed = _kill_forks(monkeypatch, times=1, memo=True)
    result = run_generated(mutant, tmp_path, 30.0, deep=False, tests=(KILLER,), first_kill=True)
    assert len(killed) == 1
    assert (result.outcome, result.killed_by, result.tier) == (Outcome.KILLED, [KILLER], "default")
    assert "the grader child was killed by SIGKILL" in result.retried
    assert set(Path(tempfile.gettempdir()).glob("constrain-oracle-memo-*")) <= leftovers
    _nothing_left(before)


@pytest.mark.e2e
def test_a_grader_child_killed_every_time_is_an_error_never_a_kill(monkeypatch, tmp_path):
    monkeypatch.setattr(warm, "WARM", True)
    warm.close_all()
    before = set(_descendants(os.getpid()))
    mutant = _mutant()
    killed = _kill_forks(monkeypatch, times=2)
    result = run_generated(mutant, tmp_path, 30.0, deep=False, tests=(KILLER,), first_kill=True)
    assert len(killed) == 2
    assert result.outcome is Outcome.ERROR, result
    assert result.detail.startswith(HARNESS_ERROR + "twice: the grader child was killed by SIGKILL")
    assert report.kill_rates([result], {mutant.id: mutant})["total"]["all"]["invalid"] == 1
    _nothing_left(before)


# --- the deep pass does not repeat what the default tier settled -------------------------------------

def test_settled_means_passed_without_a_note_and_reading_no_tier():
    records = {"a": {"outcome": "passed", "notes": []}, "b": {"outcome": "passed", "notes": ["contract decision"]},
               "c": {"outcome": "failed", "notes": []}, "test_unsupported_syntax_raises": {"outcome": "passed"}}
    assert runner.settled(records) == {"a"}
    assert runner.deep_pass_tests(("a", "b", "test_deep_x"), frozenset({"a"})) == ("b", "test_deep_x")
    assert runner.deep_pass_tests(None, frozenset()) is None   # nothing settled: every test, as before
    from harness.suite.catalogue import DEEP_NAMES, NAMES
    assert runner.deep_pass_tests(None, frozenset(NAMES)) == tuple(DEEP_NAMES)


def test_no_catalogue_function_but_the_tier_readers_reads_the_tier():
    """``settled`` rests on this: under --strict only ``tiers.decision`` and the tests in
    ``TIER_READERS`` behave otherwise. A new ``is_strict()`` reader must be added there."""
    import ast
    from pathlib import Path

    from harness.suite.catalogue import NAMES

    readers = set()
    for path in (Path(runner.ROOT) / "harness" / "suite").glob("*.py"):
        if path.name == "tiers.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                calls = {getattr(n.func, "id", getattr(n.func, "attr", "")) for n in ast.walk(node)
                         if isinstance(n, ast.Call)}
                if {"is_strict", "set_strict"} & calls and path.name != "plugin.py":
                    readers.add(node.name)
    assert readers == set(runner.TIER_READERS) and readers <= set(NAMES)


@pytest.mark.e2e
def test_a_default_test_that_noted_a_decision_runs_again_in_the_deep_pass_and_kills(tmp_path, monkeypatch):
    """``vocab.SwapArguments.33`` (``getattr(added, "special")`` with its arguments swapped) passes
    ``test_vocab_bytes`` with a note (a contract decision, ``vocab_bytes_tokenizers``) and fails it
    under --strict: the deep pass must run it again, and only what the default tier left open."""
    from harness.mutants.apply import materialize_generated

    without_oracle_memo(monkeypatch)   # two tests' runs: the memo's fill would cost more than it saves
    site = generation.only(generation.enumerate_sites(modules=["vocab"]), ["vocab.SwapArguments.33"])[0]
    mutant = generation.build(site)[0]
    package = materialize_generated(mutant, tmp_path)
    result, settled = runner._default_tier(mutant, package, ("test_hand_example", "test_vocab_bytes"), 30.0, True,
                                           time.monotonic())
    assert result.outcome is Outcome.SURVIVED and settled == {"test_hand_example"}
    left = runner.deep_pass_tests(("test_hand_example", "test_vocab_bytes"), settled)
    assert left == ("test_vocab_bytes",)
    deep = runner._deep_pass(result, mutant, package, left, 30.0, True)
    assert (deep.outcome, deep.tier, deep.killed_by) == (Outcome.KILLED, "deep", ["test_vocab_bytes"])


# --- the fast path gives the slow path's verdicts (issue 52 item 4) -----------------------------------

def _verdicts(monkeypatch, mutants, *, slow: bool, deep: bool, replies: list | None = None) -> dict[str, tuple]:
    """Each mutant's verdict: the slow path is a cold ``python -m`` grader per run (no warm fork, so
    a fresh candidate process per catalogue run, never the zygote) and a deep pass that runs every
    test again; the fast path, the verb's run: the warm forks, their candidates forked from the
    zygote, the oracle memo and the settled skip. Each result ``consistent``; ``replies``: every
    warm grader's reply is appended to it. The fast path on one thread: one warm grader, so one
    oracle memo filled where two threads filled two; the slow path's cold processes cost the same
    on two threads as on one."""
    monkeypatch.setattr(warm, "WARM", not slow)
    monkeypatch.setattr(warm, "ZYGOTE", True)   # the verb's default (a run reads it when the slow path is off)
    monkeypatch.setattr(runner, "RERUN_SETTLED", slow)
    monkeypatch.setattr(runner, "_ZYGOTE_SAID", [])
    if replies is not None:
        original = warm.WarmGrader.run

        def recorded(self, *args, **kwargs):
            replies.append(original(self, *args, **kwargs))
            return replies[-1]
        monkeypatch.setattr(warm.WarmGrader, "run", recorded)
    warm.close_all()

    def run(mutant, root, timeout):
        return run_generated(mutant, root, timeout, deep=deep, first_kill=True)
    results = runner.run_all(mutants, jobs=2 if slow else 1, run=run)
    consistent(results)
    return {r.id: (r.outcome, r.tier, tuple(r.killed_by), (r.evidence or {}).get("kind")) for r in results}


def _same_verdicts(monkeypatch, n: int, seed: int, deep: bool):
    mutants, _ = generation.pick(generation.enumerate_sites(), n, seed)
    fast = _verdicts(monkeypatch, mutants, slow=False, deep=deep)
    slow = _verdicts(monkeypatch, mutants, slow=True, deep=deep)
    assert fast == slow
    assert not [m for m, v in fast.items() if v[0] is Outcome.ERROR], fast
    return fast


@pytest.fixture(scope="module")
def lean_sample_both_ways() -> dict:
    """A seeded sample of 4 (seed 52: a kill, a survivor, an equivalent by its compile evidence and
    one by its vocab evidence), the default tier and the equivalence decision, run once each way for
    this module: the fast path (its warm graders' replies recorded, and after the run the zygote
    processes this process's descendants still run) and the slow path. Two claims read it: the
    fast path's verdicts are the slow path's, and the zygote's candidates give the fresh
    candidates' verdicts (before, ``test_mutants_zygote`` ran a sample of its own twice, both ways
    warm: ~24 CPU s more for a claim this pair of runs holds)."""
    from tests.mutants.test_mutants_zygote import _descendants_running

    mutants, _ = generation.pick(generation.enumerate_sites(), 4, 52)
    with pytest.MonkeyPatch.context() as patch:
        fast_replies: list[dict] = []
        fast = _verdicts(patch, mutants, slow=False, deep=False, replies=fast_replies)
        zygotes_left = _descendants_running(b"zygote_server")   # run_all closed its warm graders, and so their zygotes
        said = list(runner._ZYGOTE_SAID)
        slow_replies: list[dict] = []
        slow = _verdicts(patch, mutants, slow=True, deep=False, replies=slow_replies)
    return {"fast": fast, "slow": slow, "fast_replies": fast_replies, "slow_replies": slow_replies,
            "zygotes_left": zygotes_left, "zygote_said": said}


@pytest.mark.e2e
def test_the_fast_path_gives_the_slow_path_s_verdicts(lean_sample_both_ways):
    # lean: the default tier and the equivalence decision of a seeded sample of 4
    fast, slow = lean_sample_both_ways["fast"], lean_sample_both_ways["slow"]
    assert fast == slow
    assert not [m for m, v in fast.items() if v[0] is Outcome.ERROR], fast


@confined
@pytest.mark.e2e
def test_a_seeded_sample_gets_the_same_verdicts_with_the_zygote(lean_sample_both_ways):
    """The zygote (``harness.sandbox.zygote``) gives every mutant of the sample the verdict it gets
    with a fresh candidate process per catalogue run (the slow path's cold graders: no warm grader
    asked, so no zygote), the zygote really used (its start counted), never fallen back from, and
    nothing of it left running after the run. (Moved from ``test_mutants_zygote``, whose whole
    sample of 12 stays there under ``slow``.)"""
    run = lean_sample_both_ways
    assert run["fast"] == run["slow"]
    assert any(v[0] is Outcome.KILLED for v in run["fast"].values()), run["fast"]
    assert not run["zygotes_left"]
    catalogue = [r for r in run["fast_replies"] if "zygote_cpu" in r]
    assert catalogue and all(r["zygote_cpu"] > 0 for r in catalogue[:1]), run["fast_replies"]   # its start counted
    assert run["zygote_said"] == [] and not any("zygote_off" in r for r in run["fast_replies"]), run  # never fell back
    assert run["slow_replies"] == []   # the slow path asked no warm grader: every candidate a fresh process


@pytest.mark.e2e
@pytest.mark.slow
def test_the_fast_path_gives_the_slow_path_s_verdicts_with_the_deep_pass(monkeypatch):
    verdicts = _same_verdicts(monkeypatch, 12, seed=7, deep=True)
    assert any(v[0] is not Outcome.KILLED or v[1] == "deep" for v in verdicts.values()), verdicts
