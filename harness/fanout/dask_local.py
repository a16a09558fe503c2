"""A Dask cluster of real processes on 127.0.0.1, for the tests and the benchmarks.

``LocalCluster(workers=2)`` starts ``dask scheduler`` and ``workers`` ``dask worker``
processes (no nanny, one thread each, no dashboard) from this interpreter, exactly as a
user would on several machines (docs/scale-out.md), and stops them by pid. Each process's
``TMPDIR`` is inside the cluster's folder, which ``stop`` removes: the temporary files of a
task on a killed worker (``kill_worker``) do not outlive the cluster. Every wait is
bounded (``START_SECONDS``); a cluster that does not come up is stopped and raises
``RuntimeError`` with what its processes printed.

Example::

    with LocalCluster(workers=2) as cluster:
        results = list(executor.run(tasks, jobs=1, scheduler=cluster.address))
        cluster.kill_worker(0)   # SIGKILL: the scheduler reruns what it was running
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

START_SECONDS = 60.0   # the scheduler and every worker must be up within this
STOP_SECONDS = 10.0
ROOT = Path(__file__).resolve().parents[2]    # SIGTERM, then SIGKILL past this


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LocalCluster:
    def __init__(self, workers: int = 2, threads: int = 1):
        if not 1 <= workers <= 16:
            raise ValueError(f"workers must be 1..16, not {workers}")
        self.workers_wanted, self.threads = workers, threads
        self.address = f"tcp://127.0.0.1:{free_port()}"
        self.folder = Path(tempfile.mkdtemp(prefix="constrain-dask-"))
        self.scheduler: subprocess.Popen | None = None
        self.workers: list[subprocess.Popen] = []

    def __enter__(self) -> LocalCluster:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _spawn(self, name: str, args: list[str]) -> subprocess.Popen:
        log = open(self.folder / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
        private_tmp = self.folder / f"{name}.tmp"   # TMPDIR: what a killed worker's tasks leave goes with stop()
        private_tmp.mkdir()
        env = dict(os.environ, DASK_DISTRIBUTED__WORKER__DAEMON="False",  # a worker may start processes
                   PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),  # tests' tasks too
                   TMPDIR=str(private_tmp))
        proc = subprocess.Popen([sys.executable, "-m", "dask", *args], stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=env, cwd=self.folder, start_new_session=True)
        log.close()
        return proc

    def start(self) -> None:
        port = self.address.rsplit(":", 1)[1]
        self.scheduler = self._spawn("scheduler", ["scheduler", "--host", "127.0.0.1", "--port", port,
                                                   "--no-dashboard", "--no-show"])
        for _ in range(self.workers_wanted):
            self.add_worker()
        self.wait_for_workers(self.workers_wanted)

    def add_worker(self) -> subprocess.Popen:
        i = len(self.workers)
        proc = self._spawn(f"worker{i}", ["worker", self.address, "--no-nanny", "--nthreads", str(self.threads),
                                          "--no-dashboard", "--name", f"w{i}", "--host", "127.0.0.1",
                                          "--local-directory", str(self.folder / f"w{i}")])
        self.workers.append(proc)
        return proc

    def wait_for_workers(self, n: int) -> None:
        from distributed import Client

        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                with Client(self.address, timeout=5, set_as_default=False) as client:
                    client.wait_for_workers(n, timeout=max(1.0, deadline - time.monotonic()))
                    return
            except (OSError, TimeoutError) as exc:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the local Dask cluster did not start: {exc}\n{self.logs()}") from None
                time.sleep(0.5)

    def busy_worker(self) -> int:
        """The index of a worker the scheduler has a task running on (bounded wait)."""
        from distributed import Client

        deadline = time.monotonic() + START_SECONDS
        with Client(self.address, timeout=5, set_as_default=False) as client:
            while time.monotonic() < deadline:
                names = {addr: info["name"] for addr, info in client.scheduler_info()["workers"].items()}
                for address, keys in client.processing().items():
                    if keys and str(names.get(address, "")).startswith("w"):
                        return int(str(names[address])[1:])
                time.sleep(0.05)
        raise RuntimeError(f"no worker was running a task within {START_SECONDS:g} s")

    def kill_worker(self, i: int) -> None:
        """SIGKILL worker ``i`` (its process group): no goodbye to the scheduler."""
        _signal_group(self.workers[i], signal.SIGKILL)
        self.workers[i].wait(STOP_SECONDS)

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}"
                         for p in sorted(self.folder.glob("*.log")))

    def stop(self) -> None:
        """Ask the scheduler to shut the cluster down (its workers close as Dask closes them),
        then SIGTERM what is still running, SIGKILL past ``STOP_SECONDS``, and SIGKILL each
        process's group last: what a worker started (a mutant run's warm graders) ends with it.
        It returns once every group is gone (``STOP_SECONDS`` at most): a killed process whose
        parent died too stays a member until pid 1 reaps it, after the kill returned.
        Not SIGTERM first: a ``--no-nanny`` worker that has started a process of its own can
        hang in its event loop's shutdown after SIGTERM (seen with distributed 2026.8: 1 stop
        in 4 of a worker holding a child never ended), which ``Client.shutdown`` avoids."""
        if self.scheduler is not None and self.scheduler.poll() is None and self.workers:
            self._shutdown_through_scheduler()
        for proc in [*self.workers, self.scheduler]:
            if proc is not None and proc.poll() is None:
                _signal_group(proc, signal.SIGTERM)
        for proc in [*self.workers, self.scheduler]:
            if proc is None:
                continue
            try:
                proc.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                _signal_group(proc, signal.SIGKILL)
                proc.wait(STOP_SECONDS)
            _signal_group(proc, signal.SIGKILL)   # its session's leftovers (it is gone, its group may not be)
        groups = [proc.pid for proc in [*self.workers, self.scheduler] if proc is not None]
        wait_groups_gone(groups, time.monotonic() + STOP_SECONDS)
        shutil.rmtree(self.folder, ignore_errors=True)

    def _shutdown_through_scheduler(self) -> None:
        """``Client.shutdown()``, then a bounded wait for the processes to end (whatever
        fails here, ``stop`` signals what is left)."""
        try:
            from distributed import Client

            with Client(self.address, timeout=5, set_as_default=False) as client:
                client.shutdown()
        except Exception:   # noqa: BLE001 - a scheduler that cannot be reached: the signals end it
            return
        deadline = time.monotonic() + STOP_SECONDS
        for proc in [*self.workers, self.scheduler]:
            try:
                proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                return


def group_alive(group: int) -> bool:
    """Whether process group ``group`` has a member (a zombie not yet reaped counts)."""
    try:
        os.killpg(group, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:   # a member we may not signal: still a member
        return True


def wait_groups_gone(groups: list[int], deadline: float, alive=group_alive) -> list[int]:
    """Poll until no group of ``groups`` has a member or ``deadline`` (``time.monotonic``)
    passes; the groups still alive then (``[]`` when all are gone)."""
    left = [g for g in groups if alive(g)]
    while left and time.monotonic() < deadline:
        time.sleep(0.02)
        left = [g for g in left if alive(g)]
    return left


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)   # the process and anything it started (its own session)
    except ProcessLookupError:
        pass
