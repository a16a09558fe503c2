"""The zygote (``harness.sandbox.zygote``): a warm confined process forked per candidate process
of a generated mutant's catalogue run. Each test performs what it names against a real zygote
behind the wall: a child's files and processes never reach the next child, a child that
exhausts the memory is killed and the zygote serves the next, a child's CPU is counted, and
nothing of the zygote is left running after it closes; the harness's files are unchanged."""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from pathlib import Path

import pytest

from harness.sandbox import CandidateCrashed, CandidateTimeout, Limits, cpulimit, zygote
from harness.sandbox.zygote import Zygote, ZygoteCandidate
from tests.support.helpers import ROOT, confined, left_over, tree_digest

pytestmark = [confined, pytest.mark.e2e]

PROBE = '''
import os, subprocess, sys, time
from oracles.automaton import *   # the contract's names: the probe loads as a whole candidate


def leave():
    """Files in its home (its folder), /tmp and /dev/shm, one in a folder it made unreadable."""
    made = []
    for path in (os.path.join(os.environ["HOME"], "left-in-home"), "/tmp/left-in-tmp", "/dev/shm/left-in-shm"):
        try:
            with open(path, "w") as f:
                f.write("from the last child")
            made.append(path)
        except OSError:
            pass
    os.makedirs("/tmp/locked/inner", exist_ok=True)
    open("/tmp/locked/inner/file", "w").close()
    os.chmod("/tmp/locked/inner", 0)
    os.chmod("/tmp/locked", 0)
    made.append("/tmp/locked")
    return made


def listing():
    """What /tmp holds (before a child writes: the sandbox's own, e.g. a checkout under /tmp
    bound at its path)."""
    return sorted(os.listdir("/tmp"))


def seen(found):
    """What of the last child's files this process sees (``found``: what /tmp held at its start)."""
    names = ["/tmp/left-in-tmp", "/dev/shm/left-in-shm", "/tmp/locked",
             os.path.join(os.environ["HOME"], "left-in-home")]
    own = os.path.dirname(os.path.dirname(__file__))  # the folder its own package was written in
    return [n for n in names if os.path.lexists(n)] + \
        sorted(set(os.listdir("/tmp")) - {"home", os.path.basename(own)} - set(found))


def outlive():
    """A grandchild in a session of its own (double fork) that sleeps on after this process ends:
    its pid in the sandbox."""
    proc = subprocess.Popen([sys.executable, "-c", "import os, time\\nif os.fork() == 0:\\n    os.setsid()\\n"
                             "    print(os.getpid(), flush=True)\\n    time.sleep(600)\\nos._exit(0)"],
                            stdout=subprocess.PIPE, start_new_session=True)
    pid = int(proc.stdout.readline())
    proc.wait()
    return pid


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def hog(helpers, mb):
    """``helpers`` processes that each touch ``mb`` MB and wait: their exit statuses."""
    pids = []
    for _ in range(helpers):
        pid = os.fork()
        if pid == 0:
            block = bytearray(mb << 20)
            for i in range(0, len(block), 4096):
                block[i] = 1
            time.sleep(3)   # all of them hold their memory at once
            os._exit(0)
        pids.append(pid)
    return [os.waitpid(pid, 0)[1] for pid in pids]


def burn(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return True


IPC_KEY = 0x5A7E0000   # the keys of the System V objects a child leaves: this, + 1, + 2


def make_sysv_ipc():
    """A System V shared-memory segment, semaphore set and message queue under known keys: their
    ids (-1 where refused), then errno."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    create = 0o1000 | 0o666   # IPC_CREAT, readable and writable by anyone
    ids = [libc.shmget(IPC_KEY, 4096, create), libc.semget(IPC_KEY + 1, 1, create),
           libc.msgget(IPC_KEY + 2, create)]
    return ids + [ctypes.get_errno()]


def sysv_ipc_found():
    """The ids the known keys name now (-1: none)."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    return [libc.shmget(IPC_KEY, 0, 0), libc.semget(IPC_KEY + 1, 0, 0), libc.msgget(IPC_KEY + 2, 0)]


def sysv_ipc_listed():
    """Every System V object this process's IPC namespace holds, one line each."""
    rows = []
    for kind in ("shm", "sem", "msg"):
        with open("/proc/sysvipc/" + kind) as f:
            rows += [kind + " " + line.strip() for line in f.read().splitlines()[1:] if line.strip()]
    return rows
'''


@pytest.fixture
def probe():
    """A candidate package under /tmp (the zygote sends a candidate there), removed after."""
    folder = Path(__import__("tempfile").mkdtemp(prefix="zygote-probe-"))
    package = folder / "zygote_probe"
    package.mkdir()
    (package / "__init__.py").write_text(PROBE)
    yield package
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def warm(monkeypatch):
    """A zygote this process holds, its link set as a grader fork's; after the test: its cgroup
    and processes gone, and the harness's files unchanged."""
    before = tree_digest(bytecode=False)
    held = Zygote().start()
    monkeypatch.setenv(zygote.ZYGOTE_ENV, held.environment()[zygote.ZYGOTE_ENV])
    try:
        yield held
    finally:
        _forget_links()
        folders = held.cgroup.folders
        held.close()
        assert not left_over(held.marker)
        assert not any(folder.exists() for folder in folders)
        assert tree_digest(bytecode=False) == before


def _forget_links() -> None:
    """Close this process's links to the zygote (a grader fork's end: the zygote then sees its
    control socket close and ends at once)."""
    for link in zygote._LINKS.values():
        if link is not None:
            link.control.close()
    zygote._LINKS.clear()


@contextlib.contextmanager
def _child(package: Path, **limits):
    """A candidate process forked from the zygote (never a fresh start), closed after."""
    with ZygoteCandidate(str(package), limits=Limits(**limits)) as candidate:
        assert candidate.forked, zygote._link().broken
        yield candidate


def test_a_child_s_files_in_its_folder_tmp_and_shm_leave_nothing_the_next_child_sees(warm, probe):
    with _child(probe) as first:
        found = list(first.module.listing())
        made = list(first.module.leave())
        assert "/tmp/left-in-tmp" in made and "/tmp/locked" in made
        assert first.module.seen(found)  # it sees its own
    assert warm.after_run() is None
    with _child(probe) as second:
        assert list(second.module.seen(found)) == []
    assert warm.after_run() is None


def test_a_child_s_system_v_ipc_objects_are_gone_before_the_next_child(warm, probe):
    with _child(probe) as first:
        *made, error = list(first.module.make_sysv_ipc())
        assert min(made) >= 0, f"a child cannot make System V IPC objects here (errno {error})"
        assert list(first.module.sysv_ipc_found()) == made and len(list(first.module.sysv_ipc_listed())) == 3
    assert warm.after_run() is None   # the zygote says nothing is left
    with _child(probe) as second:
        assert list(second.module.sysv_ipc_listed()) == []
        assert list(second.module.sysv_ipc_found()) == [-1, -1, -1]
    assert warm.after_run() is None
    for kind in ("shm", "sem", "msg"):   # the sandbox's own IPC namespace: none of it was ever the grader's
        keys = {row.split()[0] for row in Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]}
        assert not keys & {str(k) for k in range(0x5A7E0000, 0x5A7E0003)}


def test_a_child_at_its_own_cpu_limit_dies_of_sigxcpu_and_the_zygote_serves_the_next(warm, probe):
    # its RLIMIT_CPU as the zygote's child sets it (cpulimit.pair): soft 1 s, the fence 5 s above
    with _child(probe, cpu_seconds=1) as child:
        child.limit_cpu(60)   # the budget is far: the RLIMIT_CPU ends the call
        with pytest.raises(CandidateCrashed, match=r"\(died of SIGXCPU, killed at its own CPU-time limit"):
            child.module.burn(30)
    assert warm.after_run() is None
    with _child(probe) as second:
        assert second.module.burn(0.01) is True


def test_a_child_s_cpu_limit_is_under_the_asking_grader_s_own_as_a_fresh_start_s(warm, probe, monkeypatch):
    """The grader's hard RLIMIT_CPU (6 s here, as a mutant runner's grader fork has 35) is the
    child's ceiling, as ``confine`` makes it a fresh candidate's: soft 1 s, not the 900 s asked
    for (the zygote itself runs under a day's limit). Without it, a mutant spinning at load ran
    to the load's 60-s budget where a fresh start dies of SIGXCPU at 30."""
    monkeypatch.setattr(cpulimit, "own_hard_limit", lambda: 6)
    with _child(probe, cpu_seconds=900) as child:
        child.limit_cpu(60)   # the budget is far: the RLIMIT_CPU ends the call
        with pytest.raises(CandidateCrashed, match=r"\(died of SIGXCPU"):
            child.module.burn(30)
        assert child.cpu_seconds() < 5.5   # its soft limit, 1 s (the fence: 6)
    assert warm.after_run() is None


def test_a_grandchild_that_outlives_its_child_does_not_survive_into_the_next(warm, probe):
    with _child(probe) as first:
        pid = first.module.outlive()
        assert first.module.alive(pid)
        assert len(warm.cgroup.members() - warm.own) >= 2  # the child and its grandchild, outside too
    assert warm.cgroup.members() == warm.own  # the zygote ended it before it said the child was done
    assert warm.after_run() is None
    with _child(probe) as second:
        assert not second.module.alive(pid)


def test_a_child_killed_by_its_cpu_budget_leaves_nothing_and_its_cpu_is_counted(warm, probe):
    warm.cpu_seconds()
    with _child(probe) as child:
        start = child.cpu_seconds()
        assert start < 0.5  # a fork's start: no interpreter, numpy or server to import
        assert child.module.burn(0.6) is True
        used = child.cpu_seconds()
        assert used - start >= 0.55, (start, used)
        child.limit_cpu(0.5)
        with pytest.raises(CandidateTimeout, match="CPU-time limit"):
            child.module.burn(30)
    assert warm.cpu_seconds() >= used + 0.5  # the holder counts every child's CPU
    assert warm.after_run() is None
    with _child(probe) as next_child:
        assert next_child.module.burn(0.01) is True


def test_a_child_that_exhausts_the_memory_is_killed_and_the_zygote_serves_the_next(monkeypatch, probe):
    held = Zygote(Limits(cpu_seconds=3600, memory_mb=400)).start()
    monkeypatch.setenv(zygote.ZYGOTE_ENV, held.environment()[zygote.ZYGOTE_ENV])
    try:
        with _child(probe, memory_mb=400) as child:
            try:
                statuses = list(child.module.hog(4, 150))  # 600 MB in a cgroup of 400
                killed = [s for s in statuses if os.WIFSIGNALED(s) and os.WTERMSIG(s) == 9]
                assert killed, statuses
            except CandidateCrashed:
                pass  # the OOM killer took the child itself
        assert held.alive and held.after_run() is None
        with _child(probe) as next_child:
            assert next_child.module.burn(0.01) is True
        assert held.after_run() is None
    finally:
        _forget_links()
        held.close()
    assert not left_over(held.marker)


def test_a_grader_fork_that_dies_while_its_child_runs_leaves_a_zygote_that_serves_the_next(warm, probe):
    from harness.sandbox import channel

    abandoned = ZygoteCandidate(str(probe))
    abandoned.start()
    assert abandoned.forked
    channel.send(abandoned._sock, ["call", 1, "burn", [300], {}])  # the grader fork dies here, unanswered
    assert warm.after_run() is None  # its holder ended the child and the zygote says all is clean
    assert warm.cgroup.members() == warm.own
    abandoned._sock.close()
    # a dead grader fork never closes its candidate: its folder is removed with the fork's own
    # TMPDIR by whoever started it (harness.mutants.runner's per-run folder); here, by the test
    shutil.rmtree(abandoned._scratch)
    _forget_links()  # the next grader fork's own link
    with _child(probe) as next_child:
        assert next_child.module.burn(0.01) is True
    assert warm.after_run() is None


def test_a_dead_zygote_means_a_fresh_start_and_the_holder_says_why(warm, probe):
    warm.proc.kill()
    warm.proc.wait()
    # bubblewrap is reaped, but the zygote inside its PID namespace ends a moment later (its
    # parent's death signal, then the namespace's end): a fork asked for in that moment may be
    # served and then killed with the namespace (seen once in CI on 3.13 under load: the candidate
    # "died of SIGKILL during load"). "Dead" here means every process of the zygote's cgroup gone;
    # wall only as a backstop.
    deadline = time.monotonic() + 60
    while warm.cgroup.members() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not warm.cgroup.members(), "the zygote's processes outlived it by 60 s"
    with ZygoteCandidate(str(probe)) as candidate:  # the fallback: a fresh bubblewrap
        assert not candidate.forked and candidate.module.burn(0.01) is True
        assert candidate.load["mode"].startswith("bubblewrap")
    assert "ended" in (warm.after_run() or "")


def test_the_zygote_holds_no_candidate_and_a_student_s_candidate_is_never_forked(warm):
    # the zygote process imports no candidate: nothing of /tmp is on its sys.path, and a grader
    # process without the link (a student's check) gets the plain Candidate
    import harness.sandbox

    assert zygote.candidate_class() is ZygoteCandidate and harness.sandbox.Candidate is ZygoteCandidate
    os.environ.pop(zygote.ZYGOTE_ENV)
    from harness.sandbox.client import Candidate

    assert zygote.candidate_class() is Candidate and harness.sandbox.Candidate is Candidate
    cmdline = Path(f"/proc/{max(warm.own)}/cmdline").read_bytes()
    assert b"zygote_server" in cmdline and b"/tmp/" not in cmdline.replace(str(ROOT).encode(), b"")
    assert str(ROOT) in cmdline.decode()
