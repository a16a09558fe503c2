"""Hostile: at import, leaves a ``setsid`` + double-fork daemon that burns CPU (for at most
``BURN_SECONDS``, then sleeps forever), out of its parent's process group and session; then
works like the reference. Expected: see tests/candidates/README.md (the gallery table)."""

import os
import time

from oracles.automaton import *  # noqa: F401,F403 - the reference for everything else

BURN_SECONDS = 3.0  # bounded, whatever the harness does


def _daemon() -> None:
    if os.fork() != 0:
        return
    os.setsid()
    if os.fork() != 0:
        os._exit(0)
    end = time.process_time() + BURN_SECONDS
    while time.process_time() < end:
        pass
    while True:
        time.sleep(3600)


_daemon()
