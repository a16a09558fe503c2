"""The Gradescope bundle under Gradescope's default container: 0.5 vCPU and 768 MB (issue 50).

Gradescope runs an autograder in a container of 0.5 vCPU and 768 MB of memory unless the
course asks for more, and stops it at its own timeout (10 minutes by default). Here the
bundle's ``run_autograder`` (built, unpacked and set up as ``tests/grading/test_autograder.py`` does)
grades the reference in the spec's layout inside a cgroup v1 with ``cpu.cfs_quota_us`` 50000
of a 100000 us period and ``memory.limit_in_bytes`` 768 MiB (this machine's kind of cgroups;
the tests run as root). The results file must be written, score full marks, and the whole
run must end within the bundle's own wall budget (``POLICY.run_budget_seconds``, 540 s:
Gradescope's 600 s less the margin). The figures (wall and CPU seconds, peak memory) are
printed for docs/autograder.md. Where no such cgroup can be made the test skips, saying why
(rlimits cannot make a CPU share of half a core).

Slow (a minute or more at half a core): ``python -m pytest -n 0 -m slow tests/grading/test_gradescope_container.py``.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import time
from pathlib import Path

import pytest

import tests.grading.test_autograder as autograder_tests  # the bundle, built, unpacked and set up once
from harness.grading.autograder.locate import SPEC_PATH
from harness.policy import POLICY
from harness.suite.catalogue import NAMES
from tests.support.helpers import left_over, tree_digest

ROOT, valid = autograder_tests.ROOT, autograder_tests.valid
installed = autograder_tests.installed   # its module-scoped fixture, used here as is

CPU_QUOTA_US, CPU_PERIOD_US = 50_000, 100_000   # 0.5 vCPU
MEMORY_BYTES = 768 << 20                         # 768 MB


def _v1_folder(controller: str) -> Path | None:
    """This process's own cgroup folder in the v1 hierarchy of ``controller``, or None."""
    own = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, keys, path = line.split(":", 2)
        for key in keys.split(","):
            own[key] = path
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        before, _, after = line.partition(" - ")
        fields, tail = before.split(), after.split()
        if len(tail) >= 3 and tail[0] == "cgroup" and controller in tail[2].split(",") and controller in own:
            root, point = fields[3], fields[4]
            if own[controller].startswith(root):
                return Path(point) / own[controller][len(root):].lstrip("/")
    return None


class Container:
    """Half a core and 768 MB as cgroups v1 ``cpu`` (CFS quota), ``cpuacct`` (to count) and
    ``memory``; ``enter`` (between fork and exec) puts a process in all three."""

    def __init__(self):
        name = f"constrain-harness-gradescope-test-{secrets.token_hex(4)}"
        self.folders = {}
        try:
            for controller in ("cpu", "cpuacct", "memory"):
                base = _v1_folder(controller)
                if base is None:
                    raise OSError(f"no cgroup v1 {controller} hierarchy here")
                (base / name).mkdir()
                self.folders[controller] = base / name
            (self.folders["cpu"] / "cpu.cfs_period_us").write_text(str(CPU_PERIOD_US))
            (self.folders["cpu"] / "cpu.cfs_quota_us").write_text(str(CPU_QUOTA_US))
            (self.folders["memory"] / "memory.limit_in_bytes").write_text(str(MEMORY_BYTES))
        except OSError:
            self.remove()
            raise

    def enter(self) -> None:
        for folder in self.folders.values():
            (folder / "cgroup.procs").write_text(str(os.getpid()))

    def cpu_seconds(self) -> float:
        return int((self.folders["cpuacct"] / "cpuacct.usage").read_text()) / 1e9

    def peak_memory_mb(self) -> float:
        return int((self.folders["memory"] / "memory.max_usage_in_bytes").read_text()) / (1 << 20)

    def remove(self) -> None:
        for folder in self.folders.values():
            for _ in range(100):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.05)


@pytest.fixture
def container():
    try:
        box = Container()
    except OSError as exc:
        pytest.skip(f"no cgroup for Gradescope's container can be made here: {exc}")
    yield box
    box.remove()


@pytest.mark.e2e
@pytest.mark.slow
def test_the_bundle_grades_the_reference_within_gradescopes_default_container_and_budget(installed, container):
    root, env = installed
    submission = root / "submission"
    shutil.rmtree(submission, ignore_errors=True)
    shutil.copytree(ROOT / "oracles" / "automaton", submission / SPEC_PATH.with_suffix(""),
                    ignore=shutil.ignore_patterns("__pycache__"))
    (root / "results" / "results.json").unlink(missing_ok=True)
    before = tree_digest(bytecode=False)
    start = time.monotonic()
    proc = subprocess.run([str(root / "run_autograder")], env=env, capture_output=True, text=True,
                          timeout=POLICY.platform_wall_seconds, preexec_fn=container.enter)
    wall = time.monotonic() - start
    cpu, peak = container.cpu_seconds(), container.peak_memory_mb()
    print(f"\nGradescope's default container (0.5 vCPU, 768 MB): the reference graded in {wall:.0f} s of wall "
          f"time, {cpu:.1f} CPU s, peak memory {peak:.0f} MB, load {os.getloadavg()[0]:.1f}")
    assert proc.returncode == 0, proc.stderr
    results = valid(json.loads((root / "results" / "results.json").read_text()))
    graded = [t for t in results["tests"] if t["name"] in NAMES]
    assert len(graded) == len(NAMES) and all(t["status"] == "passed" for t in graded), results["output"][-3000:]
    assert results["score"] == 32.0
    assert wall < POLICY.run_budget_seconds, wall   # within the bundle's budget, so within Gradescope's 600 s
    assert cpu <= wall * CPU_QUOTA_US / CPU_PERIOD_US + 1.0   # the quota held: at most half a core
    assert peak <= MEMORY_BYTES / (1 << 20)
    assert tree_digest(bytecode=False) == before              # the harness's files unchanged
    assert not any(int(p) for p in (container.folders["cpuacct"] / "cgroup.procs").read_text().split())
    assert left_over("constrain-harness-gradescope-test") == []
