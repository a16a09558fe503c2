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
