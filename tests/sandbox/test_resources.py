"""Each candidate's resources are its own (issue 48, item 4): process count, CPU time and memory
are bounded per candidate and counted over every process it ever starts (``harness.sandbox.resources``).

The attacks, as the issue found them:

- a candidate forking to the per-user process limit made a classmate's candidate fail to start
  in the same batch (``crashed 0/16``): the classmate gets 16/16 (``resources_forks_to_the_limit.py``);
- children reaped automatically (``SIGCHLD`` ignored) never reached the CPU count (12.5 CPU s under
  a 3 s limit, test passed): the call ends on its CPU budget (``resources_burns_in_reaped_children.py``);
- three children held 1.26 GB under ``--memory 512``: the third is refused, the tree never held
  more than its limit as the kernel counts it (``resources_holds_memory_in_children.py``);
- a ``setsid`` + double-fork daemon burning CPU: counted while it runs, ended with the candidate
  (``resources_daemon_burns.py``), confined and under ``--unconfined``.

Each test runs its attacker under small limits (so it cannot hurt the machine running the suite,
whatever the harness does: each candidate bounds itself too), and asserts that the harness's
files are unchanged and that nothing of the attacker is left running: no process carries the
run's marker or the candidate's uid, and its cgroup is gone. Oracles: the kernel's own counts
(the cgroup's peak memory), the attackers' documented behaviour (``tests/candidates/README.md``)
and the reference's answers (``oracles.automaton``).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from harness.sandbox import Candidate, CandidateGone, CandidateTimeout, RemoteError, confine, resources
from harness.sandbox.confine import Limits
from tests.support.helpers import CANDIDATES, confined, left_over, tree_digest

ROOT = Path(__file__).resolve().parents[2]
HAND = "(cat|dog)s?"  # a pattern with "dog": what every attacker here acts on
WORDS = (b"cat", b"cats", b"dog", b"dogs", b"do", b"dogss", b"", b"catdog")


def answers_like_python(dfa) -> bool:
    """The DFA accepts exactly what ``re.fullmatch`` accepts, on a few words (the oracle)."""
    import re

    return all(bool(dfa.matches(word)) == bool(re.fullmatch(HAND.encode(), word)) for word in WORDS)


def uid_processes(uid: int | None) -> list[int]:
    """Live processes running as ``uid`` (none when ``uid`` is None)."""
    if uid is None:
        return []
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def gone(cand: Candidate) -> tuple[list[int], list[int], list[Path]]:
    """What is left of ``cand`` after ``close``: marked processes, processes of its uid, cgroup folders."""
    claim = cand.plan.claim
    folders = [f for f in claim.cgroup.folders if f.exists()] if claim is not None else []
    return left_over(cand.marker), uid_processes(claim.uid if claim else None), folders


# --------------------------------------------------------------------------- what the header says


@confined
@pytest.mark.e2e  # starts processes
def test_the_header_names_the_cgroup_and_the_uid_of_each_candidate():
    with Candidate(None, limits=Limits(memory_mb=256, processes=64)) as first, \
            Candidate(None, limits=Limits(memory_mb=256, processes=64)) as second:
        said = first.load["confinement"]
        assert "resources: a cgroup of its own (v" in said and "64 tasks, 256 MB" in said, said
        assert "CPU seconds counted over its whole process tree" in said
        claims = first.plan.claim, second.plan.claim
        assert set(claims[0].cgroup.folders).isdisjoint(claims[1].cgroup.folders)
        if os.geteuid() == 0:
            assert "a uid of its own (one of 200000-203999" in said
            assert claims[0].uid != claims[1].uid
            assert all(resources.UID_BASE <= c.uid < resources.UID_BASE + resources.UID_COUNT for c in claims)
        assert answers_like_python(first.module.regex_to_dfa(HAND))
    assert gone(first) == gone(second) == ([], [], [])


@pytest.mark.e2e  # starts processes
def test_without_a_cgroup_or_a_uid_of_its_own_every_verb_refuses_in_one_line(monkeypatch):
    from harness.cli import main

    monkeypatch.setenv(resources.NO_CGROUP_ENV, "1")
    monkeypatch.setenv("CONSTRAIN_HARNESS_NO_SETPRIV", "1")  # a root grader without setpriv gives no uid either
    assert "no cgroup can be made for each candidate" in confine.unavailable()
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", "--impl", str(CANDIDATES / "loops_forever.py")], out, err)
    lines = err.getvalue().strip().splitlines()
    assert code == 2 and len(lines) == 1, err.getvalue()
    assert lines[0].startswith("check: refusing to run untrusted code without confinement: no cgroup can be made")
    assert "--unconfined" in lines[0] and out.getvalue() == ""


as_root = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"),
                             reason="a uid of its own per candidate needs a root grader and setpriv")


@confined
@as_root
@pytest.mark.e2e
def test_without_a_cgroup_a_root_grader_gives_each_candidate_a_uid_of_its_own_and_says_so(monkeypatch):
    """A machine that makes no cgroup (simulated): the weaker mechanism, stated in the header;
    a fork loop to the per-user process limit takes no process from a classmate started after
    it, a CPU budget still ends a loop, and nothing of either uid is left running."""
    monkeypatch.setenv(resources.NO_CGROUP_ENV, "1")
    assert confine.unavailable() is None
    before = tree_digest()
    limits = Limits(memory_mb=256, processes=24)
    with Candidate(str(CANDIDATES / "resources_forks_to_the_limit.py"), limits=limits) as forker:
        said = forker.load["confinement"]
        assert "resources: no cgroup on this machine (cgroups are switched off" in said, said
        assert "a uid of its own instead: per-user process limit 24 (RLIMIT_NPROC" in said
        assert "memory 256 MB per process (RLIMIT_AS, not for the tree)" in said
        assert forker.plan.claim.cgroup.folders == () and forker.plan.claim.peak_memory() == 0
        assert 20 <= len(uid_processes(forker.plan.claim.uid)) <= 24   # it holds what its uid may have
        with Candidate(None, limits=limits) as classmate:
            assert classmate.plan.claim.uid != forker.plan.claim.uid
            assert answers_like_python(classmate.module.regex_to_dfa(HAND))
        assert answers_like_python(forker.module.regex_to_dfa(HAND))   # then it works like the reference
    with Candidate(str(CANDIDATES / "loops_forever.py"), limits=limits) as looper:
        looper.limit_cpu(1.0)   # counted over its tree from /proc, no cgroup to read
        with pytest.raises(CandidateTimeout, match=r"^CPU-time limit"):
            looper.module.regex_to_dfa(HAND)
    for cand in (forker, classmate, looper):
        assert left_over(cand.marker) == [] and uid_processes(cand.plan.claim.uid) == []
    assert tree_digest() == before


# --------------------------------------------------------------------------- the attacks


@confined
@pytest.mark.e2e
def test_children_reaped_by_the_kernel_still_count_against_the_cpu_budget():
    before = tree_digest()
    with Candidate(str(CANDIDATES / "resources_burns_in_reaped_children.py"),
                   limits=Limits(memory_mb=512, processes=64)) as cand:
        cand.limit_cpu(2.0)  # the attacker burns 6 CPU s in children of 0.05 s each
        with pytest.raises(CandidateTimeout, match=r"^CPU-time limit: the candidate's processes used more than "
                                                   r"2 CPU s \(call regex_to_dfa on '\(cat\|dog\)s\?'\)"):
            cand.module.regex_to_dfa(HAND)
    assert gone(cand) == ([], [], [])
    assert tree_digest() == before


@confined
@pytest.mark.e2e
def test_three_children_cannot_hold_more_than_the_memory_limit_together():
    before = tree_digest()
    limit_mb = 512  # each child's 200 MB fits this per-process limit; the three of them do not
    with Candidate(str(CANDIDATES / "resources_holds_memory_in_children.py"),
                   limits=Limits(memory_mb=limit_mb, processes=64)) as cand:
        with pytest.raises((RemoteError, CandidateGone)) as refused:
            cand.module.regex_to_dfa(HAND)  # answers only once all three held their 200 MB at once
        if isinstance(refused.value, RemoteError):
            assert isinstance(refused.value, MemoryError) and "of 3 children could hold 200 MB" in str(refused.value)
        peak = cand.plan.claim.peak_memory()  # the kernel's count of the whole tree
        assert 0 < peak <= limit_mb << 20, peak
    assert gone(cand) == ([], [], [])
    assert tree_digest() == before


@confined
@pytest.mark.e2e
@pytest.mark.parametrize("mode", ["confined", "user namespace", "unconfined"])
def test_a_setsid_double_fork_daemon_is_counted_and_ended(monkeypatch, mode):
    if mode == "unconfined":
        monkeypatch.setenv(confine.UNCONFINED_ENV, "1")
    if mode == "user namespace":  # the path of a grader that is not root (here: root taking it)
        monkeypatch.setenv("CONSTRAIN_HARNESS_AS_USER", "1")
    before = tree_digest(bytecode=False)
    with Candidate(str(CANDIDATES / "resources_daemon_burns.py"), limits=Limits(memory_mb=512, processes=64)) as cand:
        assert answers_like_python(cand.module.regex_to_dfa(HAND))
        assert cand.plan.claim is not None
        assert ("user namespace" in cand.load["confinement"]) == (mode == "user namespace")
        members = cand.plan.claim.cgroup.members()
        assert len(members) >= 2, members  # the server and the daemon at least, whatever session it is in
        start, deadline = cand.cpu_seconds(), time.monotonic() + 30
        while cand.cpu_seconds() - start < 0.5 and time.monotonic() < deadline:
            time.sleep(0.1)  # the server idles: only the daemon burns
        assert cand.cpu_seconds() - start >= 0.5
    assert gone(cand) == ([], [], [])
    assert tree_digest(bytecode=False) == before


@pytest.fixture(scope="module")
def forker_class(tmp_path_factory):
    """``check --batch --jobs 2`` of a class of two: a fork loop and the reference."""
    from harness.cli import main

    if confine.unavailable() is not None:
        pytest.skip(f"no confinement can start here: {confine.unavailable()}")
    work = tmp_path_factory.mktemp("forker")
    folder = work / "class"
    folder.mkdir()
    shutil.copy2(CANDIDATES / "resources_forks_to_the_limit.py", folder / "forker.py")
    shutil.copytree(ROOT / "oracles" / "automaton", folder / "ada" / "constrain",
                    ignore=shutil.ignore_patterns("__pycache__"))
    report = work / "grades.json"
    before = tree_digest()
    private = work / "private-tmp"   # every copy, so every process of the run, names this folder
    private.mkdir()
    saved, tempfile.tempdir = tempfile.tempdir, str(private)
    out, err = io.StringIO(), io.StringIO()
    try:
        code = main(["check", "--batch", str(folder), "--jobs", "2", "--memory", "512", "--json", str(report)],
                    out, err)
    finally:
        tempfile.tempdir = saved
    return {"code": code, "out": out.getvalue(), "err": err.getvalue(), "before": before, "after": tree_digest(),
            "left": confine.marked_processes(str(private).encode()), "private": private,
            "students": {s["student"]: s for s in json.loads(report.read_text())["students"]}}


@pytest.mark.e2e
def test_a_fork_loop_takes_no_process_from_a_classmate_in_the_same_batch(forker_class):
    students = forker_class["students"]
    assert (students["ada"]["verdict"], students["ada"]["passed"]) == ("passed", 16), students["ada"]
    # the fork loop is bounded by its own cgroup and uid, and is otherwise the reference
    assert (students["forker"]["verdict"], students["forker"]["passed"]) == ("passed", 16), students["forker"]
    assert forker_class["left"] == [] and list(forker_class["private"].iterdir()) == []
    assert forker_class["after"] == forker_class["before"]


# --------------------------------------------------------------------------- the machine's refusal


@confined
@pytest.mark.e2e  # starts processes
def test_a_candidate_the_machine_cannot_start_is_tried_twice_then_not_blamed_on_the_student(monkeypatch):
    from harness.grading.batch.feedback import load_words
    from harness.sandbox import HarnessCouldNotStart

    plans = []
    real_plan = confine.plan
    monkeypatch.setattr(confine, "plan", lambda *args, **kwargs: plans.append(real_plan(*args, **kwargs)) or plans[-1])
    # one task in its cgroup: bwrap itself; its clone into the new namespaces gets EAGAIN, as on a full machine
    cand = Candidate(None, limits=Limits(memory_mb=256, processes=1))
    with pytest.raises(HarnessCouldNotStart) as refused:
        cand.start()
    said = str(refused.value)
    assert said.startswith("the harness could not start your code (tried twice): bwrap: ")
    assert "Resource temporarily unavailable" in said and refused.value.verdict == "harness"
    assert len(plans) == 2  # started once more before it stands
    assert all(not any(f.exists() for f in plan.claim.cgroup.folders) for plan in plans)
    assert left_over(cand.marker) == [] and all(uid_processes(plan.claim.uid) == [] for plan in plans)
    # what the plugin records for it (harness.suite.plugin._start_candidate), and what the student reads
    words = load_words({"verdict": "crashed", "load": {"status": "error", "reason": said}, "statuses": {}})
    assert words.startswith("the harness could not start your code:") and "not your fault" in words
    assert "bwrap" not in words and "crash" not in words


def test_a_student_whose_import_ends_the_process_is_still_told_so():
    from harness.grading.batch.feedback import load_words

    reason = "the candidate crashed while loading: the candidate process died during load (exited with status 0)"
    words = load_words({"verdict": "crashed", "load": {"status": "error", "reason": reason}, "statuses": {}})
    assert words.startswith("the process ended while your module was being imported")


@confined
@pytest.mark.e2e  # starts processes
def test_the_cgroups_of_a_killed_grader_are_removed_by_the_next_one_but_never_one_in_use(monkeypatch):
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)  # a grader that is gone (its pid not reused within this test: checked below)
    hierarchies = resources._hierarchies()
    parents = {h.own for h in hierarchies if h.version == 1 and h.controllers & set(resources.V1_CONTROLLERS)}
    stale = [parent / f"{resources.CGROUP_PREFIX}{dead_pid}-0badc0de" for parent in parents]
    for folder in stale:
        folder.mkdir()
    busy = resources.Cgroup.make(4, 256)  # the same dead owner's name, but a process still in it
    # entered before it takes the dead owner's name: a sweep of another process running now never
    # sees it empty under that name
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                               preexec_fn=lambda: busy.enter(os.getpid()))
    renamed = resources.Cgroup(1, tuple(f.rename(f.with_name(f"{resources.CGROUP_PREFIX}{dead_pid}-00c0ffee"))
                                        for f in busy.folders))
    try:
        assert not os.path.exists(f"/proc/{dead_pid}")
        monkeypatch.setattr(resources, "_PROBED", {})  # a new grader process: it sweeps once
        fresh = resources.Cgroup.make(4, 256)
        assert [f for f in stale if f.exists()] == []
        assert all(f.exists() for f in renamed.folders) and renamed.members() == {sleeper.pid}
        assert fresh.remove()
    finally:
        sleeper.kill()
        sleeper.wait()
        assert renamed.remove() and all(not f.exists() for f in renamed.folders)


def _our_cgroups(pid: int) -> set[Path]:
    """Every cgroup folder named for grader ``pid`` anywhere under this process's own cgroups."""
    found = set()
    for hierarchy in resources._hierarchies():
        found |= set(hierarchy.own.rglob(f"{resources.CGROUP_PREFIX}{pid}-*"))
    return found


needs_cgroups = pytest.mark.skipif(resources.unavailable() is not None,
                                   reason=f"no cgroup per candidate here: {resources.unavailable()}")

LEAKER = """
import os, sys
from harness.sandbox import resources
group = resources.Cgroup.make(4, 256)   # a candidate's cgroup, made inside the run's cgroup
print(*group.folders, sep=" ", flush=True)
os._exit(0)                             # ended before it could remove it (as a killed grader is)
"""


@needs_cgroups
@pytest.mark.e2e  # starts processes
def test_a_bounded_run_leaves_no_cgroup_even_when_its_grader_left_one_inside(tmp_path):
    """The batch runs each check job in a cgroup of its own (``autograder.bounded.run_bounded``);
    the job makes its candidates' cgroups inside that one. A job that ends without removing
    them (killed, or here ``os._exit``) left both for good: the run's cgroup cannot be removed
    with a cgroup inside, and the next grader's sweep did not look inside. Now none is left."""
    import sys

    from harness.grading.autograder.bounded import run_bounded

    before = _our_cgroups(os.getpid())
    log = tmp_path / "log"
    with open(log, "w") as out:
        outcome = run_bounded([sys.executable, "-c", LEAKER], out, tmp_path, cpu_limit=30, wall_limit=60)
    inner = [Path(line) for line in log.read_text().split() if line.startswith("/")]
    assert outcome.exit_code == 0 and outcome.counted == "cgroup", log.read_text()
    assert inner and all(resources.CGROUP_PREFIX in f.name for f in inner)
    assert [f for f in inner if f.exists()] == []
    assert _our_cgroups(os.getpid()) == before


@needs_cgroups
@pytest.mark.e2e  # starts processes
def test_the_sweep_removes_a_stale_cgroup_with_stale_ones_inside_but_never_a_live_owner_s(monkeypatch):
    import subprocess
    import sys

    dead = [int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                               text=True).stdout) for _ in range(2)]   # two graders that are gone
    own = next(h.own for h in resources._hierarchies() if h.version == 1 and "pids" in h.controllers)
    stale = own / f"{resources.CGROUP_PREFIX}{dead[0]}-0badc0de"
    stale_inner = stale / f"{resources.CGROUP_PREFIX}{dead[1]}-0badc0df"
    live = own / f"{resources.CGROUP_PREFIX}{os.getpid()}-5eed0000"   # ours: this process runs
    live_inner = live / f"{resources.CGROUP_PREFIX}{dead[1]}-5eed0001"
    for folder in (stale, stale_inner, live, live_inner):
        folder.mkdir()
    try:
        assert not any(os.path.exists(f"/proc/{pid}") for pid in dead)
        monkeypatch.setattr(resources, "_PROBED", {})  # a new grader process: it sweeps once
        fresh = resources.Cgroup.make(4, 256)
        assert not stale.exists() and not stale_inner.exists()
        assert live.exists() and live_inner.exists()
        assert fresh.remove()
        assert resources.Cgroup(1, (live,)).remove() and not live.exists()   # the live one's end takes its inner
    finally:
        for folder in (stale_inner, stale, live_inner, live):
            if folder.exists():
                folder.rmdir()


@confined
def test_no_cgroup_or_uid_left_for_a_candidate_is_the_machines_refusal_not_a_crash(monkeypatch):
    from harness.sandbox import HarnessCouldNotStart

    tries = []

    def exhausted(limits, *, uid):
        tries.append(uid)
        raise resources.ResourcesUnavailable(f"all {resources.UID_COUNT} candidate uids from "
                                             f"{resources.UID_BASE} are in use")

    monkeypatch.setattr(resources, "claim", exhausted)
    cand = Candidate(None, limits=Limits(memory_mb=256, processes=64))
    with pytest.raises(HarnessCouldNotStart, match=r"^the harness could not start your code \(tried twice\): "
                                                   r"no cgroup or uid for this candidate: all 4000 candidate uids"):
        cand.start()
    assert len(tries) == 2 and left_over(cand.marker) == []
