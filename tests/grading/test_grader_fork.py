"""The grader child forked from a warm check process (``harness.run.launch``) is the
process a new interpreter would be, and grades exactly the same (issue 23, item 4).

The oracle is the new interpreter itself (``isolated.command``, what ``check`` always
started before): the same probe, the same check run, once each way
(``CONSTRAIN_HARNESS_GRADER_FORK=0`` forces the new interpreter), compared field by field;
the probe also says which way it was started, so a comparison of two spawns cannot pass
for one."""

from __future__ import annotations

import copy
import json
import os
import re
import signal
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

from harness.run import launch as grader_launch
from harness.sandbox import isolated
from tests.support.helpers import CANDIDATES, ROOT, confined, seeded_cases

pytestmark = pytest.mark.e2e

PROBE = '''
import json, os, signal, sys, tempfile

def test_probe():
    command = open("/proc/self/cmdline", "rb").read().split(b"\\0")
    def kind(fd):   # what the descriptor is: a pipe, a socket, a file...
        try:
            link = os.readlink("/proc/self/fd/" + fd)
        except OSError:
            return "gone"
        return "file" if link.startswith("/") else link.split(":")[0]
    def stream(s):
        return [s.encoding, s.errors, s.line_buffering, s.write_through, type(s.buffer).__name__, s.fileno()]
    seen = {
        "forked": b"harness.run.launch" in command, "cwd": os.getcwd(), "env": dict(os.environ),
        "fds": sorted(int(fd) for fd in os.listdir("/proc/self/fd")), "session leader": os.getsid(0) == os.getpid(),
        "fd kinds": {fd: kind(fd) for fd in os.listdir("/proc/self/fd")},
        "argv": [os.path.basename(sys.argv[0])] + sys.argv[1:], "path": sys.path, "flags": list(sys.flags),
        "stdin": stream(sys.__stdin__), "stdout": stream(sys.__stdout__), "stderr": stream(sys.__stderr__),
        "signals": {s.name: str(signal.getsignal(s)) for s in signal.Signals
                    if s not in (signal.SIGKILL, signal.SIGSTOP)},
        "tmp": tempfile.gettempdir(), "hash": hash("grader"), "main": sys.modules["__main__"].__name__,
        "dont_write_bytecode": sys.dont_write_bytecode, "pytest imported as": sys.modules["pytest"].__file__,
        "threads with numpy": __import__("numpy") and len(os.listdir("/proc/self/task")),
    }
    seen["served"] = b"harness.run.forkserver" in command
    with open(os.environ["PROBE_OUT"] + ".ids", "w") as f:
        json.dump([os.getpid(), os.getppid()], f)
    with open(os.environ["PROBE_OUT"], "w") as f:
        json.dump(seen, f)
    print("probe printed this")
    ending = os.environ.get("PROBE_END", "")
    if ending == "exit":
        os._exit(7)
    if ending == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if ending == "sleep":
        import time
        time.sleep(600)
'''


def _launch(folder: Path, fork: str, end: str = "", extra: dict | None = None,
            caller: str = "isolated") -> tuple[int, dict, str]:
    """The probe run as check runs its grader child; (status, what it saw, its output). ``caller``
    "plain": the launcher is a process not started isolated (``python -m``), which cannot fork
    its own children (a test run's worker), so its warm server forks them (``harness.run.forkserver``)."""
    folder.mkdir()
    (folder / "test_probe.py").write_text(PROBE)
    env = isolated.environment({grader_launch.FORK_ENV: fork, "PROBE_OUT": str(folder / "seen.json"),
                                "PROBE_END": end, "TMPDIR": str(folder), **(extra or {})})
    log = folder / "log"
    args = (str(log), "-q", "-p", "no:cacheprovider", "test_probe.py")
    command = isolated.command("harness.run.launch", *args) if caller == "isolated" else \
        [sys.executable, "-s", "-B", "-X", "faulthandler", "-m", "harness.run.launch", *args]
    done = subprocess.run(command, env=env, cwd=folder, capture_output=True, timeout=300)
    seen = json.loads((folder / "seen.json").read_text().replace(json.dumps(str(folder))[1:-1], "<folder>"))
    del seen["env"][grader_launch.FORK_ENV]   # the one difference asked for
    output = re.sub(r" in \d+(\.\d+)?s\b", " in <time>", log.read_text()).replace(str(folder), "<folder>")
    return done.returncode, seen, output


@pytest.fixture(scope="module")
def spawned_probe(tmp_path_factory):
    """The oracle: the probe run by a launcher with forks off (a new interpreter), once a module
    for each ending; a copy of ``_launch``'s answer each time it is asked. Its launcher is started
    isolated: one started as ``python -m`` (the served tests' caller) with forks off starts the
    same new interpreter, whose probe was compared field by field with this one's (every field,
    its output and its status equal, with and without an ending; 2026-12-07)."""
    runs: dict[str, tuple[int, dict, str]] = {}

    def probe(end: str = "") -> tuple[int, dict, str]:
        if end not in runs:
            runs[end] = _launch(tmp_path_factory.mktemp("spawned") / "probe", "0", end)
        return copy.deepcopy(runs[end])
    return probe


def test_the_forked_grader_child_is_the_process_a_new_interpreter_would_be(tmp_path, spawned_probe):
    code_f, forked, out_f = _launch(tmp_path / "forked", "1")
    code_s, spawned, out_s = spawned_probe()
    assert (forked.pop("forked"), spawned.pop("forked")) == (True, False)
    assert forked.pop("served") is spawned.pop("served") is False
    assert forked == spawned
    assert (code_f, out_f) == (code_s, out_s) == (0, out_s)
    assert "1 passed" in out_f and forked["session leader"]


@pytest.mark.parametrize("end, status", [("exit", 7), ("kill", 128 + signal.SIGKILL)])
def test_a_forked_child_ends_as_a_new_interpreter_would(tmp_path, spawned_probe, end, status):
    code_f, forked, out_f = _launch(tmp_path / "forked", "1", end)
    code_s, spawned, out_s = spawned_probe(end)
    assert (forked["forked"], spawned["forked"]) == (True, False)
    assert code_f == code_s == status
    assert out_f == out_s   # block-buffered stdout: what the probe printed is lost the same way


def _gone(*pids: int) -> bool:
    """Whether every process of ``pids`` has ended (given up to 30 s of wall to go)."""
    deadline = time.monotonic() + 30
    while any(Path(f"/proc/{pid}").exists() and "Z" not in _state(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "Z"


@pytest.mark.parametrize("end, status", [("", 0), ("exit", 7), ("kill", 128 + signal.SIGKILL)])
def test_a_served_grader_child_is_the_process_a_new_interpreter_would_be(tmp_path, harness_unchanged, spawned_probe,
                                                                         end, status):
    """A launcher that cannot fork its own grader children (not started isolated: a test run's
    worker, a library caller) has them forked by its warm server: the same process as a new
    interpreter (the oracle: a launcher with forks off, ``spawned_probe``), the same output and
    status; once the launcher has ended, neither the child nor the server is left."""
    code_w, served, out_w = _launch(tmp_path / "served", "1", end, caller="plain")
    child, server = json.loads((tmp_path / "served" / "seen.json.ids").read_text())
    code_s, spawned, out_s = spawned_probe(end)
    assert (served.pop("served"), spawned.pop("served")) == (True, False)
    assert served.pop("forked") is spawned.pop("forked") is False
    assert served == spawned
    assert (code_w, out_w) == (code_s, out_s) and code_w == status
    assert _gone(child, server), "the served child or its server is still running"


def test_a_served_grader_child_ends_with_its_caller(tmp_path, harness_unchanged):
    """Its caller killed while the child runs (it sleeps): the server, whose channel closes, ends
    the child and itself."""
    folder = tmp_path / "caller"
    folder.mkdir()
    (folder / "test_probe.py").write_text(PROBE)
    env = isolated.environment({grader_launch.FORK_ENV: "1", "PROBE_OUT": str(folder / "seen.json"),
                                "PROBE_END": "sleep", "TMPDIR": str(folder)})
    caller = subprocess.Popen([sys.executable, "-s", "-B", "-X", "faulthandler", "-m", "harness.run.launch",
                               str(folder / "log"), "-q", "-p", "no:cacheprovider", "test_probe.py"],
                              env=env, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 300
        while not (folder / "seen.json").exists() and caller.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        child, server = json.loads((folder / "seen.json.ids").read_text())
        assert json.loads((folder / "seen.json").read_text())["served"] is True
        assert Path(f"/proc/{child}").exists()
    finally:
        caller.kill()
        caller.wait()
    assert _gone(child, server), "the served child or its server outlived its caller"


def test_only_a_process_started_isolated_forks(tmp_path):
    assert not grader_launch.forkable()   # this test process: not started by isolated.command
    _, seen, _ = _launch(tmp_path / "user-env", "1", extra={"PYTHONWARNINGS": "ignore"})
    assert seen["forked"] is seen["served"] is False   # a PYTHON* variable the new interpreter would drop:
    _, seen, _ = _launch(tmp_path / "threads", "1", extra={"OPENBLAS_NUM_THREADS": "2"})   # never forked
    assert seen["forked"] is seen["served"] is False   # BLAS threads other than isolated.ONE_THREAD_ENV's


def _comparable(path: Path) -> dict:
    doc = json.loads(path.read_text())
    doc.pop("duration")
    for test in doc["tests"]:
        test.pop("duration")
    for child in doc["children"]:
        child.pop("seconds")
        child["output_tail"] = re.sub(r" in \d+(\.\d+)?s\b", " in <time>", child["output_tail"])
    return doc


FORKED_CASES = [
    ((ROOT / "oracles" / "automaton", "test_hand_example,test_canonical_form,test_vocab_bytes"), "reference"),
    ((CANDIDATES / "wrong_numbering.py", "test_hand_example,test_canonical_form"), "wrong_numbering"),
    ((CANDIDATES / "exits_os.py", "test_hand_example,test_hand_example_masks,test_canonical_form"), "exits_os"),
    ((CANDIDATES / "crashes_interpreter.py", "test_hand_example,test_vocab_bytes"), "crashes_interpreter"),
    ((CANDIDATES / "floods_stdout.py", "test_hand_example"), "floods_stdout"),
]
"""The candidates check grades with its grader child forked and spawned (``tests/candidates/README.md``)."""


def forked_case_kinds(candidate: Path, only: str) -> set[str]:
    """The grader child's paths a case of ``FORKED_CASES`` takes: its candidate's verdicts
    ("verdicts": passed or failed, the candidate alive throughout), its candidate's process ended
    mid-test and started afresh ("restart": ``os._exit``, SIGSEGV), 200 MB printed ("flood"), and a
    selection on both sides of the split, so a twin grader child runs ("twin")."""
    kinds = {"restart"} if candidate.name in ("exits_os.py", "crashes_interpreter.py") else \
        {"flood"} if candidate.name == "floods_stdout.py" else {"verdicts"}
    return kinds | ({"twin"} if "test_vocab_bytes" in only.split(",") else set())


def pytest_generate_tests(metafunc):
    if metafunc.definition.name == "test_check_grades_the_same_with_its_grader_child_forked":
        metafunc.parametrize("candidate, only", seeded_cases(metafunc.config, FORKED_CASES, forked_case_kinds,
                                                             draw="grader_fork.forked"))


def _check_entry_command(candidate: Path, only: str, report: Path) -> list[str]:
    """check of ``candidate`` on the tests ``only`` as a job started as ``python -m`` (not isolated)."""
    return [sys.executable, "-s", "-B", "-X", "faulthandler", "-m", "harness.commands.check_entry", "--impl",
            str(candidate), "--only", only, "--timeout", "10", "--json", str(report)]


@pytest.fixture(scope="module")
def spawned_check(tmp_path_factory):
    """The oracle of the check comparisons below: check of (candidate, only) with forks off, each
    grader child a new interpreter, as a job started as ``python -m`` and watched; (its status,
    whether a warm server of it forked a child, its report without timings), once a module per
    (candidate, only): the forked and the served comparisons of the reference and of
    crashes_interpreter share it. With forks off, the same job started isolated writes the same
    report with the same status (compared, 2026-12-07: crashes_interpreter, a test of each half)."""
    runs: dict[tuple[str, str], tuple[int, bool, dict]] = {}

    def check(candidate: Path, only: str) -> tuple[int, bool, dict]:
        if (str(candidate), only) not in runs:
            folder = tmp_path_factory.mktemp("spawned-check")
            report = folder / "report-0.json"
            code, served = _check_entry_watched(_check_entry_command(candidate, only, report),   # no server
                                                isolated.environment({grader_launch.FORK_ENV: "0"}), folder,
                                                poll=0.05)   # is started: nothing to catch at 5 ms
            runs[str(candidate), only] = code, served, _comparable(report)
        return copy.deepcopy(runs[str(candidate), only])
    return check


@confined
def test_check_grades_the_same_with_its_grader_child_forked(tmp_path, spawned_check, candidate, only):
    """Each candidate graded by check with its grader child forked (started isolated) and spawned
    (``spawned_check``): the same report. The default run grades a sample drawn from the run's
    seed that takes every path of ``forked_case_kinds`` (3 or 4 of the 5 candidates: the floods,
    a verdicts and a restart candidate, and a twin's when neither drawn has one); ``-m slow``
    grades all five."""
    report = tmp_path / "report-1.json"
    done = subprocess.run(isolated.command("harness.commands.check_entry", "--impl", str(candidate), "--only",
                                           only, "--timeout", "10", "--json", str(report)),
                          env=isolated.environment({grader_launch.FORK_ENV: "1"}), cwd=tmp_path, capture_output=True,
                          timeout=600)
    forked = _comparable(report)
    code, _, spawned = spawned_check(candidate, only)
    assert done.returncode == code
    assert forked == spawned
    assert forked["tests"] and all(t["status"] != "not run" for t in forked["tests"])


def _check_entry_watched(command: list[str], env: dict[str, str], cwd: Path, poll: float = 0.005) -> tuple[int, bool]:
    """Run ``command`` (a check job); (its status, whether a warm server of it forked a child),
    its children looked at every ``poll`` s."""
    proc = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    served = False
    while proc.poll() is None:
        try:
            for pid in Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split():
                if b"harness.run.forkserver" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    served |= bool(Path(f"/proc/{pid}/task/{pid}/children").read_text().split())
        except OSError:
            pass
        time.sleep(poll)
    return proc.wait(), served


@confined
@pytest.mark.parametrize("candidate, only", [
    (ROOT / "oracles" / "automaton", "test_hand_example,test_canonical_form,test_vocab_bytes"),
    (CANDIDATES / "crashes_interpreter.py", "test_hand_example,test_vocab_bytes"),
])
def test_check_grades_the_same_with_its_grader_children_served(tmp_path, harness_unchanged, spawned_check,
                                                               candidate, only):
    """A check job that cannot fork its own grader children (started as ``python -m``) has its warm
    server fork them (a twin, and a crash's restart): the same report as with each a new interpreter
    (``spawned_check``: the same job with forks off, whose server forks nothing)."""
    if not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists():
        pytest.skip("this kernel lists no process's children in /proc (CONFIG_PROC_CHILDREN)")
    report = tmp_path / "report-1.json"
    code_w, served_w = _check_entry_watched(_check_entry_command(candidate, only, report),
                                            isolated.environment({grader_launch.FORK_ENV: "1"}), tmp_path)
    served = _comparable(report)
    code_s, served_s, spawned = spawned_check(candidate, only)
    assert (served_w, served_s) == (True, False)
    assert code_w == code_s
    assert served == spawned
    assert served["tests"] and all(t["status"] != "not run" for t in served["tests"])


def test_the_launcher_refuses_nothing_silently():
    done = subprocess.run([sys.executable, "-m", "harness.run.launch"], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 2 and "usage" in done.stderr


def _console_script_run(tmp_path: Path, name: str, env: dict[str, str]) -> tuple[subprocess.CompletedProcess, dict]:
    """``constrain-harness check`` as a user runs it (the console script), of the reference: a
    test of each half (so a twin runs too), a fixed seed; what its process and its children's
    command lines showed while it ran: ``again`` (it ran again isolated: the boot code in its
    own command line), ``forks`` (children with its command line that started processes of
    their own, the candidate's: grader children forked; a child between a ``subprocess``
    fork and its exec shows the parent's command line too, but starts nothing)."""
    script = Path(sysconfig.get_path("scripts")) / "constrain-harness"
    if not script.exists():
        pytest.skip("no constrain-harness console script installed beside this interpreter")
    if not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists():
        pytest.skip("this kernel lists no process's children in /proc (CONFIG_PROC_CHILDREN)")
    report = tmp_path / f"{name}.json"
    proc = subprocess.Popen([str(script), "check", "--only", "test_hand_example,test_vocab_bytes", "--seed", "7",
                             "--json", str(report)], env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    seen = {"again": False, "forks": set()}
    children_file = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    while proc.poll() is None:
        try:
            own = Path(f"/proc/{proc.pid}/cmdline").read_bytes()
            children = children_file.read_text().split()
        except OSError:
            continue
        seen["again"] |= b"faulthandler" in own and b"harness.cli" in own
        for child in children:
            try:
                if (Path(f"/proc/{child}/cmdline").read_bytes() == own
                        and Path(f"/proc/{child}/task/{child}/children").read_text().split()):
                    seen["forks"].add(child)
            except OSError:
                pass
        time.sleep(0.005)
    output = proc.stdout.read().decode()
    proc.stdout.close()
    return subprocess.CompletedProcess(proc.args, proc.wait(), output), {**seen, "report": _comparable(report)}


@confined
def test_check_by_hand_runs_again_isolated_and_forks_its_grader_children(tmp_path):
    """The console script in a user's plain environment (``PYTHONUNBUFFERED`` too, which the
    run again gives back) runs again isolated and forks its grader children; with forks off
    (``CONSTRAIN_HARNESS_GRADER_FORK=0``) it runs as started, each child a new interpreter;
    both print and report the same."""
    plain = {k: v for k, v in os.environ.items() if not k.startswith(isolated.DROPPED_PREFIXES)}
    plain.pop(grader_launch.FORK_ENV, None)
    plain["PYTHONUNBUFFERED"] = "1"
    done_f, forked = _console_script_run(tmp_path, "forked", plain)
    done_s, spawned = _console_script_run(tmp_path, "spawned", {**plain, grader_launch.FORK_ENV: "0"})
    assert (forked["again"], spawned["again"]) == (True, False)
    assert len(forked["forks"]) == 2 and not spawned["forks"]   # the main grader child and its twin
    assert done_f.returncode == done_s.returncode == 0
    assert forked["report"] == spawned["report"]

    def timeless(text: str) -> str:
        text = re.sub(r"wall limit: .*", "wall limit: <calibrated>", text)
        return re.sub(r"\(\d+(\.\d+)? s\)", "(<time>)", text)
    assert timeless(done_f.stdout) == timeless(done_s.stdout)
    assert "2 tests: 2 passed" in done_f.stdout
