"""The one table of exit codes every ``constrain-harness`` verb uses.

| code | name        | meaning                                                          |
|------|-------------|------------------------------------------------------------------|
| 0    | OK          | all passed / the command did what was asked                      |
| 1    | FAILED      | tests failed, golden files differ, a mutant survived             |
| 2    | USAGE       | bad arguments, unreadable input, a contract (missing name) error, |
|      |             | an output asked for not written (a file, a refused gradebook)    |
| 3    | CRASHED     | the candidate crashed, timed out, or ran out of memory           |
| 4    | TAMPERED    | the harness's files changed while the candidate ran (restored)   |

TAMPERED wins over every other outcome: a run during which the harness's own files
(``harness``, ``oracles``, ``strategies``, ``golden``) changed cannot be trusted, whatever
its tests said; the files are put back from the manifest taken before the run
(``harness.sandbox.files``).
"""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    OK = 0
    FAILED = 1
    USAGE = 2
    CRASHED = 3
    TAMPERED = 4

    @property
    def verdict(self) -> str:
        """The verdict a report prints for this code, e.g. ``ExitCode(3).verdict``
        is ``"crashed or timed out"``."""
        return _VERDICTS[self]


_VERDICTS = {ExitCode.OK: "passed", ExitCode.FAILED: "failed", ExitCode.USAGE: "usage or contract error",
             ExitCode.CRASHED: "crashed or timed out", ExitCode.TAMPERED: "tampered"}


def exit_without_teardown(code: int) -> None:
    """End this process with exit status ``code`` as the interpreter's exit would, without its
    teardown: the exit handlers (``atexit``: the temporary folders' finalizers, logging's flush)
    run, both streams are flushed, then ``os._exit``. How the ``check`` verb (``harness.cli.program``)
    and each check job of a batch or the autograder (``harness.commands.check_entry``) end: freeing
    every module and object of pytest, numpy and the catalogue they imported took 0.05-0.1 CPU s
    after the report was written (2026-12-07, ``docs/performance.md``); the grader child ends so too
    (``harness.suite.early._exit``). With another thread still running this returns (the caller's
    normal exit joins it)."""
    import atexit
    import os
    import sys
    import threading

    if threading.active_count() > 1:
        return
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed or broken stream: nothing more can reach it
            pass
    os._exit(code & 0xFF if isinstance(code, int) and code >= 0 else 1)
