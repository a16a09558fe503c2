"""``harness.run.launch``: the grader child's pytest command line (``pytest_arguments``: pytest's
own plugins the catalogue never uses are blocked, each by its real name, and none the
catalogue's session needs); when ``check`` runs again isolated (``isolated_again``) and the
unbuffered streams it then gives back (``unbuffered_again``)."""

from __future__ import annotations

import io
import os
import sys

import pytest
from _pytest.config import default_plugins

from harness.run import CatalogueRun, launch
from harness.run.launch import UNUSED_PLUGINS, pytest_arguments
from harness.sandbox import isolated

NEEDED = {"main", "runner", "fixtures", "python", "terminal", "capture", "skipping", "mark", "warnings",
          "logging", "reports", "faulthandler", "assertion", "helpconfig", "unraisableexception",
          "threadexception", "tmpdir", "monkeypatch", "recwarn"}
"""What a catalogue session uses: collection, fixtures, reports (the twin streams them),
captured output, logs and warnings, the faulthandler, assertion rewriting (the catalogue's
own sanity asserts), and the fixtures pytest itself offers."""


@pytest.mark.unit
def test_unused_plugins_are_blocked_by_name_and_none_needed_is():
    args = pytest_arguments(CatalogueRun(impl="oracles.automaton"))
    blocked = {args[i + 1][3:] for i, arg in enumerate(args) if arg == "-p" and args[i + 1].startswith("no:")}
    assert blocked == set(UNUSED_PLUGINS)
    known = set(default_plugins) | {"subtests"}  # subtests: a default plugin from pytest 9 on
    assert blocked <= known, blocked - known  # a name pytest does not know would block nothing
    assert not blocked & NEEDED
    assert NEEDED <= set(default_plugins)


SCRIPT = ["/venv/bin/python3", "/venv/bin/constrain-harness", "check", "--impl", "x.py"]


@pytest.fixture
def caller(monkeypatch):
    """This process as a console script started with ``argv`` in an environment without any
    variable ``isolated.environment`` drops, but those given."""
    def make(argv=SCRIPT, **env):
        monkeypatch.setattr(sys, "orig_argv", list(argv))
        monkeypatch.setattr(sys, "executable", argv[0])
        for name in [n for n in os.environ if n.startswith(isolated.DROPPED_PREFIXES)]:
            monkeypatch.delenv(name)
        monkeypatch.delenv(launch.FORK_ENV, raising=False)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
    return make


@pytest.mark.unit
def test_a_console_script_in_a_plain_environment_runs_again_isolated(caller):
    caller()
    assert launch.isolated_again("harness.cli", ["check"]) == isolated.command("harness.cli", "check")
    caller(PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1")  # kept as the isolated run keeps them
    assert launch.isolated_again("harness.cli", ["check"]) is not None
    assert launch.isolated_environment()[launch.UNBUFFERED_ENV] == "1"
    caller()
    assert launch.UNBUFFERED_ENV not in launch.isolated_environment()


@pytest.mark.unit
@pytest.mark.parametrize("argv, env", [
    (SCRIPT, {"PYTHONPATH": "/somewhere"}),          # the isolated run would drop it
    (SCRIPT, {"PYTHONIOENCODING": "latin-1"}),
    (SCRIPT, {"PYTEST_ADDOPTS": "-x"}),
    (SCRIPT, {"PYTHONDONTWRITEBYTECODE": ""}),       # another value than the isolated one
    (SCRIPT, {launch.FORK_ENV: "0"}),                 # forks switched off
    (["/venv/bin/python3", "-X", "dev", "/venv/bin/constrain-harness", "check"], {}),  # interpreter options
    (["/venv/bin/python3", "-m", "harness.cli", "check"], {}),
    (["/venv/bin/python3", "-s", "-B", "-X", "faulthandler", "-c", isolated.BOOT, "/r", "harness.cli", "check"], {}),
])
def test_otherwise_the_program_runs_as_it_was_started(caller, argv, env):
    caller(argv, **env)
    assert launch.isolated_again("harness.cli", ["check"]) is None


_FIRST = """
import json, os, sys
sys.orig_argv = [sys.executable, "/venv/bin/constrain-harness", "check"]
def execve(path, argv, env):
    print(json.dumps([argv[-2:], sorted(m for m in sys.modules if m.startswith("harness.run"))]), flush=True)
    os._exit(0)
os.execve = execve
from harness import cli
sys.argv = ["constrain-harness", "check"]
cli._run_isolated_again()
print("not run again")
"""


@pytest.mark.e2e  # a fresh interpreter's sys.modules
def test_the_console_script_runs_again_isolated_before_it_imports_the_launcher():
    """The first interpreter of ``constrain-harness check`` decides to run again isolated and
    execs itself without importing ``harness.run`` (the launcher and the run value: ~0.02 CPU s
    of a process that is replaced at once); the run again isolated is the same command."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(isolated.DROPPED_PREFIXES) and k != launch.FORK_ENV}
    import json
    import subprocess

    done = subprocess.run([sys.executable, "-c", _FIRST], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [["harness.cli", "check"], []]


@pytest.mark.unit
def test_unbuffered_streams_are_given_back_once(monkeypatch):
    monkeypatch.setattr(sys, "stdout", sys.__stdout__)
    monkeypatch.setattr(sys, "stderr", sys.__stderr__)
    monkeypatch.setenv(launch.UNBUFFERED_ENV, "1")
    launch.unbuffered_again()
    assert launch.UNBUFFERED_ENV not in os.environ   # never passed on
    for stream, before in ((sys.stdout, sys.__stdout__), (sys.stderr, sys.__stderr__)):
        assert stream is not before and stream.write_through and isinstance(stream.buffer, io.FileIO)
        assert (stream.fileno(), stream.encoding, stream.errors) == (before.fileno(), before.encoding, before.errors)
    replaced = sys.stdout
    launch.unbuffered_again()   # the variable is gone: nothing changes
    assert sys.stdout is replaced


class _FakeServer:
    """A warm server that starts no process: alive until ``ended``; records ``retire``."""

    def __init__(self, env):
        self.env, self.retired, self.closed, self.ended = env, False, False, False
        self.proc = self

    def poll(self):
        return 0 if self.ended else None

    def retire(self):
        self.retired = True

    def close(self):
        self.closed = True


@pytest.mark.unit
def test_a_process_keeps_at_most_max_servers_warm_servers(monkeypatch):
    """``launch._SERVERS`` (listed with its bound in ``harness.suite.plugin``'s docstring): one server
    per grader environment, at most ``MAX_SERVERS``; past it the least recently used is retired, and
    a retired one is closed at the next start once its children have ended."""
    monkeypatch.setattr(launch, "_Server", _FakeServer)
    for name in ("_SERVERS", "_SERVERS_OFF"):
        monkeypatch.setattr(launch, name, {})
    monkeypatch.setattr(launch, "_RETIRED", [])
    monkeypatch.setattr(launch, "_SERVERS_OF", [os.getpid()])
    envs = [{"GRADER_ENV": str(i)} for i in range(launch.MAX_SERVERS + 2)]
    first = launch._server_for(envs[0])
    assert launch._server_for(envs[0]) is first   # the same environment: the same server
    for env in envs[1:]:
        launch._server_for(env)
        assert len(launch._SERVERS) <= launch.MAX_SERVERS
    assert [s.env for s in launch._SERVERS.values()] == [dict(sorted(e.items())) for e in envs[-launch.MAX_SERVERS:]]
    assert first.retired and not first.closed and first in launch._RETIRED   # its children may still run
    first.ended = True
    launch._server_for({"GRADER_ENV": "another"})
    assert first.closed and first not in launch._RETIRED and len(launch._SERVERS) == launch.MAX_SERVERS


@pytest.mark.unit
def test_the_refusal_reasons_and_the_failed_servers_are_bounded(monkeypatch):
    """``launch.REFUSALS`` keeps at most ``MAX_REFUSAL_REASONS`` distinct reasons (the rest counted
    under ``OTHER_REFUSALS``, none lost); ``_SERVERS_OFF`` at most ``MAX_SERVERS_OFF`` environments
    whose server failed to start, the oldest forgotten first."""
    import collections

    monkeypatch.setattr(launch, "REFUSALS", collections.Counter())
    reasons = [f"refused: request {i} was malformed" for i in range(launch.MAX_REFUSAL_REASONS + 5)]
    for reason in [*reasons, reasons[0]]:
        launch._count_refusal(reason)
    assert len(launch.REFUSALS) == launch.MAX_REFUSAL_REASONS + 1
    assert launch.REFUSALS[reasons[0]] == 2   # a known reason is still counted as itself
    assert launch.REFUSALS[launch.OTHER_REFUSALS] == 5
    assert sum(launch.REFUSALS.values()) == len(reasons) + 1

    def fails_to_start(env):
        raise OSError(f"cannot start a server for {env}")

    monkeypatch.setattr(launch, "_Server", fails_to_start)
    monkeypatch.setattr(launch, "_SERVERS", {})
    monkeypatch.setattr(launch, "_SERVERS_OFF", {})
    monkeypatch.setattr(launch, "_RETIRED", [])
    monkeypatch.setattr(launch, "_SERVERS_OF", [os.getpid()])
    envs = [{"GRADER_ENV": str(i)} for i in range(launch.MAX_SERVERS_OFF + 3)]
    for env in envs:
        assert launch._server_for(env) is None
        assert len(launch._SERVERS_OFF) <= launch.MAX_SERVERS_OFF
    kept = [dict(key) for key in launch._SERVERS_OFF]
    assert kept == envs[-launch.MAX_SERVERS_OFF:]   # the oldest were forgotten
