"""Numeric libraries run on one thread in every process of the grader and the candidate
(``harness.sandbox.isolated.ONE_THREAD_ENV``), whatever the caller's environment says: the
grader children's environment (``isolated.environment``), the candidate's
(``confine.FIXED_ENV``) and the ``constrain-harness`` program's own (``harness.cli.program``).

The oracle is the process itself: the threads it runs (``/proc/self/task``) once numpy is
imported, against the same interpreter started with the caller's setting, which must show
a pool (else the machine starts none and the comparison could not fail: skipped)."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys

import pytest

from harness.sandbox import confine, isolated
from tests.support.helpers import ROOT

pytestmark = pytest.mark.unit
CALLER = {"OPENBLAS_NUM_THREADS": "4", "OMP_NUM_THREADS": "4", "MKL_NUM_THREADS": "4"}
COUNT_THREADS = "import numpy, os; print(len(os.listdir('/proc/self/task')))"


def _threads(code: str, env: dict[str, str]) -> int:
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=True)
    return int(done.stdout.split()[-1])


@pytest.fixture(scope="module")
def caller_env():
    env = {**os.environ, **CALLER}
    if _threads(COUNT_THREADS, env) <= 1:
        pytest.skip("numpy starts no thread pool on this machine: one thread either way")
    return env


@pytest.mark.e2e  # Python children
def test_the_grader_children_environment_sets_one_thread_over_the_callers(caller_env):
    env = isolated.environment(base=caller_env)
    assert {k: env[k] for k in isolated.ONE_THREAD_ENV} == isolated.ONE_THREAD_ENV == dict.fromkeys(CALLER, "1")
    assert _threads(COUNT_THREADS, {**env, "PYTHONPATH": str(ROOT)}) == 1


def test_the_candidate_environment_sets_one_thread():
    assert isolated.ONE_THREAD_ENV.items() <= confine.FIXED_ENV.items()


@pytest.mark.e2e  # Python children
def test_the_program_runs_numpy_and_its_children_on_one_thread_over_the_callers(caller_env):
    program = "import sys; sys.argv = ['constrain-harness', '--version']; from harness import cli; cli.program(); "
    assert _threads(program + COUNT_THREADS, caller_env) == 1
    child = "import subprocess, sys; subprocess.run([sys.executable, '-c', " + repr(COUNT_THREADS) + "], check=True)"
    assert _threads(program + child, caller_env) == 1
    assert _threads("from harness import cli; cli.main(['--version']); " + COUNT_THREADS, caller_env) > 1  # main alone


def test_the_console_script_is_the_program():
    (script,) = [e for e in importlib.metadata.entry_points(group="console_scripts") if e.name == "constrain-harness"]
    assert script.value == "harness.cli:program"
