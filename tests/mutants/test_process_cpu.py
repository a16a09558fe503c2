"""The mutants verb's "CPU in mutant processes" counts the confined candidates
(``harness.mutants.process_cpu``), held to the truth: the cpuacct count of a cgroup made for the
verb, which every process it starts and every candidate cgroup beneath it is charged to.

Before, the figure was the verb's ``RUSAGE_CHILDREN`` alone: for ``--only s05,s12 --jobs 1`` it
printed 18 s where the cgroup counted 32.5 s (no ``getrusage`` holds a candidate whose tree ended
with its PID namespace).
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from harness.commands.mutants import cpu_line
from harness.mutants import process_cpu, runner
from harness.sandbox.cpulog import CPU_LOG
from tests.support.helpers import left_over

ROOT = Path(__file__).resolve().parents[2]
LINE = re.compile(r"CPU ([\d.]+) s in mutant processes \(([\d.]+) s graders \+ ([\d.]+) s their confined candidates")


def _cpuacct_cgroup() -> Path | None:
    """A fresh cgroup v1 cpuacct folder under this process's own, or None where none can be made
    (cgroup v2 only, or no write access): the oracle is then missing and the test skips."""
    own = next((line.split(":", 2)[2].strip() for line in Path("/proc/self/cgroup").read_text().splitlines()
                if "cpuacct" in line.split(":", 2)[1].split(",")), None)
    if own is None:
        return None
    folder = Path("/sys/fs/cgroup/cpuacct") / own.lstrip("/") / f"measure-{uuid.uuid4().hex[:8]}"
    try:
        folder.mkdir()
    except OSError:
        return None
    return folder


def _measured(tmp_path, *argv: str) -> tuple[float, float, tuple[float, float, float]]:
    """``mutants ARGV`` inside a cgroup of its own: (the cgroup's CPU seconds, this test's
    ``RUSAGE_CHILDREN`` of it, the printed (total, graders, candidates)). The run leaves no
    process and no candidate cgroup behind (the cgroup is removed, so it was empty)."""
    cgroup = _cpuacct_cgroup()
    if cgroup is None:
        pytest.skip("no cgroup v1 cpuacct folder can be made here: no truth to hold the figure to")
    marker = f"process-cpu-{uuid.uuid4().hex[:8]}"
    before = _children_cpu()
    try:
        proc = subprocess.run([sys.executable, "-m", "harness.cli", "mutants", *argv], cwd=tmp_path,
                              capture_output=True, text=True, timeout=1800,
                              env={**os.environ, "CONSTRAIN_TEST_MARKER": marker},
                              preexec_fn=lambda: (cgroup / "cgroup.procs").write_text(str(os.getpid())))
        truth = int((cgroup / "cpuacct.usage").read_text()) / 1e9
    finally:
        assert left_over(marker) == []
        cgroup.rmdir()
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    printed = tuple(map(float, LINE.search(proc.stdout).groups()))
    assert printed[0] == pytest.approx(printed[1] + printed[2], abs=0.11)
    return truth, _children_cpu() - before, printed


def _slack(truth: float) -> float:
    """Rounding to tenths and the CPU of the cgroup's own bookkeeping (measured: 0.05 s)."""
    return 0.05 * truth + 0.15


@pytest.mark.e2e
def test_the_graders_and_candidates_printed_are_the_cgroups_count(tmp_path):
    """``mutants --only s05 --jobs 1 --no-self-check`` (~3 CPU s): this test's ``RUSAGE_CHILDREN``
    holds the verb and the graders it reaped, never a candidate; with the printed candidates'
    share added it is the cgroup's count; the printed graders are among what was reaped."""
    truth, reaped, (_, graders, candidates) = _measured(tmp_path, "--only", "s05", "--jobs", "1", "--no-self-check")
    assert candidates > 0 and graders <= reaped + 0.05
    assert abs(truth - (reaped + candidates)) <= _slack(truth), (truth, reaped, candidates)


@pytest.mark.e2e
@pytest.mark.slow
def test_with_the_self_check_the_candidates_are_two_fifths_the_old_figure_missed(tmp_path):
    """``mutants --only s12 --jobs 1`` (~31 CPU s, the self check's clean catalogue run
    included): as above, and without the candidates' share the count is far off (measured: 17.8 s
    reaped, 13.3 s of candidates, the cgroup 31.1 s), the figure the verb printed before."""
    truth, reaped, (total, graders, candidates) = _measured(tmp_path, "--only", "s12", "--jobs", "1")
    assert graders <= reaped + 0.05
    assert abs(truth - (reaped + candidates)) <= _slack(truth), (truth, reaped, candidates)
    assert truth - reaped > 0.25 * truth, (truth, reaped)   # the share the old RUSAGE_CHILDREN figure missed
    assert total <= truth + 0.1


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@pytest.mark.e2e  # a Python child inherits the log's variable
def test_the_meter_reads_the_logs_once_and_puts_the_variable_back(monkeypatch):
    """``RunCpu``: a cold run's candidate logs to the file its variable names (inherited by a
    child), a warm run's share arrives in ``runner.CANDIDATE_CPU``; each second is counted once,
    and ``CPU_LOG`` is as it was after ``close``."""
    monkeypatch.setenv(CPU_LOG, "/before")
    monkeypatch.setattr(runner, "CANDIDATE_CPU", [5.0])
    meter = process_cpu.RunCpu()
    log = os.environ[CPU_LOG]
    assert log != "/before"
    subprocess.run([sys.executable, "-c", f"import os; open(os.environ[{CPU_LOG!r}], 'a').write('1.5\\n2.25\\n')"],
                   check=True)
    runner.CANDIDATE_CPU[0] += 0.75
    _, candidates = meter.seconds()
    assert candidates == pytest.approx(4.5)
    assert meter.seconds()[1] == pytest.approx(4.5)   # the log was read once, its seconds kept
    meter.close()
    assert os.environ[CPU_LOG] == "/before" and not os.path.exists(log)


def test_the_line_names_both_shares_and_what_a_dask_run_counts():
    line = cpu_line(156.2, 17.64, 12.4, jobs=1, scheduler=None)
    assert line.startswith("wall 156 s, CPU 30.0 s in mutant processes (17.6 s graders + 12.4 s their confined "
                           "candidates;")
    assert "Dask" not in line
    assert "on this machine only: the Dask workers' CPU is each record's cpu_seconds" in \
        cpu_line(10, 1, 0, jobs=2, scheduler="tcp://127.0.0.1:8786")
