"""Run mutants: each in its own process, with a timeout, expected killers first.

Every mutant runs behind the wall, as any candidate (``harness.sandbox``: the catalogue's
plugin and ``replay_child`` start a confined candidate process for it).

For a catalogue mutant: run the catalogue (``harness/suite``) against the mutant's
package with only its expected killers (``-k``); if none fails, run the rest of the
catalogue to learn whether some other test kills it. For a replay mutant: replay
``constrain_golden.json`` against it (``harness.mutants.replay_child``) and read
which checks failed; for a tool-surface mutant (``l10_9:s12``-``s16``, a copy of
``oracles/tools``) the same with ``tools_golden.json`` (``replay_child --tools``).

Outcomes (``Outcome``): killed (by an expected test or, reported apart, only by
others), survived, timeout, error (the mutant could not even be loaded, or the
runner failed), stale (the patch no longer applies).

The runner checks itself before scoring (``self_check``): the clean copy of the
reference must pass every expected killer (no false kills), and a forced failure
(a copy whose ``regex_to_dfa`` raises) must be killed.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Callable

from harness.mutants.apply import PatchDoesNotApply, materialize
from harness.mutants.catalogue import CATALOGUE, MUTANTS, REPLAY, TOOLS_REPLAY, Edit, Mutant

ROOT = Path(__file__).resolve().parents[2]
SUITE_DIR = ROOT / "harness" / "suite"
DEFAULT_TIMEOUT = 120.0


class Outcome(enum.Enum):
    KILLED = "killed"
    SURVIVED = "survived"
    TIMEOUT = "timeout"
    ERROR = "error"
    STALE = "patch no longer applies"


@dataclasses.dataclass
class MutantResult:
    id: str
    outcome: Outcome
    expected: tuple[str, ...]
    killed_by: list[str]
    tests: dict[str, str]            # test or check -> "passed" / "failed" / "error" / "skipped"
    seconds: float
    detail: str = ""

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
    env["CONSTRAIN_HARNESS_PROFILE"] = "ci"
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # the catalogue needs no third-party plugin
    return env


def _run(cmd: list[str], timeout: float) -> tuple[int | None, str]:
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, ""
    return proc.returncode, proc.stdout + proc.stderr


def run_catalogue(package: Path, tests: tuple[str, ...] | None, timeout: float) -> tuple[dict[str, str], str | None]:
    """Run catalogue tests against ``package``: (test -> outcome, problem or None)."""
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl", delete=False) as f:
        results_path = f.name
    cmd = [sys.executable, "-m", "pytest", str(SUITE_DIR), "-p", "harness.suite.plugin", "-q",
           "-p", "no:cacheprovider", "--impl", str(package), "--results-file", results_path]
    if tests:
        cmd += ["--only", ",".join(tests)]  # exact names (-k would match substrings)
    try:
        code, output = _run(cmd, timeout)
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
            elif record.get("event") == "load" and record.get("status") != "ok":
                load_problem = record.get("reason", "the mutant did not load")
    os.unlink(results_path)
    if code is None:
        return outcomes, "timeout"
    if load_problem:
        return outcomes, load_problem
    if code not in (0, 1, 5) and not outcomes:
        return outcomes, f"pytest exited {code}: {output.strip().splitlines()[-1:] or ''}"
    return outcomes, None


def run_replay(package: Path, timeout: float, tools: bool = False) -> tuple[dict[str, str], str | None]:
    """Replay constrain_golden.json (tools_golden.json when ``tools``) against ``package``."""
    flags = ["--tools"] if tools else []
    code, output = _run([sys.executable, "-m", "harness.mutants.replay_child", *flags, str(package)], timeout)
    if code is None:
        return {}, "timeout"
    try:
        data = json.loads(output.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {}, f"replay failed (exit {code}): {output.strip()[-300:]}"
    if "error" in data:
        return {}, f"replay failed: {str(data['error'])[:300]}"
    return {c: ("failed" if v["failures"] else "passed") for c, v in data["checks"].items()}, None


def run_mutant(mutant: Mutant, root: Path, timeout: float = DEFAULT_TIMEOUT) -> MutantResult:
    start = time.monotonic()
    try:
        package = materialize(mutant, root)
    except PatchDoesNotApply as exc:
        return MutantResult(mutant.id, Outcome.STALE, mutant.killers, [], {}, 0.0, str(exc))
    if mutant.kind in (REPLAY, TOOLS_REPLAY):
        tests, problem = run_replay(package, timeout, tools=mutant.kind == TOOLS_REPLAY)
    else:
        tests, problem = run_catalogue(package, mutant.killers or None, timeout)
        if problem is None and not _failed(tests) and mutant.killers:
            rest, problem = run_catalogue(package, None, timeout)
            tests.update(rest)
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


def _failed(tests: dict[str, str]) -> list[str]:
    """Tests that detected the mutant: a failure, an error, or a crash of the candidate."""
    return [t for t, outcome in tests.items() if outcome in ("failed", "error", "crashed")]


def self_check(root: Path, timeout: float = DEFAULT_TIMEOUT) -> list[str]:
    """Problems with the runner itself ([] when it can be trusted)."""
    from harness.sandbox import confine

    confine.probe()
    problems = []
    clean = materialize(NULL_MUTANT, root)
    killers = sorted({k for m in MUTANTS if m.kind == CATALOGUE for k in m.killers})
    tests, problem = run_catalogue(clean, tuple(killers), timeout)
    if problem or _failed(tests):
        problems.append(f"the clean reference copy fails the catalogue: {problem or _failed(tests)}")
    replay, problem = run_replay(clean, timeout)
    if problem or _failed(replay):
        problems.append(f"the clean reference copy fails golden replay: {problem or _failed(replay)}")
    tools, problem = run_replay(materialize(NULL_TOOLS_MUTANT, root), timeout, tools=True)
    if problem or _failed(tools):
        problems.append(f"the clean oracles/tools copy fails golden replay --file tools: {problem or _failed(tools)}")
    forced = run_mutant(FORCED_FAILURE, root, timeout)
    if forced.outcome is not Outcome.KILLED:
        problems.append(f"a forced failure was not killed ({forced.outcome.value})")
    return problems


def run_all(mutants: list[Mutant], *, jobs: int = 2, timeout: float = DEFAULT_TIMEOUT,
            progress: Callable[[MutantResult, int, int], None] | None = None) -> list[MutantResult]:
    from harness.sandbox import confine

    confine.probe()  # probe bubblewrap once; every mutant's grader inherits the answer
    root = Path(tempfile.mkdtemp(prefix="constrain-mutants-"))
    results: dict[str, MutantResult] = {}
    try:
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = {pool.submit(run_mutant, m, root, timeout): m for m in mutants}
            done = 0
            for future in as_completed(futures):
                result = future.result()
                results[result.id] = result
                done += 1
                if progress:
                    progress(result, done, len(mutants))
    finally:
        shutil.rmtree(root, ignore_errors=True)  # the mutated copies: never left behind
    return [results[m.id] for m in mutants]

