"""The grader child forked from a warm check process (``harness.run.launch``) is the
process a new interpreter would be, and grades exactly the same (issue 23, item 4).

The oracle is the new interpreter itself (``isolated.command``, what ``check`` always
started before): the same probe, the same check run, once each way
(``CONSTRAIN_HARNESS_GRADER_FORK=0`` forces the new interpreter), compared field by field;
the probe also says which way it was started, so a comparison of two spawns cannot pass
for one."""

from __future__ import annotations

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
from tests.support.helpers import CANDIDATES, ROOT, confined

pytestmark = pytest.mark.e2e

PROBE = '''
import json, os, signal, sys, tempfile

def test_probe():
    command = open("/proc/self/cmdline", "rb").read().split(b"\\0")
    def stream(s):
        return [s.encoding, s.errors, s.line_buffering, s.write_through, type(s.buffer).__name__, s.fileno()]
    seen = {
        "forked": b"harness.run.launch" in command, "cwd": os.getcwd(), "env": dict(os.environ),
        "fds": sorted(int(fd) for fd in os.listdir("/proc/self/fd")), "session leader": os.getsid(0) == os.getpid(),
        "argv": [os.path.basename(sys.argv[0])] + sys.argv[1:], "path": sys.path, "flags": list(sys.flags),
        "stdin": stream(sys.__stdin__), "stdout": stream(sys.__stdout__), "stderr": stream(sys.__stderr__),
        "signals": {s.name: str(signal.getsignal(s)) for s in signal.Signals
                    if s not in (signal.SIGKILL, signal.SIGSTOP)},
        "tmp": tempfile.gettempdir(), "hash": hash("grader"), "main": sys.modules["__main__"].__name__,
        "dont_write_bytecode": sys.dont_write_bytecode, "pytest imported as": sys.modules["pytest"].__file__,
        "threads with numpy": __import__("numpy") and len(os.listdir("/proc/self/task")),
    }
    with open(os.environ["PROBE_OUT"], "w") as f:
        json.dump(seen, f)
    print("probe printed this")
    ending = os.environ.get("PROBE_END", "")
    if ending == "exit":
        os._exit(7)
    if ending == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
'''


def _launch(folder: Path, fork: str, end: str = "", extra: dict | None = None) -> tuple[int, dict, str]:
    """The probe run as check runs its grader child; (status, what it saw, its output)."""
    folder.mkdir()
    (folder / "test_probe.py").write_text(PROBE)
    env = isolated.environment({grader_launch.FORK_ENV: fork, "PROBE_OUT": str(folder / "seen.json"),
                                "PROBE_END": end, "TMPDIR": str(folder), **(extra or {})})
    log = folder / "log"
    done = subprocess.run(isolated.command("harness.run.launch", str(log), "-q", "-p", "no:cacheprovider",
                                           "test_probe.py"), env=env, cwd=folder, capture_output=True, timeout=300)
    seen = json.loads((folder / "seen.json").read_text().replace(json.dumps(str(folder))[1:-1], "<folder>"))
    del seen["env"][grader_launch.FORK_ENV]   # the one difference asked for
    output = re.sub(r" in \d+(\.\d+)?s\b", " in <time>", log.read_text()).replace(str(folder), "<folder>")
    return done.returncode, seen, output


def test_the_forked_grader_child_is_the_process_a_new_interpreter_would_be(tmp_path):
    code_f, forked, out_f = _launch(tmp_path / "forked", "1")
    code_s, spawned, out_s = _launch(tmp_path / "spawned", "0")
    assert (forked.pop("forked"), spawned.pop("forked")) == (True, False)
    assert forked == spawned
    assert (code_f, out_f) == (code_s, out_s) == (0, out_s)
    assert "1 passed" in out_f and forked["session leader"]


@pytest.mark.parametrize("end, status", [("exit", 7), ("kill", 128 + signal.SIGKILL)])
def test_a_forked_child_ends_as_a_new_interpreter_would(tmp_path, end, status):
    code_f, forked, out_f = _launch(tmp_path / "forked", "1", end)
    code_s, spawned, out_s = _launch(tmp_path / "spawned", "0", end)
    assert (forked["forked"], spawned["forked"]) == (True, False)
    assert code_f == code_s == status
    assert out_f == out_s   # block-buffered stdout: what the probe printed is lost the same way


def test_only_a_process_started_isolated_forks(tmp_path):
    assert not grader_launch.forkable()   # this test process: not started by isolated.command
    _, seen, _ = _launch(tmp_path / "user-env", "1", extra={"PYTHONWARNINGS": "ignore"})
    assert seen["forked"] is False   # a PYTHON* variable the new interpreter would drop: never forked
    _, seen, _ = _launch(tmp_path / "threads", "1", extra={"OPENBLAS_NUM_THREADS": "2"})
    assert seen["forked"] is False   # BLAS threads other than isolated.ONE_THREAD_ENV's: never forked


def _comparable(path: Path) -> dict:
    doc = json.loads(path.read_text())
    doc.pop("duration")
    for test in doc["tests"]:
        test.pop("duration")
    for child in doc["children"]:
        child.pop("seconds")
        child["output_tail"] = re.sub(r" in \d+(\.\d+)?s\b", " in <time>", child["output_tail"])
    return doc


@confined
@pytest.mark.parametrize("candidate, only", [
    (ROOT / "oracles" / "automaton", "test_hand_example,test_canonical_form,test_vocab_bytes"),
    (CANDIDATES / "wrong_numbering.py", "test_hand_example,test_canonical_form"),
    (CANDIDATES / "exits_os.py", "test_hand_example,test_hand_example_masks,test_canonical_form"),
    (CANDIDATES / "crashes_interpreter.py", "test_hand_example,test_vocab_bytes"),
    (CANDIDATES / "floods_stdout.py", "test_hand_example"),
])
def test_check_grades_the_same_with_its_grader_child_forked(tmp_path, candidate, only):
    reports, codes = {}, {}
    for fork in ("1", "0"):
        report = tmp_path / f"report-{fork}.json"
        env = isolated.environment({grader_launch.FORK_ENV: fork})
        done = subprocess.run(isolated.command("harness.commands.check_entry", "--impl", str(candidate), "--only",
                                               only, "--timeout", "10", "--json", str(report)),
                              env=env, cwd=tmp_path, capture_output=True, timeout=600)
        codes[fork], reports[fork] = done.returncode, _comparable(report)
    assert codes["1"] == codes["0"]
    assert reports["1"] == reports["0"]
    assert reports["1"]["tests"] and all(t["status"] != "not run" for t in reports["1"]["tests"])


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
