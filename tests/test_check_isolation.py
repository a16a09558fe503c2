"""Isolation: candidates written to misbehave (tests/candidates/) get a verdict within the
limits, the other tests still run, and the harness's files are unchanged afterwards."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.check import CheckOptions, run_check
from harness.exitcodes import ExitCode

ROOT = Path(__file__).resolve().parents[1]
CANDIDATES = ROOT / "tests" / "candidates"
TWO = ("test_hand_example", "test_apply_mask")  # the first misbehaves, the second must still pass


def checksums(directory: Path, pattern: str = "*") -> dict[str, str]:
    return {str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(directory.rglob(pattern)) if p.is_file() and "__pycache__" not in p.parts}


@pytest.fixture
def suite_files_unchanged():
    """The catalogue's own files are the same before and after the run."""
    before = checksums(ROOT / "harness" / "suite", "*.py")
    yield
    assert checksums(ROOT / "harness" / "suite", "*.py") == before


def grade(candidate: str, *, timeout: float = 30, memory: int = 2048):
    start = time.monotonic()
    result = run_check(CheckOptions(impl=str(CANDIDATES / candidate), only=TWO, timeout=timeout, memory=memory))
    by_name = {t.name: t for t in result.tests}
    return result, by_name["test_hand_example"], by_name["test_apply_mask"], time.monotonic() - start


def test_an_infinite_loop_times_out_and_the_rest_still_runs(suite_files_unchanged):
    result, looping, other, seconds = grade("loops_forever.py", timeout=4)
    assert looping.status == "timeout" and "wall-clock limit: 4 s" in looping.reason
    assert other.status == "passed"
    assert result.exit_code == ExitCode.CRASHED
    assert seconds < 4 + 2 * 60, seconds  # the loop cost one timeout, not the session
    assert len(result.children) == 2  # a second child ran the test after the loop


def test_unbounded_allocation_hits_the_memory_limit(suite_files_unchanged):
    result, hog, other, _ = grade("allocates_forever.py", memory=1024)
    assert hog.status == "crashed" and "memory" in hog.reason.lower(), hog.reason
    assert result.exit_code == ExitCode.CRASHED


def test_os_exit_is_a_crash_even_with_status_0(suite_files_unchanged):
    result, exiting, other, _ = grade("exits_os.py")
    assert exiting.status == "crashed" and "status 0" in exiting.reason
    assert other.status == "passed"
    assert result.exit_code == ExitCode.CRASHED


def test_a_crash_while_importing_blames_the_load_and_reports_are_written(tmp_path):
    import io
    import json

    from harness.cli import main

    out, report = io.StringIO(), tmp_path / "r.json"
    code = main(["check", "--impl", str(CANDIDATES / "exits_on_import.py"), "--json", str(report)], out, io.StringIO())
    assert code == ExitCode.CRASHED, out.getvalue()
    doc = json.loads(report.read_text())
    assert doc["load"]["status"] == "error" and "while loading" in doc["load"]["reason"]
    assert {t["status"] for t in doc["tests"]} == {"not run"} and len(doc["tests"]) == 16
    assert all("crashed while loading" in t["reason"] for t in doc["tests"])
    assert len(doc["children"]) == 1  # a load that crashes is not retried


def test_sys_exit_fails_the_test_and_grading_goes_on(suite_files_unchanged):
    result, exiting, other, _ = grade("exits_sys.py")
    assert exiting.status == "failed" and "SystemExit" in exiting.reason
    assert other.status == "passed"
    assert result.exit_code == ExitCode.FAILED


def test_an_interpreter_crash_names_the_candidates_line_and_reports_are_written(tmp_path, suite_files_unchanged):
    from harness.cli import main
    import io
    import json

    out = io.StringIO()
    results = tmp_path / "results.json"
    code = main(["check", "--impl", str(CANDIDATES / "crashes_interpreter.py"), "--only", ",".join(TWO),
                 "--gradescope", str(results)], out, io.StringIO())
    assert code == ExitCode.CRASHED, out.getvalue()
    doc = json.loads(results.read_text())
    by_name = {t["name"]: t for t in doc["tests"]}
    assert by_name["test_apply_mask"]["status"] == "passed" and doc["score"] == 1.0
    assert "SIGSEGV" in by_name["test_hand_example"]["output"]
    assert "crashes_interpreter.py" in by_name["test_hand_example"]["output"]


def test_a_skip_from_inside_the_candidate_is_a_failure(suite_files_unchanged):
    result, skipped, other, _ = grade("skips_tests.py")
    assert skipped.status == "failed" and "skipped from inside the candidate" in skipped.reason
    assert other.status == "passed" and result.exit_code == ExitCode.FAILED


def test_monkeypatching_re_and_the_harness_is_found_and_undone(suite_files_unchanged):
    result, patched, other, _ = grade("monkeypatches.py")
    at_import = next(f["changes"] for f in result.tamper if f["test"] is None)
    assert {"re.fullmatch rebound", "oracles.stdlib.fullmatch rebound",
            "oracles.derivatives.canonical_dfa rebound"} <= set(at_import)
    assert patched.status == "failed" and "changed the harness" in patched.reason
    assert "harness.suite.test_dfa.fail rebound" in patched.details
    assert other.status == "passed"  # restored: the next test sees the real oracles
    assert result.exit_code == ExitCode.FAILED


def copy_tree(tmp_path: Path) -> Path:
    """A private copy of the harness (so a fallback run may write and restore its files)."""
    root = tmp_path / "tree"
    for name in ("harness", "oracles", "strategies", "golden"):
        shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


@pytest.mark.parametrize("mounts", [True, False], ids=["read-only-mounts", "checksums-fallback"])
def test_writes_to_the_golden_files_leave_them_unchanged(tmp_path, mounts):
    root = copy_tree(tmp_path)
    before = checksums(root)
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}
    if not mounts:
        env["CONSTRAIN_HARNESS_NO_MOUNTS"] = "1"
    proc = subprocess.run([sys.executable, "-m", "harness.cli", "check", "--impl",
                           str(CANDIDATES / "writes_golden.py"), "--only", ",".join(TWO)],
                          cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert checksums(root) == before
    if mounts and "isolation: read-only mounts" in proc.stdout:
        assert proc.returncode == ExitCode.OK, proc.stdout  # the writes failed quietly
    else:
        assert "isolation: checksums" in proc.stdout
        assert "HARNESS FILE golden/masks_golden.json changed" in proc.stdout, proc.stdout
        assert "restored" in proc.stdout and proc.returncode == ExitCode.FAILED


def _limited(code: str, cpu: int, memory: int) -> subprocess.CompletedProcess:
    from harness.check import _limits

    return subprocess.run([sys.executable, "-c", code], preexec_fn=_limits(cpu, memory),
                          capture_output=True, text=True, timeout=60)


def test_the_cpu_limit_stops_a_busy_child():
    proc = _limited("while True: pass", cpu=1, memory=1024)
    assert proc.returncode == -24  # SIGXCPU


def test_the_memory_limit_turns_a_big_allocation_into_memory_error():
    proc = _limited("b = bytearray(1 << 30)", cpu=30, memory=512)
    assert proc.returncode == 1 and "MemoryError" in proc.stderr
