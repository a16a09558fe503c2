"""mutants --state/--resume (harness.mutants.state), the coverage filter (harness.mutants.coverage)
and the warm graders (harness.mutants.warm)."""

from __future__ import annotations

import io
import json
import os
import signal
import threading
import time

import pytest

from harness.cli import main
from harness.mutants import coverage
from harness.mutants.state import MutantState
from harness.sandbox import confine
from tests.support.helpers import left_over


def _record(mutant_id: str, outcome: str = "killed") -> dict:
    return {"id": mutant_id, "outcome": outcome, "expected": [], "killed_by": ["test_hand_example"],
            "tests": {"test_hand_example": "failed"}, "seconds": 1.0, "detail": "", "tier": "default"}


def test_a_state_keeps_every_whole_record_and_never_reads_a_torn_one(tmp_path):
    path = tmp_path / "run.jsonl"
    state = MutantState.open(path, {"mode": "generated", "seed": 1}, resume=False)
    state.save(_record("a"))
    state.save(_record("b", "survived"))
    with open(path, "ab") as f:                       # a crash in the middle of the third write
        f.write(json.dumps(_record("c"))[:40].encode())
    resumed = MutantState.open(path, {"mode": "generated", "seed": 1}, resume=True)
    assert sorted(resumed.records) == ["a", "b"]
    assert resumed.results["b"].outcome.value == "survived"
    resumed.save(_record("c"))                        # the torn tail was cut: the new line is whole
    again = MutantState.open(path, {"mode": "generated", "seed": 1}, resume=True)
    assert sorted(again.records) == ["a", "b", "c"]
    assert all(line.startswith(b"{") for line in path.read_bytes().splitlines())


def test_resume_refuses_other_options_or_a_file_that_is_not_ours(tmp_path):
    path = tmp_path / "run.jsonl"
    MutantState.open(path, {"mode": "generated", "seed": 1}, resume=False).save(_record("a"))
    with pytest.raises(ValueError, match=r"other options \(seed\)"):
        MutantState.open(path, {"mode": "generated", "seed": 2}, resume=True)
    other = tmp_path / "other.jsonl"
    other.write_text('{"format": "something else"}\n')
    with pytest.raises(ValueError, match="not a constrain-harness mutant state"):
        MutantState.open(other, {"mode": "generated"}, resume=True)
    fresh = MutantState.open(path, {"mode": "generated", "seed": 2}, resume=False)   # no --resume: afresh
    assert fresh.records == {} and len(path.read_text().splitlines()) == 1


def test_resume_on_another_python_is_refused_naming_both(tmp_path, monkeypatch):
    path = tmp_path / "run.jsonl"
    MutantState.open(path, {"mode": "generated", "seed": 1}, resume=False).save(_record("a"))
    here = coverage.python_version()
    assert json.loads(path.read_text().splitlines()[0])["python"] == here   # the header names the Python
    other = "3.10" if here != "3.10" else "3.13"
    monkeypatch.setattr(coverage, "python_version", lambda: other)
    with pytest.raises(ValueError, match=rf"run on Python {here}, this is Python {other}") as caught:
        MutantState.open(path, {"mode": "generated", "seed": 1}, resume=True)
    assert str(path) in str(caught.value)
    monkeypatch.undo()
    assert sorted(MutantState.open(path, {"mode": "generated", "seed": 1}, resume=True).records) == ["a"]


def test_resume_without_state_and_every_test_without_generated_are_usage_errors(tmp_path):
    err = io.StringIO()
    assert main(["mutants", "--resume", "--only", "s01"], io.StringIO(), err) == 2
    assert "--resume needs --state" in err.getvalue()
    err = io.StringIO()
    assert main(["mutants", "--every-test", "--only", "s01"], io.StringIO(), err) == 2
    assert "--every-test" in err.getvalue()


def test_statement_lines_take_the_whole_simple_statement_and_only_a_compound_ones_header():
    source = (coverage.REFERENCE_DIR / "parser.py").read_text().splitlines()
    def_line = next(i for i, line in enumerate(source, 1) if line.startswith("def "))
    lines = coverage.statement_lines("parser.py", def_line)
    assert def_line in lines and len(lines) <= 5         # the header, not the body
    assert coverage.statement_lines("parser.py", def_line + 200_000) is None


class _Site:
    def __init__(self, file, line):
        self.file, self.start = file, (line, 0)


class _Mutant:
    def __init__(self, file, line):
        self.site = _Site(file, line)


def test_tests_for_keeps_exactly_the_tests_that_executed_the_statement():
    line = next(i for i, text in enumerate((coverage.REFERENCE_DIR / "nfa.py").read_text().splitlines(), 1)
                if text.strip().startswith("return"))
    cmap = coverage.CoverageMap("d", {"test_hand_example": {"nfa.py": frozenset({line})},
                                      "test_apply_mask": {"nfa.py": frozenset({line + 1000})},
                                      "test_deep_matching_equals_python_re": {"nfa.py": frozenset({line})}})
    assert cmap.tests_for(_Mutant("nfa.py", line), deep=False) == ("test_hand_example",)
    assert set(cmap.tests_for(_Mutant("nfa.py", line), deep=True)) == {"test_hand_example",
                                                                        "test_deep_matching_equals_python_re"}
    assert cmap.tests_for(_Mutant("__init__.py", 1), deep=False) is None      # runs before coverage starts
    far = cmap.tests_for(_Mutant("nfa.py", line + 5000), deep=False)
    assert far is None or far == ()


def test_a_coverage_map_is_reused_only_for_the_same_reference(tmp_path):
    path = tmp_path / "cov.json"
    cmap = coverage.CoverageMap(coverage.reference_digest(), {"test_hand_example": {"nfa.py": frozenset({3, 4})}})
    cmap.save(path)
    assert coverage.CoverageMap.load(path) == cmap
    doc = json.loads(path.read_text())
    doc["reference_digest"] = "0" * 64                     # another reference version
    path.write_text(json.dumps(doc))
    assert coverage.CoverageMap.load(path) is None


@pytest.mark.e2e
def test_a_warm_grader_runs_pytest_in_a_fork_with_the_limits_of_a_cold_run(tmp_path):
    from harness.mutants import warm

    (tmp_path / "test_x.py").write_text("import time\n\ndef test_ok():\n    assert 1\n\n"
                                        "def test_spin():\n    while True:\n        pass\n")
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "PYTHONPATH")}
    env.update(PYTHONDONTWRITEBYTECODE="1", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    grader = warm.WarmGrader(env, str(tmp_path))
    try:
        out = str(tmp_path / "out.txt")
        reply = grader.run(["-q", "-p", "no:cacheprovider", str(tmp_path / "test_x.py"), "-k", "ok"], env,
                           str(tmp_path), cpu=30, wall=120, output=out)
        assert reply["code"] == 0 and "1 passed" in open(out).read()
        reply = grader.run(["-q", "-p", "no:cacheprovider", str(tmp_path / "test_x.py"), "-k", "spin"], env,
                           str(tmp_path), cpu=1, wall=120, output=out)
        assert reply["signal"] in (signal.SIGXCPU, signal.SIGKILL) and not reply["backstop"]  # RLIMIT_CPU ended it
        assert reply["code"] == -reply["signal"]
        assert grader.alive                                 # the warm parent goes on
    finally:
        grader.close()
    assert not grader.alive


@pytest.mark.e2e
def test_a_run_whose_warm_grader_is_killed_ends_with_it(tmp_path):
    """Stopping ``constrain-harness mutants`` (SIGTERM to its process group) killed its warm
    server, but the run the server had forked, in a session of its own and no longer under the
    server's wall backstop, went on alone (found 2026-12-07: two such runs outlived the verb)."""
    from harness.mutants import warm

    (tmp_path / "test_x.py").write_text("import time\n\ndef test_sleeps():\n    time.sleep(600)\n")
    marker = f"constrain-test-warm-orphan-{os.getpid()}"
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "PYTHONPATH")}
    env.update(PYTHONDONTWRITEBYTECODE="1", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", CONSTRAIN_TEST_MARKER=marker)
    grader = warm.WarmGrader(env, str(tmp_path))
    out = tmp_path / "out.txt"
    replies: list = []

    def ask() -> None:   # the caller's side: its server gone, it is told so (not an unhandled thread error)
        try:
            replies.append(grader.run(["-q", "-p", "no:cacheprovider", str(tmp_path / "test_x.py")], env,
                                      str(tmp_path), cpu=30, wall=600, output=str(out)))
        except RuntimeError as exc:
            replies.append(exc)
    request = threading.Thread(target=ask, daemon=True)
    request.start()
    try:
        deadline = time.monotonic() + 120
        while not _runs(marker, grader) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _runs(marker, grader), "the forked run never started"
        time.sleep(1)                                        # into pytest's run
        grader.proc.kill()                                   # the server dies, as with the verb's group
        assert left_over(marker) == []                       # and the run with it, not 600 s later
        request.join(60)
        assert len(replies) == 1 and isinstance(replies[0], RuntimeError), replies
        assert "stopped answering" in str(replies[0])        # the caller learns it, in words
    finally:
        grader.close()
        for pid in confine.marked_processes(marker.encode()):
            os.kill(pid, signal.SIGKILL)


def _runs(marker: str, grader) -> list[int]:
    return [pid for pid in confine.marked_processes(marker.encode()) if pid != grader.proc.pid]
