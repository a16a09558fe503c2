"""Hostile (issue 22): at import, plants a file in the harness's ``golden`` folder, then
sends SIGSEGV to its parent (unconfined, that is the grader's own process, as if a message
had crashed its decoder); then works like the reference.
Expected: confined, neither reaches anything (replay exit 0); under ``--unconfined`` the
grader's process dies, and the harness's files are still verified and restored before the
verb exits (exit 4, the planted file gone)."""

import os
import signal
from pathlib import Path

import golden
from oracles.automaton import *  # noqa: F401,F403

try:
    (Path(golden.__file__).parent / "planted_by_wall.json").write_text("{}\n")
except OSError:
    pass
try:
    if os.getppid() > 1:
        os.kill(os.getppid(), signal.SIGSEGV)
except OSError:
    pass
