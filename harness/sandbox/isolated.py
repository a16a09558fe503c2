"""The grader's own Python processes, isolated: they import nothing they did not bring.

Every process of the grader that this package starts (``check``'s pytest grader child,
the ``check`` runs of ``check --batch`` and ``autograder run``, ``autograder run``'s
``grade-tests``) is started with ``command(module, *args)`` and ``environment()``:

- **no current directory** on ``sys.path`` (``-c`` would put ``''`` first: the boot code
  removes it before it imports anything; ``PYTHONSAFEPATH=1`` does it on 3.11+), so a
  ``regex.py`` in the folder the grader was started from is never imported;
- **no user** ``PYTHONPATH``, ``PYTHONSTARTUP``, ``PYTHONHOME``..., nor ``PYTEST_ADDOPTS``
  / ``PYTEST_PLUGINS``: every ``PYTHON*`` variable of the caller is dropped and only
  ``GRADER_PYTHON_ENV`` is set (this is ``python -I`` without ``-E``, which would also
  drop ``PYTHONHASHSEED``, which the grader sets);
- **no user site** (``-s``, ``PYTHONNOUSERSITE=1``);
- **numeric libraries on one thread** (``ONE_THREAD_ENV``): OpenBLAS, OpenMP and MKL
  start no thread pool. A verdict then depends on no core count, and no process spends
  CPU on a pool: numpy's OpenBLAS starts one per core at import, 0.08 of numpy's 0.17
  CPU s on the 2-core machine, in every grader child, twin and ``check`` process;
- **the package root, explicitly**: the harness is imported from where this process
  imported it. The boot code asks the import system where ``harness`` is; when it is not
  ``PACKAGE_ROOT/harness`` (a checkout run without ``pip install``) it puts
  ``PACKAGE_ROOT`` first. An editable or wheel install puts nothing on the path at all.

The candidate's folder is never on these paths (it is on the candidate process's only,
after the standard library and site-packages: ``harness.sandbox.client``).

Example::

    subprocess.run(command("harness.cli", "check", "--impl", "x.py"), env=environment())
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parents[2]
GRADER_PYTHON_ENV = {"PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONFAULTHANDLER": "1",
                     "PYTHONNOUSERSITE": "1", "PYTHONSAFEPATH": "1"}
DROPPED_PREFIXES = ("PYTHON", "PYTEST_ADDOPTS", "PYTEST_PLUGINS")
ONE_THREAD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""Set in every process of the grader (``environment``, the ``constrain-harness`` program's
own: ``harness.cli.program``) and of the candidate (``harness.sandbox.confine.FIXED_ENV``)."""

# sys.argv of `python -c BOOT ROOT MODULE ARGS...` is ['-c', ROOT, MODULE, ARGS...]
BOOT = (
    "import sys\n"
    "if sys.path and sys.path[0] == '':\n"
    "    del sys.path[0]\n"
    "root, module = sys.argv[1], sys.argv[2]\n"
    "del sys.argv[1:3]\n"
    "import importlib.util, os\n"
    "spec = importlib.util.find_spec('harness') if root else None\n"
    "if root and (spec is None or os.path.dirname(os.path.dirname(spec.origin or '')) != root):\n"
    "    sys.path.insert(0, root)\n"
    "import runpy\n"
    "runpy.run_module(module, run_name='__main__', alter_sys=True)\n"
)


def command(module: str, *args: str, python: str | None = None) -> list[str]:
    """``python -m module args`` isolated (see the module docstring). With another
    interpreter than this one, its own installation of the harness is used as it is."""
    own = python is None or os.path.realpath(python) == os.path.realpath(sys.executable)
    root = str(PACKAGE_ROOT) if own else ""
    return [python or sys.executable, "-s", "-B", "-X", "faulthandler", "-c", BOOT, root, module, *args]


def environment(extra: dict[str, str] | None = None, base: dict[str, str] | None = None) -> dict[str, str]:
    """The caller's environment without any ``PYTHON*`` (or pytest plugin) variable, plus
    ``GRADER_PYTHON_ENV``, ``ONE_THREAD_ENV`` and ``extra``."""
    env = {k: v for k, v in (os.environ if base is None else base).items() if not k.startswith(DROPPED_PREFIXES)}
    env.update(GRADER_PYTHON_ENV)
    env.update(ONE_THREAD_ENV)
    env.update(extra or {})
    return env


# ---------------------------------------------------------------- check by hand, run again isolated
# (here, not in harness.run.launch: the console script decides it before it execs itself, and importing the
# launcher, with the run value it imports, was ~0.02 CPU s of that first interpreter, 2026-12-07)

FORK_ENV = "CONSTRAIN_HARNESS_GRADER_FORK"   # "0": always start a new interpreter
_BOOT_FLAGS = ["-s", "-B", "-X", "faulthandler", "-c", BOOT]  # isolated.command's, in order


def started_isolated() -> bool:
    """Whether this process was started as ``isolated.command`` starts one (its interpreter
    flags and boot code in ``sys.orig_argv``)."""
    orig = getattr(sys, "orig_argv", [])
    return len(orig) > len(_BOOT_FLAGS) and orig[1:1 + len(_BOOT_FLAGS)] == _BOOT_FLAGS


def isolated_again(module: str, args: list[str]) -> list[str] | None:
    """The command that runs this program again as ``python -m module args``, isolated
    (``isolated.command``, with ``environment()``), so that the grader children it
    starts are forks of it (``forkable``); None where that could change what the program
    does: forks are off (``FORK_ENV``), it already runs so, it was started with interpreter
    options (``python -X dev ...``, ``python -m ...``: only a console script or a script path
    is started again), or its caller's environment holds a variable ``isolated.environment``
    drops (``PYTHONPATH``, ``PYTHONIOENCODING``, ``PYTEST_ADDOPTS``...) with another value than
    the isolated one, but ``PYTHONUNBUFFERED`` (``isolated_environment``, ``unbuffered_again``).

    Why: ``check`` run by hand (``constrain-harness check``) started each grader child as a new
    interpreter, which imported Python, pytest, numpy and the catalogue's helpers again (some
    0.35 CPU s a child, two children with a twin); run again isolated, it imports them once
    (``warm``) and forks both. The program itself then runs as its grader children do: no
    current directory and no user site on its path, hash seed 0, no bytecode written."""
    orig = getattr(sys, "orig_argv", [])
    if not hasattr(os, "fork") or os.environ.get(FORK_ENV) == "0" or started_isolated():
        return None
    if len(orig) < 2 or orig[1].startswith("-") or os.path.realpath(orig[0]) != os.path.realpath(sys.executable):
        return None
    dropped = {k: v for k, v in os.environ.items() if k.startswith(DROPPED_PREFIXES)}
    if any(GRADER_PYTHON_ENV.get(k) != v for k, v in dropped.items() if k != "PYTHONUNBUFFERED"):
        return None
    return command(module, *args)


def isolated_environment() -> dict[str, str]:
    """``environment()`` for ``isolated_again``'s command: with ``UNBUFFERED_ENV``
    where the caller's ``PYTHONUNBUFFERED`` asked for unbuffered streams (which
    ``unbuffered_again`` gives back to the program, since that variable is dropped)."""
    extra = {UNBUFFERED_ENV: "1"} if os.environ.get("PYTHONUNBUFFERED") else {}
    return environment(extra)


UNBUFFERED_ENV = "CONSTRAIN_HARNESS_UNBUFFERED"
"""Set by ``isolated_environment`` for a program started again isolated whose caller had
``PYTHONUNBUFFERED``; read and removed at once by ``unbuffered_again`` (never passed on)."""


def unbuffered_again() -> None:
    """Where ``UNBUFFERED_ENV`` says so (and removed from the environment): ``sys.stdout`` and
    ``sys.stderr`` as ``PYTHONUNBUFFERED`` makes them, every write straight to the descriptor,
    so the program started again prints exactly as its caller's would have."""
    if os.environ.pop(UNBUFFERED_ENV, None) != "1":
        return
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None:
            continue
        stream.flush()
        raw = io.FileIO(stream.fileno(), "w", closefd=False)
        setattr(sys, name, io.TextIOWrapper(raw, encoding=stream.encoding, errors=stream.errors,
                                            line_buffering=stream.line_buffering, write_through=True))
