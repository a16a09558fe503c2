"""harness.fanout.executor: the task interface, the local pool, and the Dask backend on a real
cluster of processes on 127.0.0.1 (skipped when dask is not installed)."""

from __future__ import annotations

import json
import os
import signal
import time

import pytest

from harness.fanout import executor
from harness.fanout.executor import RunStats, Task


def test_local_run_returns_every_record_under_its_key():
    tasks = [Task(f"t{i}", "harness.fanout.executor:echo", {"n": i}) for i in range(7)]
    got = {t.key: r for t, r in executor.run(tasks, jobs=3)}
    assert got == {f"t{i}": {"n": i} for i in range(7)}


def test_duplicate_keys_and_bad_tasks_are_refused():
    with pytest.raises(ValueError, match="unique"):
        executor.run([Task("a", "harness.fanout.executor:echo"), Task("a", "harness.fanout.executor:echo")], jobs=1)
    with pytest.raises(ValueError, match="package.module:function"):
        Task("a", "harness.fanout.executor.echo")
    with pytest.raises(ValueError, match="non-empty string"):
        Task("", "harness.fanout.executor:echo")


def test_closing_a_local_run_early_cancels_the_tasks_not_started():
    started = []
    tasks = [Task(f"t{i}", "tests.fanout.test_executor:record_start", {"n": i}) for i in range(50)]
    _START_LOG.clear()
    results = executor.run(tasks, jobs=1)
    next(results)
    results.close()
    time.sleep(0.3)
    started = list(_START_LOG)
    assert len(started) < 50


_START_LOG: list[int] = []


def record_start(payload):
    _START_LOG.append(payload["n"])
    time.sleep(0.02)
    return {"n": payload["n"]}


def test_the_scheduler_comes_from_the_option_then_the_environment(monkeypatch):
    monkeypatch.delenv(executor.SCHEDULER_ENV, raising=False)
    assert executor.scheduler_from(None) is None
    monkeypatch.setenv(executor.SCHEDULER_ENV, "tcp://127.0.0.1:1")
    assert executor.scheduler_from(None) == "tcp://127.0.0.1:1"
    assert executor.scheduler_from("tcp://127.0.0.1:2") == "tcp://127.0.0.1:2"


def test_execute_json_is_text_in_and_text_out():
    out = executor.execute_json("harness.fanout.executor:echo", json.dumps({"b": [1, 2], "a": "x"}))
    assert isinstance(out, str) and json.loads(out) == {"a": "x", "b": [1, 2]}


def test_the_build_digest_covers_the_harness_and_the_oracles():
    digest = executor.build_digest()
    assert len(digest) == 64 and set(digest) <= set("0123456789abcdef")


# --- Dask, on real processes --------------------------------------------------------------------

def _dask_or_skip():
    pytest.importorskip("distributed", reason="the dask extra is not installed (pip install '.[dask]')")
    from harness.fanout.dask_local import LocalCluster

    return LocalCluster


def test_without_dask_or_a_scheduler_a_scheduler_address_is_a_clear_error(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_distributed(name, *args, **kwargs):
        if name == "distributed" or name.startswith("distributed."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_distributed)
    with pytest.raises(ValueError, match=r"constrain-harness\[dask\]"):
        list(executor.run([Task("a", "harness.fanout.executor:echo")], jobs=1, scheduler="tcp://127.0.0.1:9"))


def test_a_scheduler_nobody_answers_is_a_clear_error(monkeypatch):
    _dask_or_skip()
    monkeypatch.setattr(executor, "CONNECT_SECONDS", 0.5)  # nothing listens there: refused at once, retried till then
    with pytest.raises(ValueError, match="no Dask scheduler answered"):
        list(executor.run([Task("a", "harness.fanout.executor:echo")], jobs=1, scheduler="tcp://127.0.0.1:9"))
    with pytest.raises(ValueError, match="tcp://"):
        list(executor.run([Task("a", "harness.fanout.executor:echo")], jobs=1, scheduler="127.0.0.1:9"))


@pytest.mark.e2e
def test_dask_gives_the_local_records_and_survives_a_killed_worker(tmp_path):
    LocalCluster = _dask_or_skip()
    marker = tmp_path / "first-attempts"
    marker.mkdir()
    tasks = [Task(f"t{i}", "tests.fanout.test_executor:held_square", {"n": i, "folder": str(marker)}) for i in range(8)]
    (marker / "released").touch()
    local = {t.key: r for t, r in executor.run(tasks, jobs=2)}
    for path in marker.iterdir():
        path.unlink()
    with LocalCluster(workers=2) as cluster:
        stats = RunStats()
        remote = {}
        for task, record in executor.run(tasks, jobs=1, scheduler=cluster.address, stats=stats):
            remote[task.key] = record
            if len(remote) == 1:   # t0 done, the next tasks held: kill a worker in the middle of one
                victim = _worker_running_a_task(marker, cluster)
                os.kill(cluster.workers[victim].pid, signal.SIGKILL)
                assert cluster.workers[victim].wait(10) == -signal.SIGKILL
                (marker / "released").touch()
    assert remote == local                      # nothing lost, nothing different
    assert stats.retried, "the killed worker's task was rerun and counted"
    assert set(stats.retried) <= set(remote)


def _worker_running_a_task(marker, cluster) -> int:
    """The index of a worker that has started a task not yet finished (bounded wait)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        running = [p for p in marker.iterdir() if p.suffix == ".running"]
        for path in running:
            pid = int(path.read_text() or 0)
            for i, proc in enumerate(cluster.workers):
                if proc.pid == pid and proc.poll() is None:
                    return i
        time.sleep(0.02)
    raise AssertionError("no worker started a task within 30 s")


def held_square(payload):
    """A task that says, while it runs, which process runs it; every task but ``n == 0`` is
    held until the file ``released`` is in the folder (at most 60 s), so a worker can be
    killed in the middle of one without waiting on a clock."""
    path = os.path.join(payload["folder"], f"{payload['n']}.{os.getpid()}.running")
    with open(path, "w") as f:
        f.write(str(os.getpid()))
    deadline = time.monotonic() + 60
    while payload["n"] and not os.path.exists(os.path.join(payload["folder"], "released")):
        assert time.monotonic() < deadline, "held for 60 s: nobody released the tasks"
        time.sleep(0.01)
    os.unlink(path)
    return {"n": payload["n"], "square": payload["n"] ** 2}


@pytest.mark.e2e  # starts the local worker processes
def test_local_processes_give_the_threads_records_and_leave_no_worker_behind():
    tasks = [executor.Task(f"t{i}", "harness.fanout.executor:echo", {"n": i, "text": "é" * i}) for i in range(8)]
    threads = {t.key: r for t, r in executor.run(tasks, jobs=2)}
    processes = {t.key: r for t, r in executor.run(tasks, jobs=2, processes=True)}
    assert processes == threads == {f"t{i}": {"n": i, "text": "é" * i} for i in range(8)}
    sleepers = [executor.Task(f"s{i}", "tests.support.helpers:worker_pid", {"sleep": 0.5 if i < 2 else 30})
                for i in range(6)]
    stream = executor.run(sleepers, jobs=2, processes=True)
    pids = {next(stream)[1]["pid"], next(stream)[1]["pid"]}
    assert os.getpid() not in pids   # they ran in worker processes
    stream.close()  # stopped early, with two 30 s tasks running: the pool's workers are ended
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(pid) for pid in pids):
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in pids)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
