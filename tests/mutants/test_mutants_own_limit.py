"""A load killed by the candidate's own limit runs once (issue 52 item 4).

A generated mutant whose import grows memory or spins until the candidate's own limit kills it
was run twice (``runner._suspect``: a crash at load may be the machine's): ~35 CPU s each for
the four ``parser`` mutants of the whole run. The grader now reads the candidate's cgroup before
removing it (``resources.Cgroup.oom_killed``, its CPU count against its ``RLIMIT_CPU``:
``client.Candidate._own_limit``) and says which limit it was; such a load is the mutant's verdict,
run once. A SIGKILL from outside is not said so, and is run again as before."""

from __future__ import annotations

import shutil
import time

import pytest

from harness.mutants import generation, runner
from harness.mutants.apply import REFERENCE_DIR
from harness.mutants.runner import Outcome, run_generated
from harness.policy import POLICY
from harness.sandbox import Limits, lending, wording
from harness.sandbox.client import Candidate
from harness.sandbox.failures import CandidateGone
from tests.support.helpers import without_oracle_memo

TEST = "test_hand_example"
GROWS_IN_MEMORY = """
import itertools as _it
for _i in _it.count():   # files of the candidate's tmpfs /tmp: its cgroup counts them, RLIMIT_AS does not
    with open(f"/tmp/_grows{_i}", "wb") as _f:
        _f.write(b"x" * (1 << 24))
"""
SPINS = "\n_X = 3\nwhile True:   # the parser mutants' `x ** y` on a module-level mask: an integer without end\n" \
        "    _X = _X ** 3\n"
CRASHED = "load: the candidate crashed while loading: "


def _module_level(statement: str):
    """A generated mutant of ``errors.py`` with ``statement`` at its module level (run at import)."""
    site = generation.enumerate_sites(modules=["errors"])[0]
    text = (REFERENCE_DIR / "errors.py").read_text(encoding="utf-8")
    return generation.GeneratedMutant(site, text + statement, "(end of file)", statement.strip().splitlines()[-1])


def _counted(monkeypatch) -> list:
    """Every catalogue run of the runner (one candidate start each), counted."""
    calls: list = []
    real = runner.run_catalogue_against

    def counting(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)
    monkeypatch.setattr(runner, "run_catalogue_against", counting)
    return calls


def test_only_the_crash_s_own_words_name_its_own_limit():
    died = f"{CRASHED}the candidate process died during load /x (died of SIGKILL, "
    memory, cpu = f"{died}{wording.OWN_LIMIT_KILLS['memory']})", f"{died}{wording.OWN_LIMIT_KILLS['cpu']})"
    assert runner.at_its_own_limit(memory) and runner.at_its_own_limit(cpu)
    assert runner._suspect({}, memory, {}, (TEST,)) == "" == runner._suspect({}, cpu, {}, (TEST,))
    outside = f"{CRASHED}the candidate process died during load /x (died of SIGKILL, {wording.SIGKILL_UNKNOWN})"
    assert not runner.at_its_own_limit(outside) and runner._suspect({}, outside, {}, (TEST,)) == outside
    # the candidate's own output, which follows the crash's words, cannot claim it
    claimed = f"{outside}; its last output: (died of SIGKILL, {wording.OWN_LIMIT_KILLS['memory']})"
    assert not runner.at_its_own_limit(claimed)
    # past its CPU budget (the zygote's fork that spins at load): its own CPU; the wall backstop is not
    budget = f"{CRASHED}{wording.CPU_BUDGET_WORDS}60 CPU s (load /x)"
    assert runner.at_its_own_limit(budget) and runner._suspect({}, budget, {}, (TEST,)) == ""
    backstop = f"{CRASHED}wall-clock backstop: 120 s, the candidate slept or blocked (load /x)"
    assert not runner.at_its_own_limit(backstop) and runner._suspect({}, backstop, {}, (TEST,)) == backstop
    assert not runner.at_its_own_limit(f"{outside}; its last output: {wording.CPU_BUDGET_WORDS}60 CPU s")
    assert wording.how(-9, "memory") == f"died of SIGKILL, {wording.OWN_LIMIT_KILLS['memory']}"
    assert wording.how(137, "cpu") == f"died of SIGKILL, {wording.OWN_LIMIT_KILLS['cpu']}"   # bwrap's init: 128 + 9
    # not known: said so, never a guess (it was "killed (out of memory?)")
    assert wording.how(-9) == "died of SIGKILL, killed by a signal from outside the harness, or the kernel"
    assert wording.how(-11, "memory") == "died of SIGSEGV, a segmentation fault"   # only a SIGKILL is a limit's


@pytest.mark.e2e
@pytest.mark.parametrize("zygote", [True, False], ids=["zygote", "fresh"])
def test_a_load_that_grows_to_its_memory_limit_is_killed_at_load_once(monkeypatch, tmp_path, zygote):
    """A fork of the zygote (its cgroup the zygote's: the OOM kills counted since the fork) and a
    fresh candidate (a cgroup of its own) alike."""
    from harness.mutants import warm

    monkeypatch.setattr(warm, "ZYGOTE", zygote)
    without_oracle_memo(monkeypatch)   # the mutant dies at its load: no test would read the memo
    # the kernel's OOM killer sooner: 256 MB (512 until 2026-12-08: three loads each writing twice the files, some
    # 3 CPU s more); a mutant holding 60 MB more at its load still loads and runs its test there, both ways
    monkeypatch.setattr(runner, "POLICY", POLICY.with_(memory_mb=256))
    calls = _counted(monkeypatch)
    once = run_generated(_module_level(GROWS_IN_MEMORY), tmp_path, 30.0, deep=False, tests=(TEST,), first_kill=True)
    assert len(calls) == 1 and once.retried == ""
    assert (once.outcome, once.tier) == (Outcome.KILLED, "load")
    assert once.detail.startswith(CRASHED) and wording.OWN_LIMIT_KILLS["memory"] in once.detail
    # the verdict the old rule gave (every crash at load run twice, the second deciding): the same
    calls.clear()
    monkeypatch.setattr(runner, "at_its_own_limit", lambda problem: False)
    twice = run_generated(_module_level(GROWS_IN_MEMORY), tmp_path, 30.0, deep=False, tests=(TEST,), first_kill=True)
    assert len(calls) == 2 and twice.retried.startswith("run again after: load: ")
    assert (twice.outcome, twice.tier, twice.killed_by) == (once.outcome, once.tier, once.killed_by)
    assert not list(tmp_path.iterdir())   # the mutant's copy removed


@pytest.mark.e2e
@pytest.mark.slow
def test_a_load_that_spins_to_its_cpu_limit_is_killed_at_load_once(monkeypatch, tmp_path):
    """The whole run's four ``parser`` mutants' kind: an integer grown without end, killed by the
    candidate's ``RLIMIT_CPU`` (the grader's hard limit, soft equal to hard: SIGKILL), here at 8 s."""
    calls = _counted(monkeypatch)
    result = run_generated(_module_level(SPINS), tmp_path, 3.0, deep=False, tests=(TEST,), first_kill=True)
    assert len(calls) == 1 and result.retried == ""
    assert (result.outcome, result.tier) == (Outcome.KILLED, "load")
    assert wording.OWN_LIMIT_KILLS["cpu"] in result.detail


@pytest.mark.e2e
def test_a_load_killed_from_outside_is_not_called_its_own_limit_and_is_run_again(monkeypatch, tmp_path):
    """The attack the rule must not swallow: a SIGKILL from outside (a person, the machine) while the
    candidate loads. Its words stay the guess, so the runner runs such a load again."""
    monkeypatch.setenv(lending.LEND_VARIABLE, "1")   # the staff's copy of the reference, as the runner's
    package = tmp_path / "automaton_copy"
    shutil.copytree(REFERENCE_DIR, package, ignore=shutil.ignore_patterns("__pycache__"))
    with open(package / "errors.py", "a", encoding="utf-8") as f:
        f.write("\nimport time as _time\n_time.sleep(60)   # loads slowly: killed meanwhile\n")
    candidate = Candidate(str(package), limits=Limits(memory_mb=512, processes=64))
    candidate.begin()
    cgroup = candidate.plan.claim.cgroup
    deadline = time.monotonic() + 30
    while not cgroup.members() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    cgroup.kill()   # from outside: every process of the candidate, SIGKILL
    with pytest.raises(CandidateGone) as gone:
        candidate.start()
    said = f"{CRASHED}{gone.value}"
    assert "died of SIGKILL, killed by a signal from outside the harness, or the kernel" in said
    assert not runner.at_its_own_limit(said) and runner._suspect({}, said, {}, (TEST,)) == said
    assert not cgroup.folders[0].exists()   # released: nothing of the candidate left running
