"""The mutant runner's grader runs each get a ``TMPDIR`` of their own (``runner.grader_tmp``),
removed after the run however it ended, under a root ``run_all`` removes at its end: a grader
killed at its CPU limit before its candidate client closed (a mutant run's timeout) leaves no
``constrain-candidate-*`` folder in the machine's temp folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from harness.mutants import runner, warm
from harness.mutants.apply import materialize
from harness.mutants.runner import MutantResult, Outcome
from tests.support.helpers import confined


def test_each_grader_run_s_folder_goes_however_the_run_ends_and_the_root_with_the_last(monkeypatch):
    base = Path(tempfile.mkdtemp(prefix="constrain-test-grader-tmp-"))
    try:
        monkeypatch.setattr(tempfile, "tempdir", str(base))
        monkeypatch.setattr(runner, "_GRADER_TMP", {"root": None, "runs": 0, "pid": 0})
        with pytest.raises(RuntimeError), runner.grader_tmp() as folder:
            (Path(folder) / "constrain-candidate-x").mkdir()   # what a killed grader's client leaves
            raise RuntimeError("the run ended badly")
        assert not os.path.exists(folder)
        root = Path(folder).parent
        with runner.grader_tmp() as first, runner.grader_tmp() as second:
            assert first != second and Path(first).parent == Path(second).parent == root
            runner.remove_grader_tmp()   # a run is in it: kept
            assert root.is_dir()
        assert list(root.iterdir()) == []
        pid = os.fork()   # a fork's copy of the root's name: it never removes the maker's root
        if pid == 0:
            runner.remove_grader_tmp()
            os._exit(0 if root.is_dir() else 1)
        assert os.waitpid(pid, 0)[1] == 0 and root.is_dir()
        runner.remove_grader_tmp()
        assert not root.exists() and list(base.iterdir()) == []
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_a_process_that_runs_graders_without_run_all_removes_the_root_at_its_exit(tmp_path):
    code = ("import sys, tempfile; tempfile.tempdir = sys.argv[1]; from harness.mutants import runner; "
            "print(runner._run([sys.executable, '-c', 'import os; print(os.environ[\\'TMPDIR\\'])'], 30.0))")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], cwd=runner.ROOT, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "CONSTRAIN_HARNESS_WARM": "0"})
    assert done.returncode == 0 and str(tmp_path) in done.stdout, done.stdout + done.stderr   # its run's TMPDIR
    assert list(tmp_path.iterdir()) == []


@confined
@pytest.mark.e2e
def test_a_grader_run_killed_mid_way_leaves_nothing_behind(monkeypatch):
    """A catalogue run (the deep tier, warm grader, candidates forked from the zygote) killed at a
    2-CPU-s limit mid-way: no candidate client's folder is left, during the run or after it."""
    base = Path(tempfile.mkdtemp(prefix="constrain-test-grader-tmp-", dir="/tmp"))  # the zygote's: under /tmp
    monkeypatch.setenv("TMPDIR", str(base))
    monkeypatch.setattr(tempfile, "tempdir", None)
    monkeypatch.setattr(runner, "_GRADER_TMP", {"root": None, "runs": 0, "pid": 0})
    monkeypatch.setattr(warm, "WARM", True)
    monkeypatch.setattr(warm, "ZYGOTE", True)
    monkeypatch.setattr(runner, "_ZYGOTE_SAID", [])
    fresh: list[float] = []   # the CPU a fresh candidate logs (none: every candidate a fork of the zygote)
    logged = runner.read_cpu_log
    monkeypatch.setattr(runner, "read_cpu_log", lambda path: fresh.append(logged(path)) or fresh[-1])
    warm.close_all()   # this test's warm grader: started with its TMPDIR
    seen = []

    def run(mutant, root, timeout):
        package = materialize(mutant, root)
        outcomes, problem = runner.run_catalogue_against(package, None, True, 2.0, zygote=True)
        seen.append((outcomes, problem, sorted(str(p.relative_to(base)) for p in base.rglob("*"))))
        whole = runner.run_catalogue_against(package, ("test_hand_example",), False, 30.0, zygote=True)
        assert whole == ({"test_hand_example": "passed"}, None)
        return MutantResult(mutant.id, Outcome.SURVIVED, (), [], outcomes, 0.0, problem or "")
    try:
        runner.run_all([runner.NULL_MUTANT], jobs=1, run=run)
        [(outcomes, problem, during)] = seen
        assert problem == "timeout" and outcomes, (problem, outcomes)   # killed mid-way, its tests begun
        assert not [p for p in during if "constrain-candidate-" in p], during
        # the zygote served both runs under the run's TMPDIR; the first run's log also carries the
        # warm grader's one recording run (harness.suite.oracle_memo), whose candidate is a fresh one
        assert len(fresh) == 2 and fresh[1] == 0.0 and runner._ZYGOTE_SAID == [], fresh
        assert list(base.iterdir()) == []
    finally:
        warm.close_all()
        shutil.rmtree(base, ignore_errors=True)
