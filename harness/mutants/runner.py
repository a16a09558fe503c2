"""Run mutants: each in its own process, with a timeout, expected killers first.

Every mutant runs behind the wall, as any candidate (``harness.sandbox``: the catalogue's
plugin and ``replay_child`` start a confined candidate process for it).

For a catalogue mutant: run the catalogue (``harness/suite``) against the mutant's
package with only its expected killers (``-k``); if none fails, run the rest of the
catalogue to learn whether some other test kills it. For a replay mutant: replay
``constrain_golden.json`` against it (``harness.mutants.replay_child``) and read
which checks failed; for a tool-surface mutant (``l10_9:s12``-``s16``, a copy of
``oracles/tools``) the same with ``tools_golden.json`` (``replay_child --tools``).
With ``first_kill`` (``run_mutant``, ``run_all``; the test suite's run) each stops at
the first test or check that kills the mutant, its expected killers first: the same
verdicts for a tenth of the CPU (``docs/mutants-runs.md``, "The catalogue's run, and its first kill").

For a generated mutant (``harness.mutants.generation``, ``run_generated``): the whole
default tier; a survivor is checked for equivalence (the triage list; then the corpus,
``equivalence``; then, equal there, its module's exhaustive domain, ``evidence``) and,
unless equivalent, runs the deep pass: ``check --deep --strict``, the whole
catalogue with the contract's decisions graded (``harness.suite.tiers``) and the deep
properties. The result's ``tier`` says which pass killed it ("default", "deep" for the
deep pass, "load" when the catalogue refused to load the mutant, which ``check``
reports as a failure). A mutant that only departs from a contract decision the spec
does not state (an error class, an input shape beyond the spec) passes the default
tier by design, so it can only be killed in the deep pass.

Outcomes (``Outcome``): killed (by an expected test or, reported apart, only by
others), survived, equivalent (a generated survivor that behaves like the reference on the
corpus and on an exhaustive domain, its ``evidence`` recorded: ``harness.mutants.evidence``;
or so reviewed by hand), survived (unproven) (equal on the corpus, but no domain or the
check undecided: not killed, never equivalent), timeout, error (the runner failed, not the
mutant: never a kill), stale (the patch no longer applies).

A generated mutant's pass whose verdict may be the harness's (a runner failure, a grader fork
killed from outside, a load that crashed or was refused, a kill resting only on tests that
errored outside their call) is run once more and the second run decides (``_catalogue_pass``,
``_suspect``); suspect twice, it is "error" with both reasons (``HARNESS_ERROR``), and the
result's ``retried`` keeps why. A load the candidate's own CPU or memory limit killed (the grader
read it from the candidate's cgroup: ``at_its_own_limit``) is the mutant's verdict and runs once. A
survivor's deep pass runs only what the default tier left open (``settled``): the default tests
that passed with no note behave the same under ``--strict`` and are not run again.

A compile-path mutant's evidence child takes from the reference the stages of ``regex_to_dfa``
its module cannot reach, and the token masks of a DFA whose tables are the reference's (``Plan.reuse``,
``harness.mutants.stage_memo``: decided in ``plan``).

Before anything runs (``run_all``, ``_settle_by_bytecode``): a generated mutant whose compiled
module is the reference's is equivalent with evidence "identical bytecode", and one whose compiled
module is an earlier mutant's gets that mutant's verdict, recorded as its duplicate
(``harness.mutants.identical_bytecode``: Trivial Compiler Equivalence).

Every catalogue run goes through ``run_catalogue_against`` (one place to change how a
candidate is run).

Time: CPU seconds decide, never the wall clock (a loaded machine changes no outcome).
Each child process has ``RLIMIT_CPU`` (``timeout``); inside a catalogue run each test's
calls into the mutant have a budget of ``test_cpu_seconds(timeout)`` CPU seconds of the
candidate's process tree (the plugin's ``--timeout``, ``harness.sandbox.client``), and
the run's draws are the catalogue's own (``--seed 0``, ``harness.suite.seeding``). The wall
clock is only a backstop, ``WALL_FACTOR`` times all the CPU the run may use, for a child
that sleeps or blocks; on a loaded machine a run stopped by it is run once more before
"timeout" stands.

The runner checks itself before scoring (``self_check``): the clean copy of the
reference must pass every expected killer (no false kills), and a forced failure
(a copy whose ``regex_to_dfa`` raises) must be killed.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import enum
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

from harness.fanout.executor import Task
from harness.mutants import warm
from harness.mutants.apply import PatchDoesNotApply, materialize
from harness.mutants.catalogue import CATALOGUE, MUTANTS, REPLAY, TOOLS_REPLAY, Edit, Mutant
from harness.policy import BACKSTOP_FACTOR, POLICY
from harness.run import CatalogueRun
from harness.run.launch import pytest_arguments
from harness.sandbox import cputime, lending, wording
from harness.sandbox.cpulog import CPU_LOG, read_cpu_log
from harness.suite.catalogue import DEEP_NAMES, NAMES

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_TIMEOUT = 120.0          # CPU seconds per child process (see ``_run``)
GENERATED_TIMEOUT = 30.0         # the deep tier takes about 13 CPU seconds on the reference


class Outcome(enum.Enum):
    KILLED = "killed"
    SURVIVED = "survived"
    TIMEOUT = "timeout"
    ERROR = "error"
    STALE = "patch no longer applies"
    EQUIVALENT = "equivalent"
    NOT_COVERED = "not covered"   # a generated mutant no test of its passes executes (mutmut's "no tests")
    UNPROVEN = "survived (unproven)"  # a generated survivor equal on the corpus, with no evidence of equivalence


@dataclasses.dataclass
class MutantResult:
    id: str
    outcome: Outcome
    expected: tuple[str, ...]
    killed_by: list[str]
    tests: dict[str, str]            # test or check -> "passed" / "failed" / "error" / "skipped"
    seconds: float
    detail: str = ""
    tier: str = ""                   # generated mutants: "default", "deep" or "load" (what killed it)
    evidence: dict | None = None     # an equivalent's evidence: {"kind", "domain", "size"} (``evidence.summary``)
    retried: str = ""                # generated mutants: why a pass was run again (the harness's failure), or ""
    scope: str = ""                  # generated mutants: "spec" or "outside the spec: <reason>" (``scope.classify``;
    #                                  decided in ``plan``, written by ``run_all``; never changes the outcome); "": none

    @property
    def by_expected(self) -> bool:
        return any(t in self.expected for t in self.killed_by)


NULL_MUTANT = Mutant("null", "-", "the clean reference: no test may kill it", (), (), lambda m: None)
FORCED_FAILURE = Mutant(
    "forced", "compile", "regex_to_dfa always raises: every test must fail", (),
    (Edit("compile.py", "    tree = parse(pattern)\n", "    raise RuntimeError('forced failure')\n"),),
    lambda m: None)
NULL_TOOLS_MUTANT = Mutant("null_tools", "-", "the clean tools reference: no check may kill it", (), (), lambda m: None,
                           kind=TOOLS_REPLAY)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # the catalogue needs no third-party plugin
    env[lending.LEND_VARIABLE] = "1"  # a mutant is the staff's copy of the reference (a tools mutant imports it)
    return env


WALL_FACTOR = BACKSTOP_FACTOR  # wall-clock backstop, in multiples of the CPU a run may use
TEST_SHARE = 3  # a test's budget is a third of the run's CPU limit (at most the policy's)
CATALOGUE_SEED = 0  # the mutants' catalogue draws: the constants the survivors were recorded with


def test_cpu_seconds(timeout: float) -> float:
    """The CPU budget of one catalogue test's calls into a mutant, under a run limit of ``timeout``."""
    return min(POLICY.test_cpu_seconds, timeout / TEST_SHARE)


def _limit_cpu(seconds: float) -> Callable[[], None]:
    def limit() -> None:
        import resource

        soft = max(1, int(seconds))
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 5))
    return limit


def _run(cmd: list[str], timeout: float, candidate_cpu: float = 0.0,
         env: dict[str, str] | None = None, zygote: bool = False) -> tuple[int | None, str]:
    """Run ``cmd``: (exit code, output), or (None, "") past ``timeout`` CPU seconds, or (None, a
    ``HARNESS_ERROR`` reason) when a warm fork was killed from outside (``_killed_from_outside``).

    The limit is on CPU time (``RLIMIT_CPU``: SIGXCPU, then SIGKILL), so a loaded machine
    never turns a slow run into a timeout; ``WALL_FACTOR`` times all the CPU the run may
    use (its own ``timeout`` and the candidates' ``candidate_cpu``) bounds the wall time,
    and a run that reaches that backstop on a loaded machine is run once more. A catalogue
    run (``python -m pytest ...``) forks this thread's warm grader instead (``warm.WARM``), its
    candidate processes forks of that grader's zygote with ``zygote`` (``harness.sandbox.zygote``).
    """
    with grader_tmp() as folder:
        env = {**(env or {}), "TMPDIR": folder}
        if warm.WARM and cmd[1:2] == ["-m"] and cmd[2] in warm.MODULES:
            return _run_warm(cmd[2], cmd[3:], timeout, candidate_cpu, env, zygote)
        return _run_cold(cmd, timeout, candidate_cpu, env)


def _run_cold(cmd: list[str], timeout: float, candidate_cpu: float, env: dict[str, str]) -> tuple[int | None, str]:
    """``_run`` in a new process (``python ...``), as before the warm graders."""
    for attempt in (1, 2):
        try:
            proc = subprocess.run(cmd, cwd=ROOT, env={**_env(), **env}, capture_output=True, text=True,
                                  timeout=(timeout + candidate_cpu) * WALL_FACTOR, preexec_fn=_limit_cpu(timeout))
            break
        except subprocess.TimeoutExpired:
            if attempt == 2 or not cputime.machine_loaded():
                return None, ""
    if proc.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return None, ""
    return proc.returncode, proc.stdout + proc.stderr


_GRADER_TMP: dict = {"root": None, "runs": 0, "pid": 0}   # this process's root of the grader runs' TMPDIRs,
#                                                          the runs in it now, the process that made it
_GRADER_TMP_LOCK = threading.Lock()


@contextlib.contextmanager
def grader_tmp():
    """A folder of its own for one grader run, its ``TMPDIR`` (``_run``), removed after the run
    however the run ended: a grader killed at its CPU limit or backstop before its candidate
    client closed leaves that client's folder (``constrain-candidate-*``) here, not in the
    machine's ``/tmp``. The folders are made under one root per process, which ``run_all`` removes
    at its end (``remove_grader_tmp``), as ``check`` gives its grader child a folder of its own."""
    with _GRADER_TMP_LOCK:
        root = _GRADER_TMP["root"]
        if root is None or not os.path.isdir(root) or _GRADER_TMP["pid"] != os.getpid():
            root = _GRADER_TMP["root"] = tempfile.mkdtemp(prefix="constrain-mutants-tmp-")
            _GRADER_TMP["runs"], _GRADER_TMP["pid"] = 0, os.getpid()
        _GRADER_TMP["runs"] += 1
    try:
        folder = tempfile.mkdtemp(prefix="run-", dir=root)
        try:
            yield folder
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    finally:
        with _GRADER_TMP_LOCK:
            _GRADER_TMP["runs"] -= 1


def remove_grader_tmp() -> None:
    """Remove the root of ``grader_tmp``'s folders unless a grader run is using it now (a later
    run makes another), or another process made it (a fork's copy of the maker's name); at
    ``run_all``'s end and at this process's exit (a caller of ``_run`` that runs no ``run_all``)."""
    with _GRADER_TMP_LOCK:
        root = _GRADER_TMP["root"]
        if root is None or _GRADER_TMP["runs"] or _GRADER_TMP["pid"] != os.getpid():
            return
        _GRADER_TMP["root"] = None
    shutil.rmtree(root, ignore_errors=True)


atexit.register(remove_grader_tmp)


WARM_CPU = [0.0]   # CPU seconds of the warm graders' children (not in this process's RUSAGE_CHILDREN)
CANDIDATE_CPU = [0.0]   # of WARM_CPU, the confined candidates' (their CPU log): no RUSAGE_CHILDREN ever holds it
_WARM_CPU_LOCK = threading.Lock()
_TASK_CPU = threading.local()   # this thread's warm runs' CPU seconds since the task began (``task_cpu``)


def task_cpu(reset: bool = False) -> float:
    """CPU seconds of this thread's warm-grader runs since the last reset (the task's own cost,
    whatever else the machine runs; cold runs are not counted)."""
    seconds = getattr(_TASK_CPU, "seconds", 0.0)
    if reset:
        _TASK_CPU.seconds = 0.0
    return seconds


def _run_warm(module: str, argv: list[str], timeout: float, candidate_cpu: float,
              env: dict[str, str] | None, zygote: bool = False) -> tuple[int | None, str]:
    """``_run`` of ``python -m MODULE ARGV`` in a fork of this thread's warm grader (``warm``): the
    same limits (``RLIMIT_CPU`` ``timeout``, the wall backstop, once more on a loaded machine).
    With ``zygote``, the candidates are forks of the warm grader's zygote: their CPU is its
    cgroup's (``zygote_cpu``), and where it stopped the run says so once (``zygote_off``)."""
    with tempfile.NamedTemporaryFile("rb", suffix=".out", delete=False) as f:
        output_path = f.name
    cpu_log = output_path[:-len(".out")] + ".cpu"
    try:
        for attempt in (1, 2):
            run_env = {**_env(), **(env or {}), CPU_LOG: cpu_log}
            reply = warm.server(_env(), str(ROOT)).run(argv, run_env, str(ROOT), timeout,
                                                       (timeout + candidate_cpu) * WALL_FACTOR, output_path,
                                                       module=module, zygote=zygote)
            # the candidates' CPU: no getrusage sees it (the fresh ones log it; the zygote's cgroup counts its forks)
            candidates = read_cpu_log(cpu_log) + reply.get("zygote_cpu", 0.0)
            _say_zygote_off(reply.get("zygote_off"))
            cpu = reply["cpu"] + candidates
            with _WARM_CPU_LOCK:
                WARM_CPU[0] += cpu
                CANDIDATE_CPU[0] += candidates
            _TASK_CPU.seconds = getattr(_TASK_CPU, "seconds", 0.0) + cpu
            if not reply["backstop"] or attempt == 2 or not cputime.machine_loaded():
                break
        with open(output_path, "rb") as out:
            output = out.read().decode("utf-8", "replace")
    finally:
        os.unlink(output_path)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(cpu_log)
    killed = _killed_from_outside(reply, timeout) or (_zygote_died(reply.get("zygote_off")) if zygote else "")
    if killed:
        return None, killed
    if reply["backstop"] or reply["code"] in (-signal.SIGXCPU, -signal.SIGKILL):
        return None, ""
    return reply["code"], output


_ZYGOTE_SAID: list[str] = []


def _say_zygote_off(why: str | None) -> None:
    """Say once in the run that the zygote stopped and candidates start fresh (``why``)."""
    with _WARM_CPU_LOCK:
        if why is None or _ZYGOTE_SAID:
            return
        _ZYGOTE_SAID.append(why)
    print(f"mutants: the zygote is off ({why}): candidate processes start fresh from here on", file=sys.stderr)


HARNESS_ERROR = "harness error: "
"""The prefix of a run's problem that is the harness's failure, not the mutant's (``_run`` answers
(None, such a problem) instead of (None, "") for a timeout): never a kill (``run_generated``)."""


def _killed_from_outside(reply: dict, timeout: float) -> str:
    """A warm fork's death by a signal below its ``RLIMIT_CPU`` soft limit: not its CPU limit (that
    sends SIGXCPU at the soft limit, SIGKILL only past it) nor the backstop, so something outside
    the run killed it (a person, the kernel's OOM killer for the grader): the reason, or ""."""
    if reply["backstop"] or reply["code"] is None or reply["code"] >= 0:
        return ""
    soft = max(1, int(timeout))
    if reply["code"] == -signal.SIGXCPU or reply["cpu"] >= soft:
        return ""
    try:
        name = signal.Signals(-reply["code"]).name
    except ValueError:
        name = f"signal {-reply['code']}"
    return f"{HARNESS_ERROR}the grader child was killed by {name} after {reply['cpu']:.2f} CPU s " \
           f"(its CPU limit {soft} s)"


ZYGOTE_DIED = ("the zygote process ended", "the zygote stopped answering")
"""How ``Zygote.after_run`` says the zygote itself died or hung (not that it could not start, nor
that a child left something behind): the candidate processes it forked in that run died with it
(SIGKILL, its PID namespace gone), so a test they "crashed" is the harness's doing, not the mutant's."""


def _zygote_died(off: str | None) -> str:
    """A run whose zygote died during it (``ZYGOTE_DIED``): a ``HARNESS_ERROR`` reason, so the pass is
    run once more with fresh candidates (``_catalogue_pass``) and the second run decides; else ""."""
    if off is None or not off.startswith(ZYGOTE_DIED):
        return ""
    return f"{HARNESS_ERROR}the zygote died during the run ({off}): its candidates with it"


def _stopped(output: str) -> str:
    """The problem of a run ``_run`` stopped (its code None): a harness error it names, else "timeout"."""
    return output if output.startswith(HARNESS_ERROR) else "timeout"


def run_catalogue(package: Path, tests: tuple[str, ...] | None, timeout: float) -> tuple[dict[str, str], str | None]:
    """Run catalogue tests against ``package``: (test -> outcome, problem or None)."""
    return run_catalogue_against(package, tests, False, timeout)


def run_catalogue_against(package_dir: Path, tests: tuple[str, ...] | None, deep: bool,
                          timeout: float, strict: bool = False, first_kill: bool = False,
                          plugins: tuple[str, ...] = (), env: dict[str, str] | None = None,
                          run_seed: int = CATALOGUE_SEED,
                          records: dict[str, dict] | None = None,
                          zygote: bool = False, budgets: dict | None = None) -> tuple[dict[str, str], str | None]:
    """Run the catalogue (``tests`` only, when given; with the deep properties when ``deep``;
    grading the contract's decisions when ``strict``; stopping at the first test that fails
    when ``first_kill``) against the package at ``package_dir`` in a child process, with more
    pytest ``plugins`` and ``env`` when given, its draws made under ``run_seed``
    (``harness.suite.seeding``; the seed-stability measure, ``harness.mutants.stability``,
    runs every seed it lists): (test -> outcome, problem or None). ``records``, when given, is
    filled with each test's result record (``harness.suite.plugin``: its ``reason``, ``notes``).
    ``zygote``: the candidate processes are forks of the warm grader's zygote (generated mutants:
    ``harness.sandbox.zygote``; a fresh start where it cannot serve). ``budgets`` (``Plan.budgets``,
    ``harness.mutants.budgets``): each test's CPU budget and the load's, calibrated from the
    reference's (None: ``test_cpu_seconds(timeout)`` for every test, the policy's for the load).

    ``problem`` is "timeout", or the reason the catalogue could not load the package
    (prefixed "load: "), or a runner failure (a grader killed from outside: prefixed
    ``HARNESS_ERROR``); None when the tests ran.
    """
    package = package_dir
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl", delete=False) as f:
        results_path = f.name
    test_cpu = test_cpu_seconds(timeout)
    run = catalogue_run(package, tests, deep, timeout, strict, run_seed, budgets, results_path)
    cmd = [sys.executable, "-m", "pytest", *pytest_arguments(run)]
    if first_kill:
        cmd.append("-x")
    for plugin in plugins:
        cmd += ["-p", plugin]
    try:
        deep_tests = len(DEEP_NAMES) + 1 if deep else 0  # the deep tier's tests, and one for good measure
        candidate_cpu = (len(tests or NAMES) + deep_tests) * test_cpu
        code, output = _run(cmd, timeout, candidate_cpu, **({"env": env} if env else {}), zygote=zygote)
    except BaseException:
        os.unlink(results_path)
        raise
    outcomes: dict[str, str] = {}
    load_problem = None
    with open(results_path, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            if record.get("event") == "result":
                outcomes[record["test"]] = record["outcome"]
                if records is not None:
                    records[record["test"]] = record
            elif record.get("event") == "load" and record.get("status") != "ok":
                load_problem = "load: " + record.get("reason", "the mutant did not load")
    os.unlink(results_path)
    if code is None:
        return outcomes, _stopped(output)
    if load_problem:
        return outcomes, load_problem
    if code not in (0, 1, 5) and not outcomes:
        if "INTERNALERROR" in output and str(package) in output:  # raised by the package's own code
            return outcomes, f"load: the package raised while the catalogue loaded it: {_last_error(output)}"
        why = _last_error(output) if "INTERNALERROR" in output else output.strip().splitlines()[-1:] or ""
        return outcomes, f"pytest exited {code}: {why}"   # the error itself: the summary line alone hid it
    return outcomes, None


def catalogue_run(package: Path, tests: tuple[str, ...] | None, deep: bool, timeout: float, strict: bool = False,
                  run_seed: int = CATALOGUE_SEED, budgets: dict | None = None,
                  results_file: str | None = None) -> CatalogueRun:
    """The catalogue's run value of ``run_catalogue_against`` (its arguments), passed whole
    (``harness.run``): ``only`` is exact names (-k would match substrings); no ``--ref-deps``, as
    before (the mutants are whole copies of the reference). A replay of the pass
    (``harness.mutants.traffic``) starts its candidates under the same."""
    load = {} if budgets is None else {"load_cpu_seconds": budgets["load"]}
    return CatalogueRun(impl=str(package), deep=deep, seed=run_seed, only=frozenset(tests or ()),
                        results_file=results_file, test_budgets=budgets["tests"] if budgets else (),
                        policy=POLICY.with_(tier="strict" if strict else "default", ref_deps=False,
                                            test_cpu_seconds=test_cpu_seconds(timeout), **load))


def _last_json(output: str) -> dict | None:
    """The last line of ``output`` that is a JSON object (stderr warnings may follow it)."""
    for line in reversed(output.strip().splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                continue
    return None


def _last_error(output: str) -> str:
    errors = [line.replace("INTERNALERROR>", "").strip() for line in output.splitlines()
              if "Error" in line or "Exception" in line]
    return errors[-1][:200] if errors else "(no message)"


def run_replay(package: Path, timeout: float, tools: bool = False,
               first_kill: tuple[str, ...] | None = None) -> tuple[dict[str, str], str | None]:
    """Replay constrain_golden.json (tools_golden.json when ``tools``) against ``package``;
    ``first_kill`` (the expected killers): only up to the first kill (``replay_child --first-kill``)."""
    flags = ["--tools"] if tools else []
    if first_kill is not None:
        flags.append(f"--first-kill={','.join(first_kill)}")
    code, output = _run([sys.executable, "-m", "harness.mutants.replay_child", *flags, str(package)], timeout)
    if code is None:
        return {}, _stopped(output)
    data = _last_json(output)
    if data is None:
        return {}, f"replay failed (exit {code}): {output.strip()[-300:]}"
    if "error" in data:
        return {}, f"replay failed: {str(data['error'])[:300]}"
    return {c: ("failed" if v["failures"] else "passed") for c, v in data["checks"].items()}, None


def run_mutant(mutant: Mutant, root: Path, timeout: float = DEFAULT_TIMEOUT, first_kill: bool = False,
               run_seed: int = CATALOGUE_SEED) -> MutantResult:
    """A catalogue mutant: its expected killers, then (when none kills it) the rest.

    ``tests`` holds every test (or replay check) run: the expected killers' and, when they
    did not kill it, the whole catalogue's (every check of a replay). ``first_kill``: stop
    at the first test or check that kills it, its expected killers first (``pytest -x``,
    ``replay_child --first-kill``): the same outcome and ``by_expected`` for a fraction of
    the runs, ``tests`` holding only what ran (the kill matrix is then sparse). ``run_seed``: the
    catalogue's draws (a replay mutant's checks draw nothing from it)."""
    start = time.monotonic()
    try:
        package = materialize(mutant, root)
    except PatchDoesNotApply as exc:
        return MutantResult(mutant.id, Outcome.STALE, mutant.killers, [], {}, 0.0, str(exc))
    if mutant.kind in (REPLAY, TOOLS_REPLAY):
        tests, problem = run_replay(package, timeout, tools=mutant.kind == TOOLS_REPLAY,
                                    first_kill=mutant.killers if first_kill else None)
    else:
        tests, problem = _catalogue_tests(mutant, package, timeout, first_kill, run_seed)
    seconds = time.monotonic() - start
    killed_by = _failed(tests)
    timed_out = [t for t, outcome in tests.items() if outcome == "timeout"]
    if problem is None and timed_out and not killed_by:  # a per-test deadline behind the wall
        problem = "timeout"
    if problem == "timeout":
        outcome = Outcome.TIMEOUT
    elif problem is not None:
        outcome = Outcome.ERROR
    else:
        outcome = Outcome.KILLED if killed_by else Outcome.SURVIVED
    return MutantResult(mutant.id, outcome, mutant.killers, killed_by, tests, seconds, problem or "")


def _catalogue_tests(mutant: Mutant, package: Path, timeout: float, first_kill: bool,
                     run_seed: int = CATALOGUE_SEED) -> tuple[dict[str, str], str | None]:
    """The expected killers, then (none killing it) the rest: the whole catalogue, or with
    ``first_kill`` the tests not run yet, each run stopped by its first killing test."""
    run = functools.partial(run_catalogue_against, package, deep=False, timeout=timeout, first_kill=first_kill,
                            run_seed=run_seed)
    tests, problem = run(mutant.killers or None)
    if problem is None and not _failed(tests) and mutant.killers:
        rest = tuple(name for name in NAMES if name not in mutant.killers) if first_kill else None
        if rest != ():
            more, problem = run(rest)
            tests.update(more)
    return tests, problem


def _failed(tests: dict[str, str]) -> list[str]:
    """Tests that detected the mutant: a failure, an error, or a crash of the candidate."""
    return [t for t, outcome in tests.items() if outcome in ("failed", "error", "crashed")]


def run_generated(mutant, root: Path, timeout: float = GENERATED_TIMEOUT, deep: bool = True,
                  tests: tuple[str, ...] | None = None, deep_tests: tuple[str, ...] | None = None,
                  first_kill: bool = False, fingerprint: dict[str, str] | None = None,
                  evidence=None, infection: dict | None = None, bound: str | None = None,
                  reuse: str | None = None, budgets: dict | None = None,
                  replay: str | None = None) -> MutantResult:
    """The default tier against a generated mutant; a survivor is then checked for
    equivalence, and only a survivor that is not equivalent runs the deep pass (``deep``):
    the whole catalogue under ``--deep --strict`` (the deep properties and the contract's
    decisions).

    ``tests`` / ``deep_tests`` (``harness.mutants.coverage``): only the catalogue tests that
    execute the mutated code on the reference, in the default tier / the deep pass (None:
    all; an empty tuple: no test reaches it, so none is run). A test that never executes
    the mutated lines behaves exactly as on the reference, so it cannot kill the mutant.
    A mutant no test of the passes it would run executes is "not covered" (mutmut's "no
    tests"): nothing is run for it (a hand triage saying it is equivalent still wins).
    ``first_kill``: each pass stops at the first test that kills the mutant.
    ``fingerprint`` (``coverage.CoverageMap.keys_for``): the keys of the reference's
    fingerprint the mutated statement can change, with the reference's hashes; only those
    are computed, up to the first that differs (None: the whole fingerprint, compared with
    the reference's, computed once per process). ``evidence`` (``coverage.CoverageMap.evidence_for``,
    an ``evidence.Pick``): likewise the evidence domain's items the mutated statement can change
    (None: the whole domain).

    The deep pass costs ~20 CPU seconds a mutant; a mutant equivalent with evidence
    (``_decide_by_evidence``) is not run through it, an unproven one is.

    ``infection`` (``Plan.infection``, from ``harness.mutants.infection``): the mutant's
    infection record; ``tests`` / ``deep_tests`` are then only the tests in which its value
    ever differs from the reference's (a test where it never differs runs as on the reference:
    it cannot kill it), so both may be empty for a mutant some test executes. With ``"evidence"``
    set (no test, corpus key or evidence item ever infected: ``plan``), it is equivalent with that
    evidence and nothing runs.

    ``bound`` (``Plan.bound``, ``bounds.reason_for`` decided before the run fans out: nothing is parsed
    in a task): "" when the mutated statement reads no size bound or an item at its edge executes it,
    else the reason it stays unproven; None: decided here.

    ``reuse`` (``Plan.reuse``, ``stage_memo.reuse_for`` decided before the run fans out): the stage of
    ``regex_to_dfa`` and/or the masks its compile evidence takes from the reference (its module is
    outside each one's footprint), or None.

    ``budgets`` (``Plan.budgets``, ``harness.mutants.budgets``): each catalogue test's CPU budget and
    the load's in both passes, calibrated from the reference's own CPU; None: today's for all.

    ``replay`` (``Plan.replay``, ``harness.mutants.traffic``): the folder of the run's recorded
    passes; a pass whose replay gives every reply the recorded pass of its selection got is decided
    without its grader (that pass's verdict: passed), any other runs as before, and the first of a
    selection that passes is recorded. None: every pass runs for real.
    """
    from harness.mutants.apply import materialize_generated

    start = time.monotonic()
    if infection is not None and infection.get("evidence") is not None:
        return MutantResult(mutant.id, Outcome.EQUIVALENT, (), [], {}, time.monotonic() - start,
                            f"equivalent with evidence: {infection['evidence']['domain']}",
                            evidence=dict(infection["evidence"]))
    if tests == () and (not deep or deep_tests == ()) and infection is None:
        return _not_covered(mutant, start)
    package = materialize_generated(mutant, root)
    try:
        result, settled = _default_tier(mutant, package, tests, timeout, first_kill, start, infection is not None,
                                        budgets, replay)
        if result.outcome is Outcome.SURVIVED:
            result = _decide_equivalence(result, mutant, package, root, timeout, fingerprint, evidence, bound,
                                         reuse)
        if result.outcome is Outcome.SURVIVED and deep and deep_tests != ():
            result = _deep_pass(result, mutant, package, deep_pass_tests(deep_tests, settled), timeout, first_kill,
                                budgets, replay)
    finally:
        shutil.rmtree(package, ignore_errors=True)
    if result.outcome is Outcome.SURVIVED and result.detail.startswith(UNPROVEN_NOTE):
        result = dataclasses.replace(result, outcome=Outcome.UNPROVEN)
    result.seconds = time.monotonic() - start
    return result


def _not_covered(mutant, start: float) -> MutantResult:
    from harness.mutants.triage import verdict

    hand = verdict(mutant)
    if hand is not None and hand.equivalent:
        return MutantResult(mutant.id, Outcome.EQUIVALENT, (), [], {}, time.monotonic() - start,
                            f"by hand: {hand.reason}", evidence=_hand_evidence(hand))
    return MutantResult(mutant.id, Outcome.NOT_COVERED, (), [], {}, time.monotonic() - start,
                        "no catalogue test executes it")


def _default_tier(mutant, package: Path, tests: tuple[str, ...] | None, timeout: float, first_kill: bool,
                  start: float, infected_only: bool = False,
                  budgets: dict | None = None, replay: str | None = None) -> tuple[MutantResult, frozenset[str]]:
    """The default tier's result, and the tests it settled (``settled``); ``infected_only``: ``tests``
    are those the mutant infects (``harness.mutants.infection``)."""
    if tests == ():   # no test of the default tier executes (infects) the mutated code (the deep pass may)
        why = "no catalogue test it infects" if infected_only else "no catalogue test executes it"
        return MutantResult(mutant.id, Outcome.SURVIVED, (), [], {}, 0.0, why, ""), frozenset()
    found, problem, retried, records = _catalogue_pass(package, tests, False, timeout, first_kill, budgets, replay)
    result = _generated_result(mutant, found, problem, "default", time.monotonic() - start, expected=tests)
    return dataclasses.replace(result, retried=retried), settled(records)


TIER_READERS = frozenset({"test_unsupported_syntax_raises"})
"""The catalogue tests that read the tier themselves (``tiers.is_strict()``: more inputs under
``--strict``); ``tests/mutants/test_mutants_errors.py`` checks that no other function of the catalogue does."""
RERUN_SETTLED = os.environ.get("CONSTRAIN_HARNESS_RERUN_SETTLED") == "1"
"""Run the settled tests again in the deep pass, as before (the slow path, to compare verdicts)."""


def settled(records: dict[str, dict]) -> frozenset[str]:
    """The default tier's tests whose deep pass would repeat them exactly: passed, with no note.

    Under ``--deep --strict`` a default-tier test draws the same seeded inputs
    (``harness.suite.seeding``: a function of the test and the run seed) and meets a candidate
    process with the same history (``plugin._at_the_split``); what ``--strict`` changes is that a
    contract decision it checks (``tiers.decision``) fails instead of adding a note, and the
    tests in ``TIER_READERS``. So a test that passed without a note and reads no tier passes
    the deep pass too: it is not run again there (a survivor's deep pass: ~3-4 of ~17-22 CPU s)."""
    if RERUN_SETTLED:
        return frozenset()
    return frozenset(name for name, record in records.items()
                     if record.get("outcome") == "passed" and not record.get("notes") and name not in TIER_READERS)


def deep_pass_tests(deep_tests: tuple[str, ...] | None, done: frozenset[str]) -> tuple[str, ...] | None:
    """The deep pass's tests (``deep_tests``, None: every test of every tier) less those ``done``."""
    if not done:
        return deep_tests
    wanted = (*NAMES, *DEEP_NAMES) if deep_tests is None else deep_tests
    return tuple(name for name in wanted if name not in done)


def _deep_pass(result: MutantResult, mutant, package: Path, tests: tuple[str, ...] | None, timeout: float,
               first_kill: bool, budgets: dict | None = None, replay: str | None = None) -> MutantResult:
    """A survivor's deep pass (``tests``: what is left of it to run, maybe nothing; None: every test)
    and its verdict."""
    if tests == ():
        return result
    more, problem, retried, _ = _catalogue_pass(package, tests, True, timeout, first_kill, budgets, replay)
    result = dataclasses.replace(result, retried="; ".join(filter(None, (result.retried, retried))))
    tests_run = {**result.tests, **more}
    deep_result = _generated_result(mutant, tests_run, problem, "deep", 0.0, expected=tests)
    if deep_result.outcome is Outcome.SURVIVED:
        return dataclasses.replace(result, tests=tests_run)
    # killed: an unproven survivor's note stays as what it was (equal on the corpus)
    return dataclasses.replace(deep_result, detail=deep_result.detail or result.detail.removeprefix(UNPROVEN_NOTE),
                               retried=result.retried)


def _catalogue_pass(package: Path, tests: tuple[str, ...] | None, deep: bool, timeout: float,
                    first_kill: bool, budgets: dict | None = None, replay: str | None = None
                    ) -> tuple[dict[str, str], str | None, str, dict[str, dict]]:
    """One pass of a generated mutant (the default tier, or with ``deep`` the deep pass under
    ``--strict``): (test -> outcome, problem or None, why it was run again or "", test -> its
    result record).

    A pass whose verdict may be the harness's rather than the mutant's (``_suspect``: a runner
    failure, a grader killed from outside, a load failure, or a kill resting only on tests that
    errored outside their call, where only the harness's fixtures run) is run once more, and the
    second run decides. When the second is suspect too, a load failure stands (the same package
    refused twice: the mutant's doing, as before) and anything else is the harness's error
    (``HARNESS_ERROR``): the mutant is "error", never killed. A run's draws are seeded and its
    limits are CPU seconds, so a second run of a mutant that failed a test fails it again.

    With ``replay`` (the folder of the run's recorded passes, ``harness.mutants.traffic``), a pass of a
    selection with a recording is first replayed (``_replayed``): every reply the recorded one, it is the
    recorded pass (every test passed, its notes) and no grader runs; otherwise it runs as above. A pass
    of a selection with no recording yet runs as above with the traffic recorded, and is kept as the
    selection's recording when every test passed (``traffic.keep``: the first such pass of it)."""
    from harness.mutants import traffic

    out = None
    if replay is not None:
        recording = traffic.kept(replay, tests, deep, timeout, budgets)
        if recording is None:   # none yet: this pass records its traffic, kept if it passes whole
            with tempfile.NamedTemporaryFile("w", suffix=".traffic.json", delete=False) as f:
                out = Path(f.name)
        else:
            decided = _replayed(recording, package, tests, deep, timeout, budgets)
            if decided is not None:
                return decided[0], None, "", decided[1]
    try:
        records: dict[str, dict] = {}
        recorded = {"plugins": (traffic.PLUGIN,), "env": {traffic.OUT_VARIABLE: str(out)}} if out else {}
        spent = task_cpu()
        found, problem = run_catalogue_against(package, tests, deep, timeout, strict=deep, first_kill=first_kill,
                                               records=records, zygote=warm.ZYGOTE, budgets=budgets, **recorded)
        why = _suspect(found, problem, records, tests)
        if out is not None:
            passed = problem is None and not why and all(outcome == "passed" for outcome in found.values())
            kept = traffic.keep(replay, tests, deep, timeout, budgets, found, records, out) if passed else None
            traffic.log(package, deep, tests, False, "no recording yet: run for real, " +
                        ("its traffic kept" if kept is not None else "nothing kept"), task_cpu() - spent)
    finally:
        if out is not None:
            out.unlink(missing_ok=True)
    if not why:
        return found, problem, "", records
    records = {}
    found, problem = run_catalogue_against(package, tests, deep, timeout, strict=deep, first_kill=first_kill,
                                           records=records, budgets=budgets)
    again = _suspect(found, problem, records, tests)
    if not again or (problem is not None and problem.startswith("load: ")):
        return found, problem, f"run again after: {why}", records
    twice = f"{HARNESS_ERROR}twice: {why.removeprefix(HARNESS_ERROR)}; then {again.removeprefix(HARNESS_ERROR)}"
    return found, twice, f"run again after: {why}", records


def _replayed(recording, package: Path, tests: tuple[str, ...] | None, deep: bool, timeout: float,
              budgets: dict | None) -> tuple[dict[str, str], dict[str, dict]] | None:
    """The pass's (test -> outcome, test -> record) decided by a replay of the selection's recorded pass
    (``recording``, a ``traffic.Recording``), or None: run it for real. The replay is a fork of the warm
    grader like a catalogue run (``_run``), its candidates the zygote's forks."""
    from harness.mutants import traffic

    if not recording.replayable:
        traffic.log(package, deep, tests, False, f"not replayable: {recording.why}", 0.0)
        return None
    run = catalogue_run(package, tests, deep, timeout, strict=deep, budgets=budgets)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as f:
        f.write(run.to_json())
        run_path = f.name
    spent = task_cpu()
    try:
        cpu = test_cpu_seconds(timeout) * (len(recording.records) + 1)
        code, output = _run([sys.executable, "-m", traffic.__name__, str(package), recording.path, run_path],
                            timeout, cpu, zygote=warm.ZYGOTE)
    finally:
        os.unlink(run_path)
    spent = task_cpu() - spent   # the replay's, its candidates' included
    answer = _last_json(output) if code == 0 else None
    why = "the replay stopped" if code is None else (answer or {}).get("why", f"the replay failed (exit {code})")
    if answer is None or not answer.get("equal"):
        traffic.log(package, deep, tests, False, why, spent)
        return None
    traffic.log(package, deep, tests, True, "", spent)
    records = {t: {"outcome": r["outcome"], "notes": list(r["notes"]), "replayed": True}
               for t, r in recording.records.items()}
    return {t: "passed" for t in records}, records


RAISED_AT_LOAD = ("load: importing the candidate failed: ", "load: the package raised while the catalogue loaded it")
"""The load failures the mutant's own code raised (``harness.suite.plugin``: an exception of its
import, with its place): the mutant's verdict, never run again (a load that crashed or that the
machine refused is)."""


def at_its_own_limit(problem: str) -> bool:
    """A load failure that is the candidate killed by its own CPU or memory limit, as the grader read
    it from the candidate's cgroup (``harness.sandbox.wording.OWN_LIMIT_KILLS``, in the crash's own
    words, never in the candidate's output that may follow them): the mutant's verdict, run once.
    A SIGXCPU is its CPU limit's (its soft ``RLIMIT_CPU``, ``harness.sandbox.cpulimit``), and so is a
    load past its CPU budget (``wording.CPU_BUDGET_WORDS``, the grader's count of the candidate's
    cgroup: a zygote's fork spinning at load meets it before its ``RLIMIT_CPU``; the whole run's four
    ``parser`` loads ran twice for it, 60 then 30 CPU s each). A load that spins or grows to its limit
    does so again (its limits are CPU seconds and bytes); a SIGKILL from outside (a person, the
    machine's OOM killer) is not said so and is run again, as is the wall-clock backstop."""
    crashed = "load: the candidate crashed while loading: "
    said = problem.split("; its last output:", 1)[0]
    return problem.startswith(crashed) and \
        (any(f"(died of SIGKILL, {words})" in said for words in wording.OWN_LIMIT_KILLS.values())
         or f"(died of SIGXCPU, {wording.OWN_LIMIT_KILLS['cpu']})" in said
         or problem.startswith(crashed + wording.CPU_BUDGET_WORDS))


def _suspect(found: dict[str, str], problem: str | None, records: dict[str, dict],
             tests: tuple[str, ...] | None) -> str:
    """Why a pass's verdict may be the harness's, not the mutant's ("" when it is the mutant's:
    a test failed, crashed or timed out in its call, or everything ran and passed, or the run
    timed out). A test's "error" is pytest's report of a failure outside the test's call: in the
    catalogue only the harness's fixtures run there (``impl``'s candidate start at the split,
    ``harness.suite.plugin``), so a kill resting on errors alone is suspect."""
    if problem == "timeout" or (problem is not None and (problem.startswith(RAISED_AT_LOAD)
                                                         or at_its_own_limit(problem))):
        return ""
    if problem is not None:
        return problem
    if any(outcome in ("failed", "crashed", "timeout") for outcome in found.values()):
        return ""
    errored = [name for name, outcome in found.items() if outcome == "error"]
    if errored:
        reason = records.get(errored[0], {}).get("reason", "")
        return f"{HARNESS_ERROR}{errored[0]} errored outside its call: {reason[:200]}"
    missing = [name for name in (NAMES if tests is None else tests) if name not in found]
    return f"the catalogue reported no result for {len(missing)} test(s), e.g. {missing[0]}" if missing else ""


_REFERENCE_DIGEST: dict[str, dict] = {}
_DIGEST_LOCK = threading.Lock()


def fingerprint_child(package: Path, args: list[str], timeout: float,
                      module: str = "harness.mutants.equivalence") -> tuple[dict | None, str | None]:
    """``python -m MODULE PACKAGE ARGS`` (``harness.mutants.equivalence`` or ``.evidence``; a fork of
    the warm grader when warm graders are on): its JSON answer, or None and the problem. A child
    killed from outside (``HARNESS_ERROR``) is run once more."""
    code, output = _run([sys.executable, "-m", module, str(package), *args], timeout)
    if code is None and output.startswith(HARNESS_ERROR):
        code, output = _run([sys.executable, "-m", module, str(package), *args], timeout)
    if code is None:
        return None, _stopped(output)
    data = _last_json(output)
    if data is None:
        return None, f"the fingerprint child failed (exit {code}): {output.strip()[-200:]}"
    return data, None


def behaviour_digest(package: Path, timeout: float) -> tuple[dict | None, str | None]:
    """``harness.mutants.equivalence``'s digest of the package, from a child: (digest, problem)."""
    return fingerprint_child(package, [], timeout)


def reference_digest(root: Path, timeout: float) -> dict:
    """The clean reference copy's digest (computed once per process)."""
    with _DIGEST_LOCK:
        if "ref" not in _REFERENCE_DIGEST:
            digest, problem = behaviour_digest(materialize(NULL_MUTANT, root), timeout)
            if digest is None:
                raise RuntimeError(f"the reference's behaviour digest failed: {problem}")
            _REFERENCE_DIGEST["ref"] = digest
        return _REFERENCE_DIGEST["ref"]


def _differences(package: Path, root: Path, timeout: float,
                 fingerprint: dict[str, str] | None) -> tuple[list[str] | None, str | None]:
    """The corpus keys on which the mutant differs from the reference (None and the problem when
    undecided): all of them, or with ``fingerprint`` (the keys it can change) the first one."""
    from harness.mutants import equivalence

    if fingerprint is None:
        digest, problem = behaviour_digest(package, timeout)
        return (None, problem) if digest is None else (equivalence.compare(reference_digest(root, timeout), digest),
                                                       None)
    if not fingerprint:   # no key executes the mutated statement: each computes what it does on the reference
        return [], None
    with tempfile.NamedTemporaryFile("w", suffix=".json", dir=root, delete=False, encoding="utf-8") as f:
        json.dump(fingerprint, f)
    try:
        found, problem = fingerprint_child(package, ["--against", f.name], timeout)
    finally:
        os.unlink(f.name)
    return (None, problem) if found is None else (list(found["differs"]), None)


def _decide_equivalence(result: MutantResult, mutant, package: Path, root: Path, timeout: float,
                        fingerprint: dict[str, str] | None = None, picked=None,
                        bound: str | None = None, reuse: str | None = None) -> MutantResult:
    """A survivor: equivalent when the hand triage says so, or when its digest equals the reference's."""
    from harness.mutants.triage import verdict

    hand = verdict(mutant)
    if hand is not None and hand.equivalent:
        return dataclasses.replace(result, outcome=Outcome.EQUIVALENT, detail=f"by hand: {hand.reason}",
                                   evidence=_hand_evidence(hand))
    differs, problem = _differences(package, root, timeout, fingerprint)
    if differs is None:
        return dataclasses.replace(result, detail=f"equivalence undecided: {problem}")
    if not differs:
        if hand is not None:  # the hand list refused the machine's verdict
            return dataclasses.replace(result, detail=f"equal on the corpus, but by hand: {hand.reason}")
        return _decide_by_evidence(result, mutant, package, root, timeout, picked, bound, reuse)
    note = f"; by hand: {hand.reason}" if hand is not None else ""
    first = "" if fingerprint is None else " (the first found)"
    detail = f"differs on {len(differs)} corpus key(s){first}: {'; '.join(differs[:3])}{note}"
    return dataclasses.replace(result, detail=detail)


UNPROVEN_NOTE = "unproven: "   # the detail of a survivor equal on the corpus without evidence (then UNPROVEN)


def _hand_evidence(hand) -> dict:
    return {"kind": "hand review", "domain": hand.reason, "size": None}


def _decide_by_evidence(result: MutantResult, mutant, package: Path, root: Path, timeout: float,
                        picked=None, bound: str | None = None, reuse: str | None = None) -> MutantResult:
    """A survivor equal on the corpus: equivalent only when it also agrees on its module's
    exhaustive evidence domain (``harness.mutants.evidence``); a difference there leaves it a
    survivor (the deep pass runs), no domain or an undecided check leaves it unproven.
    ``picked`` (an ``evidence.Pick`` of that kind): only the items executing the mutated
    statement are computed, the others equal by construction, and the detail says so. A pick
    of no item is no evidence: a domain none of whose items reaches the statement cannot tell
    the mutant from the reference (e.g. the sampler's overflow path, which no item's
    temperature reaches), so the survivor is unproven and the deep pass runs for it. Nor is a
    domain that never reaches the size bound the mutated statement reads (``bounds.reason_for``:
    no item at the bound's edge executes it): unproven, "a size bound the evidence does not reach"
    (``bound``: that reason, or "" for none, decided in ``plan``; None: decided here). ``reuse``: the
    compile stage the evidence child takes from the reference (``stage_memo``), or None."""
    from harness.mutants import bounds, evidence

    module = mutant.site.module
    kind = evidence.kind_for(module, mutant.site.start[0])
    if kind is None:
        return dataclasses.replace(result, detail=f"{UNPROVEN_NOTE}equal on the corpus; no evidence domain for "
                                                  f"module {module}")
    if picked is not None and picked.kind != kind:
        raise ValueError(f"the evidence picked for {mutant.id} is of kind {picked.kind}, its module's is {kind}")
    if picked is not None and not picked.chosen:
        return dataclasses.replace(result, detail=f"{UNPROVEN_NOTE}equal on the corpus; no item of the {kind} "
                                                  f"evidence domain ({picked.size:,}) executes {picked.statement}")
    if bound is None:
        bound = bounds.reason_for(mutant, kind, picked) or ""
    if bound:   # equal outputs on a domain that never reaches the bound prove nothing
        return dataclasses.replace(result, detail=f"{UNPROVEN_NOTE}equal on the corpus; {bound}")
    found, problem = _evidence_differences(package, root, timeout, kind, picked, reuse if kind == "compile" else None)
    if found is None:
        return dataclasses.replace(result, detail=f"{UNPROVEN_NOTE}equal on the corpus; {kind} evidence "
                                                  f"undecided: {problem}")
    differs, computed = found
    if differs:
        return dataclasses.replace(result, detail=f"equal on the corpus, but differs on the {kind} evidence domain "
                                                  f"at {differs[0]} (item {computed})")
    if picked is not None:
        return dataclasses.replace(result, outcome=Outcome.EQUIVALENT, detail=f"equivalent with evidence: "
                                   f"{picked.note()}", evidence=evidence.summary(kind, picked.size, computed))
    return dataclasses.replace(result, outcome=Outcome.EQUIVALENT, detail=f"equivalent with evidence: {kind}, "
                               f"{computed} items", evidence=evidence.summary(kind, computed))


_REFERENCE_EVIDENCE: dict[str, list[str]] = {}
EVIDENCE_CHILD = "harness.mutants.evidence"


def reference_evidence(root: Path, timeout: float, kind: str) -> list[str]:
    """The clean reference copy's hashes over the evidence domain ``kind`` (once per process)."""
    with _DIGEST_LOCK:
        if kind not in _REFERENCE_EVIDENCE:
            found, problem = fingerprint_child(materialize(NULL_MUTANT, root), [kind], timeout, EVIDENCE_CHILD)
            if found is None or not isinstance(found.get("hashes"), list):
                raise RuntimeError(f"the reference's {kind} evidence failed: {problem or found}")
            _REFERENCE_EVIDENCE[kind] = found["hashes"]
        return _REFERENCE_EVIDENCE[kind]


def _evidence_differences(package: Path, root: Path, timeout: float, kind: str, picked=None,
                          reuse: str | None = None) -> tuple[tuple[list[str], int] | None, str | None]:
    """((the first differing item or [], items computed), None), or (None, the problem). With
    ``picked``: only its chosen items (none chosen: no child runs, nothing differs), each under its
    own CPU budget when the pick has the reference's figures (``Pick.budgets``: an item that spins
    ends the child a few CPU s in, the same "timeout" as at the child's limit); with ``reuse``
    (compile): the child takes that stage of ``regex_to_dfa`` from the reference (``stage_memo``)."""
    from harness.mutants import stage_memo

    if picked is not None and not picked.chosen:
        return ([], 0), None
    item_budgets = None if picked is None else picked.budgets(timeout)
    with tempfile.NamedTemporaryFile("w", suffix=".json", dir=root, delete=False, encoding="utf-8") as f:
        reference = reference_evidence(root, timeout, kind) if picked is None else picked.reference()
        json.dump(reference if item_budgets is None else {"hashes": reference, "budgets": item_budgets}, f)
    try:
        found, problem = fingerprint_child(package, [kind, "--against", f.name, *([reuse] if reuse else [])], timeout,
                                           stage_memo.CHILD if reuse else EVIDENCE_CHILD)
    finally:
        os.unlink(f.name)
    return (None, problem) if found is None else ((list(found["differs"]), int(found["computed"])), None)


def _generated_result(mutant, tests: dict[str, str], problem: str | None, tier: str, seconds: float,
                      expected: tuple[str, ...] | None = None) -> MutantResult:
    """The outcome of a pass; ``expected``: the tests it ran (None: the whole catalogue)."""
    killed_by = _failed(tests)
    if problem is not None and problem.startswith("load: "):
        return MutantResult(mutant.id, Outcome.KILLED, (), ["load"], tests, seconds, problem, "load")
    if problem == "timeout":
        return MutantResult(mutant.id, Outcome.TIMEOUT, (), killed_by, tests, seconds, "timeout", tier)
    if problem is not None:
        return MutantResult(mutant.id, Outcome.ERROR, (), killed_by, tests, seconds, problem, "")
    if killed_by:
        return MutantResult(mutant.id, Outcome.KILLED, (), killed_by, tests, seconds, "", tier)
    timed_out = [name for name, outcome in tests.items() if outcome == "timeout"]
    if timed_out:  # a test past its deadline behind the wall, as run_mutant counts it: never "survived"
        return MutantResult(mutant.id, Outcome.TIMEOUT, (), [], tests, seconds,
                            f"timeout in {len(timed_out)} test(s), e.g. {timed_out[0]}", tier)
    missing = [name for name in (NAMES if expected is None else expected) if name not in tests]
    if missing:  # a survivor must have passed every test: anything else is the runner's failure
        return MutantResult(mutant.id, Outcome.ERROR, (), [], tests, seconds,
                            f"the catalogue reported no result for {len(missing)} test(s), e.g. {missing[0]}", "")
    return MutantResult(mutant.id, Outcome.SURVIVED, (), [], tests, seconds, "", "")


def self_check(root: Path, timeout: float = DEFAULT_TIMEOUT, jobs: int = 1) -> list[str]:
    """Problems with the runner itself ([] when it can be trusted). Its four runs are independent
    child processes: ``jobs`` of them run at once (the forced failure's edit is applied first,
    here: no parsing in a thread)."""
    from concurrent.futures import ThreadPoolExecutor

    from harness.mutants.apply import prepare
    from harness.sandbox import confine

    confine.probe()
    prepare([FORCED_FAILURE])
    clean = materialize(NULL_MUTANT, root)
    tools_clean = materialize(NULL_TOOLS_MUTANT, root)
    killers = sorted({k for m in MUTANTS if m.kind == CATALOGUE for k in m.killers})
    checks = (lambda: _clean_passes(run_catalogue(clean, tuple(killers), timeout), "the catalogue"),
              lambda: _clean_passes(run_replay(clean, timeout), "golden replay"),
              lambda: _clean_passes(run_replay(tools_clean, timeout, tools=True),
                                    "golden replay --file tools", "the clean oracles/tools copy"),
              lambda: _forced_is_killed(run_mutant(FORCED_FAILURE, root, timeout)))
    with ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="self-check") as pool:
        found = [future.result() for future in [pool.submit(check) for check in checks]]
    return [problem for problem in found if problem]


def _clean_passes(ran: tuple[dict[str, str], str | None], what: str,
                  subject: str = "the clean reference copy") -> str | None:
    tests, problem = ran
    if problem or _failed(tests):
        return f"{subject} fails {what}: {problem or _failed(tests)}"
    return None


def _forced_is_killed(forced: MutantResult) -> str | None:
    return None if forced.outcome is Outcome.KILLED else f"a forced failure was not killed ({forced.outcome.value})"


# --- mutants as executor tasks (``mutants.tasks`` runs them on the worker) ------------------

FUNCTION = "harness.mutants.tasks:run_task"
"""The task function that runs one mutant (named, not imported: a worker imports it)."""


def mutant_task(mutant, *, timeout: float, deep: bool = True, tests: tuple[str, ...] | None = None,
                deep_tests: tuple[str, ...] | None = None, first_kill: bool = False,
                fingerprint: dict[str, str] | None = None, evidence=None, infection: dict | None = None,
                bound: str | None = None, reuse: str | None = None, budgets: dict | None = None,
                replay: str | None = None) -> Task:
    """The task running ``mutant``: a catalogue mutant by id, a generated one by its edit.

    ``tests`` / ``deep_tests`` (generated mutants): run only these catalogue tests in the
    default tier / the deep pass (the ones that execute the mutated lines, ``coverage``);
    ``first_kill``: stop each pass at the first test that kills it (a catalogue mutant: its
    expected killers first, ``run_mutant``); ``fingerprint``: the
    reference's fingerprint keys it can change, ``evidence`` the evidence items (an
    ``evidence.Pick``, sent as data) (``run_generated``).
    """
    from harness.mutants.generation import GeneratedMutant

    if not isinstance(mutant, GeneratedMutant):   # its edits applied here: the worker parses nothing
        from harness.mutants.apply import prepared

        payload = {"kind": "catalogue", "id": mutant.id, "timeout": timeout, "edited": prepared(mutant)}
        return Task(mutant.id, FUNCTION, {**payload, "first_kill": True} if first_kill else payload)
    site = mutant.site
    payload = {"kind": "generated", "timeout": timeout, "deep": deep, "first_kill": first_kill,
               "tests": _listed(tests), "deep_tests": _listed(deep_tests), "fingerprint": fingerprint,
               "evidence": None if evidence is None else evidence.to_json(), "infection": infection, "bound": bound,
               "reuse": reuse, "budgets": budgets, "replay": replay,
               "site": {"file": site.file, "operator": site.operator, "occurrence": site.occurrence,
                        "start": list(site.start), "end": list(site.end)},
               "source": mutant.source, "before": mutant.before, "after": mutant.after}
    return Task(mutant.id, FUNCTION, payload)


def _listed(tests):
    return None if tests is None else list(tests)


def result_to_json(result, cpu: float | None = None) -> dict:
    """The result as a record; ``cpu``: the CPU seconds its runs took (a measure, like ``seconds``)."""
    record = {"id": result.id, "outcome": result.outcome.value, "expected": list(result.expected),
              "killed_by": list(result.killed_by), "tests": dict(result.tests), "seconds": round(result.seconds, 3),
              "detail": result.detail, "tier": result.tier}
    if result.evidence is not None:
        record["evidence"] = dict(result.evidence)
    if result.retried:
        record["retried"] = result.retried
    if result.scope:
        record["scope"] = result.scope
    if cpu is not None:
        record["cpu_seconds"] = round(cpu, 3)
    return record


def result_from_json(record: dict):
    return MutantResult(record["id"], Outcome(record["outcome"]), tuple(record["expected"]),
                        list(record["killed_by"]), dict(record["tests"]), float(record["seconds"]),
                        record.get("detail", ""), record.get("tier", ""), record.get("evidence"),
                        record.get("retried", ""), record.get("scope", ""))


@dataclasses.dataclass(frozen=True)
class GeneratedOptions:
    """How each generated mutant runs (data, so a Dask worker runs it the same way)."""

    deep: bool = True              # survivors of the default tier run the deep pass
    first_kill: bool = False       # each pass stops at the first killing test
    coverage: object | None = None  # a ``coverage.CoverageMap``: only the tests that execute the mutated code
    infection: object | None = None  # an ``infection.InfectionMap``: only the tests the mutant infects


@dataclasses.dataclass(frozen=True)
class Plan:
    """What runs for one generated mutant, decided before the run fans out (``plan``)."""

    tests: tuple[str, ...] | None = None         # the default tier's tests (None: all)
    deep_tests: tuple[str, ...] | None = None    # the deep pass's tests (None: all)
    fingerprint: dict[str, str] | None = None    # the fingerprint's keys it can change (None: all)
    evidence: object | None = None               # the evidence items it can change (``evidence.Pick``; None: all)
    infection: dict | None = None                # its infection record (``infected_plan``), as data; None: not used
    bound: str | None = None                     # ``bounds.reason_for``'s reason, "" for none; None: not decided
    reuse: str | None = None                     # what the compile evidence reuses (``stage_memo.reuse_for``)
    scope: str | None = None                     # ``scope.classify``: "spec" or "outside the spec: ..."; None: none
    budgets: dict | None = None                  # each test's and the load's CPU budget (``budgets.budgets_for``)
    replay: str | None = None                    # the folder of the run's recorded passes (``traffic``)

    @property
    def weight(self) -> int:
        """A guess at the mutant's cost, to start the dearest first (a 2-worker run then ends with
        cheap tasks, not one 20-second survivor on one core): 0 when no test executes it, else
        its default tests plus 4 per deep property (the deep pass is most of a survivor's cost)."""
        if (self.tests == () and self.deep_tests == () and self.infection is None) or \
                (self.infection is not None and self.infection["evidence"] is not None):
            return 0
        deep = len([t for t in (self.deep_tests or ()) if t.startswith("test_deep")]) if self.deep_tests is not None \
            else 4
        return (16 if self.tests is None else len(self.tests)) + 4 * deep


def plan(generated: GeneratedOptions, mutant, timeout: float = GENERATED_TIMEOUT) -> Plan:
    """The mutant's ``Plan`` from the coverage map (its tests' CPU budgets under a run limit of ``timeout``:
    ``budgets``). This parses the reference (``coverage.statement_lines``): ``run_all`` calls it for
    every mutant before it fans out, never in a task's thread. Its ``scope`` (``scope.classify``: the
    spec's, or outside it) is decided here too; it runs nothing differently."""
    from harness.mutants import bounds, budgets, evidence, scope, stage_memo, traffic

    kind = evidence.kind_for(mutant.site.module, mutant.site.start[0])
    reuse = stage_memo.reuse_for(mutant.site.module) if kind == "compile" else None
    where = scope.classify(mutant.site)
    if generated.coverage is None:
        return Plan(bound=bounds.reason_for(mutant, kind, None) or "", reuse=reuse, scope=where)
    cmap = generated.coverage
    picked = cmap.evidence_for(mutant)
    if picked is not None and picked.cpu is not None and not budgets.on():   # each item: the child's limit
        picked = dataclasses.replace(picked, cpu=None)
    bound = bounds.reason_for(mutant, kind, picked) or ""
    found = Plan(cmap.tests_for(mutant, deep=False), cmap.tests_for(mutant, deep=True), cmap.keys_for(mutant),
                 picked, bound=bound, reuse=reuse, scope=where,
                 budgets=budgets.budgets_for(cmap.cpu, test_cpu_seconds(timeout)),
                 replay=traffic.folder_for(cmap.path, cmap.digest) if cmap.path is not None and traffic.on() else None)
    return found if generated.infection is None else infected_plan(found, generated.infection, mutant)


NO_INFECTION = "no infection"   # the evidence kind of an equivalent no test, key or item infects


def infected_plan(found: Plan, imap, mutant) -> Plan:
    """``found`` narrowed by the infection map ``imap`` (``harness.mutants.infection``), for a mutant
    it analyses and some test executes (a mutant no test executes stays "not covered"):

    - no catalogue test (either tier), corpus key or evidence item of its module's kind ever saw
      its value differ from the reference's, its module has an evidence kind, no hand verdict names
      it, its evidence pick is not empty and, when its statement reads a size bound, an item at the
      bound's edge executes it (``bounds.reason_for``: a value that never differs on a domain that
      never reaches the bound is no evidence): equivalent with evidence "no infection" (the slow path
      would pass every test, equal the corpus and the domain: the same values everywhere they run);
    - else its passes run only the tests it infects (and the tier readers, ``TIER_READERS``,
      whose inputs depend on the tier): a test where its value never differs runs as on the
      reference, so it cannot kill it (the coverage filter's argument, one step finer)."""
    from harness.mutants import bounds
    from harness.mutants.triage import verdict

    if found.tests == () and found.deep_tests == ():
        return found
    infection = imap.clean(mutant)
    if infection is None:
        return found
    record = {"tests": len(infection.tests), "deep_tests": len(infection.deep_tests), "keys": infection.keys,
              "items": infection.items, "evidence": None}
    pick_empty = found.evidence is not None and not found.evidence.chosen
    bound = found.bound if found.bound is not None else bounds.reason_for(mutant, infection.kind, found.evidence)
    if infection.none and infection.kind is not None and not pick_empty and verdict(mutant) is None and not bound:
        reached, keys, items = imap.reached_count(mutant.id), *imap.sizes(infection.kind)[1:]
        domain = (f"no infection: the mutated expression's value equals the reference's at every evaluation, "
                  f"in the {reached} catalogue tests (of {len(imap.tests)}) that evaluate it, the corpus's {keys} "
                  f"keys and the {infection.kind} evidence domain's {items:,} items")
        record["evidence"] = {"kind": NO_INFECTION, "domain": domain, "size": reached + keys + items}
        return dataclasses.replace(found, infection=record)
    wanted = set(infection.tests) | set(infection.deep_tests) | TIER_READERS
    return dataclasses.replace(found, tests=_narrowed(found.tests, NAMES, wanted),
                               deep_tests=_narrowed(found.deep_tests, (*NAMES, *DEEP_NAMES), wanted), infection=record)


def _narrowed(tests: tuple[str, ...] | None, every: tuple[str, ...], wanted: set) -> tuple[str, ...]:
    return tuple(t for t in (every if tests is None else tests) if t in wanted)


def run_all(mutants: list, *, jobs: int = 2, timeout: float = DEFAULT_TIMEOUT,
            progress: Callable[[MutantResult, int, int], None] | None = None,
            run: Callable[..., MutantResult] | None = None, generated: GeneratedOptions | None = None,
            scheduler: str | None = None, state=None, stats=None, first_kill: bool = False) -> list[MutantResult]:
    """Run every mutant, ``jobs`` at a time here, or on the Dask ``scheduler``'s workers
    (``harness.fanout.executor``; ``mutants.tasks``: the mutant's edit goes, its result comes back).

    ``run``: a function ``run(mutant, root, timeout)`` (local runs only; default
    ``run_mutant``, or ``run_generated`` with ``generated``'s options). ``first_kill``
    (catalogue mutants; generated ones: ``GeneratedOptions.first_kill``): each mutant stops
    at its first killing test, its expected killers first (``run_mutant``). ``state`` (a
    ``mutants.state.MutantState``): mutants it already holds are not run again, and every
    result is appended to it as it arrives. ``stats`` (``executor.RunStats``) is filled in.

    Everything that parses Python source happens here, before the tasks fan out to threads
    (CPython's AST constructor is not thread-safe, ``anchors.parse``): each generated
    mutant's ``Plan``, and each catalogue mutant's edited files (``apply.prepare``).

    Each generated mutant's record gets its ``scope`` here as it arrives (``Plan.scope``; for one the
    bytecode settles, ``scope.classify`` in this thread): beside its outcome, never changing it.
    """
    from harness.fanout import executor
    from harness.mutants.apply import prepare
    from harness.sandbox import confine

    if scheduler is not None and run is not None:
        raise ValueError("a custom run function cannot be sent to Dask workers: use generated= options")
    if first_kill and (run is not None or generated is not None):
        raise ValueError("first_kill= is for the catalogue's own run: a custom run function or generated mutants "
                         "(GeneratedOptions.first_kill) decide it themselves")
    confine.probe()  # probe bubblewrap once; every mutant's grader inherits the answer
    results: dict[str, MutantResult] = dict(state.results) if state is not None else {}
    pending = [m for m in mutants if m.id not in results]
    done = len(mutants) - len(pending)
    plans: dict[str, Plan] = {}
    scoped = {m.id: m for m in pending} if generated is not None else {}

    def arrived(record: dict) -> None:
        nonlocal done
        if record["id"] in scoped:   # its scope beside its outcome (``_scope_of``), never changing it
            record = {**record, "scope": _scope_of(scoped[record["id"]], plans)}
        result = result_from_json(record)
        results[result.id] = result
        if state is not None:
            state.save(record)
        done += 1
        if progress:
            progress(result, done, len(mutants))
    copies: dict[str, list] = {}
    if generated is not None and run is None and BY_BYTECODE:
        pending, copies = _settle_by_bytecode(mutants, pending, results, arrived)
    plans.update({m.id: plan(generated, m, timeout) for m in pending} if generated is not None else {})
    if plans:   # the dearest first (``Plan.weight``): order changes no result, only when each starts
        pending.sort(key=lambda m: -plans[m.id].weight)
    prepare([m for m in pending if getattr(m, "edits", ())])
    root = Path(tempfile.mkdtemp(prefix="constrain-mutants-"))
    local_id = f"{os.getpid()}-{id(root)}"
    if scheduler is None:
        _LOCAL_RUNS[local_id] = (run or _default_run(generated, plans, first_kill), root, timeout)
        todo = [executor.Task(m.id, "harness.mutants.runner:run_local_task", {"run": local_id, "index": i})
                for i, m in enumerate(pending)]
    else:
        todo = [_remote_task(m, timeout, generated, plans.get(m.id), first_kill) for m in pending]
    _LOCAL_MUTANTS[local_id] = pending
    try:
        for _task, record in executor.run(todo, jobs=jobs, scheduler=scheduler, stats=stats):
            arrived(record)
            for duplicate in copies.pop(record["id"], ()):
                arrived(result_to_json(duplicate_of(results[record["id"]], duplicate), cpu=0.0))
    finally:
        with _ACTIVE_LOCK:   # no task starts now; the ones running (in the executor's threads) finish first
            _LOCAL_RUNS.pop(local_id, None)
            _LOCAL_MUTANTS.pop(local_id, None)
            _ACTIVE_LOCK.wait_for(lambda: not _ACTIVE.get(local_id))   # each bounded by its mutant's limits
            _ACTIVE.pop(local_id, None)
        shutil.rmtree(root, ignore_errors=True)  # the mutated copies: never left behind
        remove_grader_tmp()   # the grader runs' TMPDIRs (each removed after its run already)
        if scheduler is None:
            warm.close_all()   # this run's warm graders (a worker keeps its own, for its next tasks)
    return [results[m.id] for m in mutants]


def _scope_of(mutant, plans: dict[str, Plan]) -> str:
    """The scope ``plan`` decided for ``mutant``; for one settled by its bytecode before any plan
    (equivalent, or a duplicate of another mutant), decided now (in the run's own thread, before or
    between the tasks: never in one)."""
    from harness.mutants import scope

    chosen = plans.get(mutant.id)
    return chosen.scope if chosen is not None and chosen.scope is not None else scope.classify(mutant.site)


BY_BYTECODE = os.environ.get("CONSTRAIN_HARNESS_NO_BYTECODE_EQUIVALENCE") != "1"
"""Settle generated mutants by their compiled module first (``_settle_by_bytecode``); the variable
set to 1 runs every mutant, as before (the slow path, to compare verdicts)."""
DUPLICATE_NOTE = "duplicate of "   # the detail of a result copied from a mutant with the same compiled module


def _settle_by_bytecode(mutants: list, pending: list, results: dict, arrived: Callable[[dict], None]
                        ) -> tuple[list, dict[str, list]]:
    """Trivial Compiler Equivalence (``harness.mutants.identical_bytecode``) before anything runs: a
    pending mutant whose compiled module is the reference's is equivalent ("identical bytecode",
    ``arrived`` at once); one whose compiled module is an earlier mutant's (in ``mutants``' order) is
    that mutant's duplicate and gets a copy of its verdict (``duplicate_of``), at once when the first
    is already done (a resumed state), else when it arrives. The pending mutants left to run, and
    first id -> the duplicates waiting for it."""
    from harness.mutants import identical_bytecode
    from harness.mutants.apply import REFERENCE_DIR

    same_ids, firsts = identical_bytecode.sort(mutants, REFERENCE_DIR)
    same = [m for m in pending if m.id in same_ids]
    for mutant in same:
        arrived(result_to_json(MutantResult(mutant.id, Outcome.EQUIVALENT, (), [], {}, 0.0,
                                            f"equivalent with evidence: {identical_bytecode.KIND}: "
                                            f"{identical_bytecode.DOMAIN}", evidence=identical_bytecode.evidence()),
                               cpu=0.0))
    settled = {m.id for m in same}
    waiting: dict[str, list] = {}
    for mutant in pending:
        first = firsts.get(mutant.id)
        if first is None:
            continue
        settled.add(mutant.id)
        if first in results:
            arrived(result_to_json(duplicate_of(results[first], mutant), cpu=0.0))
        else:
            waiting.setdefault(first, []).append(mutant)
    return [m for m in pending if m.id not in settled], waiting


def duplicate_of(first: MutantResult, mutant) -> MutantResult:
    """``first``'s verdict for ``mutant``, whose compiled module is ``first``'s (the same program:
    the same outcome, tier, killers and evidence), its detail saying whose it is."""
    detail = f"{DUPLICATE_NOTE}{first.id} (identical bytecode)" + (f": {first.detail}" if first.detail else "")
    return dataclasses.replace(first, id=mutant.id, seconds=0.0, detail=detail, retried="")


_LOCAL_RUNS: dict[str, tuple] = {}       # local run id -> (run function, root, timeout): never sent anywhere
_LOCAL_MUTANTS: dict[str, list] = {}     # local run id -> the mutant objects, in task order
_ACTIVE: dict[str, int] = {}             # local run id -> its tasks running now (guarded by _ACTIVE_LOCK)
_ACTIVE_LOCK = threading.Condition()


def _default_run(generated: GeneratedOptions | None, plans: dict[str, Plan],
                 first_kill: bool = False) -> Callable[..., MutantResult]:
    if generated is None:
        return functools.partial(run_mutant, first_kill=True) if first_kill else run_mutant

    def run(mutant, root, timeout):
        chosen = plans[mutant.id]
        return run_generated(mutant, root, timeout, deep=generated.deep, tests=chosen.tests,
                             deep_tests=chosen.deep_tests, first_kill=generated.first_kill,
                             fingerprint=chosen.fingerprint, evidence=chosen.evidence, infection=chosen.infection,
                             bound=chosen.bound, reuse=chosen.reuse, budgets=chosen.budgets, replay=chosen.replay)
    return run


def _remote_task(mutant, timeout: float, generated: GeneratedOptions | None, chosen: Plan | None,
                 first_kill: bool = False):
    if generated is None:
        return mutant_task(mutant, timeout=timeout, first_kill=first_kill)
    return mutant_task(mutant, timeout=timeout, deep=generated.deep, tests=chosen.tests, deep_tests=chosen.deep_tests,
                       first_kill=generated.first_kill, fingerprint=chosen.fingerprint, evidence=chosen.evidence,
                       infection=chosen.infection, bound=chosen.bound, reuse=chosen.reuse, budgets=chosen.budgets,
                       replay=chosen.replay)


def run_local_task(payload: dict) -> dict:
    """A local task: run the registered function on the mutant object (it never leaves this
    process). It counts itself in ``_ACTIVE`` while it runs, so the run that registered it
    removes its folder only after every task already started has finished."""
    local_id = payload["run"]
    with _ACTIVE_LOCK:
        if local_id not in _LOCAL_RUNS:
            raise RuntimeError(f"mutant run {local_id} has ended: its task {payload['index']} is not started")
        run, root, timeout = _LOCAL_RUNS[local_id]
        mutant = _LOCAL_MUTANTS[local_id][payload["index"]]
        _ACTIVE[local_id] = _ACTIVE.get(local_id, 0) + 1
    try:
        task_cpu(reset=True)
        return result_to_json(run(mutant, root, timeout), cpu=task_cpu())
    finally:
        with _ACTIVE_LOCK:
            _ACTIVE[local_id] -= 1
            _ACTIVE_LOCK.notify_all()
