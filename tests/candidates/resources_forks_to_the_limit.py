"""Hostile: at import, forks sleeping children until the kernel refuses one (at most
``MOST``), holding every process the machine lets it have; then works like the reference.
Run as a shared uid under a per-user process limit, a classmate's candidate could not start.
Expected: see tests/candidates/README.md (the gallery table)."""

import os
import time

from oracles.automaton import *  # noqa: F401,F403 - the reference for everything else

MOST = 400  # past the harness's 256 tasks: its limit, not this bound, stops the loop


def _fork_to_the_limit() -> int:
    made = 0
    while made < MOST:
        try:
            pid = os.fork()
        except OSError:  # EAGAIN: the limit
            break
        if pid == 0:
            try:
                time.sleep(10 ** 6)
            finally:
                os._exit(0)
        made += 1
    return made


FORKED = _fork_to_the_limit()
