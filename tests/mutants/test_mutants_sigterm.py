"""A mutant run ended from outside (SIGTERM: a job's time limit; SIGHUP: a closed terminal) ends
through its own clean-up: status 128 + the signal, its processes gone, its temporary folders
removed (``commands.mutants._ended_cleanly_by_sigterm``). It left every folder behind before."""
from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from harness.sandbox import confine
from tests.support.helpers import ROOT, confined, left_over

pytestmark = [pytest.mark.e2e, confined]


def _start(tmp: Path) -> subprocess.Popen:
    env = {**os.environ, "TMPDIR": str(tmp)}
    return subprocess.Popen([sys.executable, "-m", "harness.cli", "mutants", "--only", "s05,s12,s21", "--jobs", "1",
                             "--no-self-check"], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)


CANDIDATE_SERVERS = (b"harness.sandbox.server import main", b"harness.sandbox.zygote_server import main")
"""What a confined candidate's bwrap runs (``sandbox.client``, ``sandbox.zygote``): not the sandbox's
probe (``confine.prefetch``), a bwrap the verb starts before it has begun its run."""


def _wait_for_a_candidate(marker: str, run: subprocess.Popen) -> None:
    """Until a confined candidate of the run runs (its bwrap names the run's TMPDIR), or 120 s of wall."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and run.poll() is None:
        commands = []
        for pid in confine.marked_processes(marker.encode()):
            with contextlib.suppress(OSError):
                commands.append(Path(f"/proc/{pid}/cmdline").read_bytes())
        if any(b"bwrap" in command and any(server in command for server in CANDIDATE_SERVERS)
               for command in commands):
            return
        time.sleep(0.1)
    raise AssertionError("no candidate of the run started")


@pytest.mark.parametrize("number", [signal.SIGTERM, pytest.param(signal.SIGHUP, marks=pytest.mark.slow)],
                         ids=["SIGTERM", "SIGHUP"])   # one handler for both: SIGHUP's case under -m slow
def test_a_run_ended_from_outside_cleans_up_and_says_so(number):
    tmp = Path(tempfile.mkdtemp(prefix="constrain-test-sigterm-"))
    try:
        run = _start(tmp)
        try:
            _wait_for_a_candidate(str(tmp), run)
            run.send_signal(number)
            _out, err = run.communicate(timeout=300)
        finally:
            if run.poll() is None:
                os.killpg(run.pid, signal.SIGKILL)
                run.wait()
        assert run.returncode == 128 + number, err
        assert f"ended by {signal.Signals(number).name}" in err
        assert left_over(str(tmp)) == []
        assert sorted(p.name for p in tmp.iterdir()) == []
    finally:
        subprocess.run(["rm", "-rf", str(tmp)], check=False)
