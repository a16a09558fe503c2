"""Hostile: on the hand example ``regex_to_dfa`` starts ``CHILDREN`` children that each fill
``EACH_MB`` MB (under a per-process address-space limit of 512 MB, each fits) and hold it until
all of them say they do; only then does it answer, like the reference. Under a per-process
bound the three hold 3 x 200 MB at once. Expected: see tests/candidates/README.md."""

import os
import time

from oracles.automaton import *  # noqa: F401,F403 - the reference for everything else
from oracles.automaton import regex_to_dfa as _reference_regex_to_dfa

CHILDREN, EACH_MB, HOLD_SECONDS = 3, 200, 5.0  # bounded: 600 MB for 5 s at most, whatever the harness does


def _hold_in_children() -> int:
    read_end, write_end = os.pipe()
    pids = []
    for _ in range(CHILDREN):
        pid = os.fork()
        if pid == 0:  # never back into the server's code: whatever happens, this child ends here
            try:
                os.close(read_end)
                block = b"\x01" * (EACH_MB << 20)  # every page written: resident, not just reserved
                os.write(write_end, b"h")
                time.sleep(HOLD_SECONDS)
                del block
            finally:
                os._exit(0)
        pids.append(pid)
    os.close(write_end)
    held = b""
    with os.fdopen(read_end, "rb") as said:
        while len(held) < CHILDREN:
            chunk = said.read(1)
            if not chunk:
                break  # every child gone (or killed) before the rest said it held its block
            held += chunk
    # "held at once": a child the kernel ended after it said so (the out-of-memory killer picks the
    # largest, which is one that said it holds) does not hold any more: only those still alive count
    alive = [pid for pid in pids if _running(pid)]
    for pid in pids:
        try:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        except OSError:
            pass
    return min(len(held), len(alive))


def _running(pid: int) -> bool:
    try:
        return os.waitpid(pid, os.WNOHANG) == (0, 0)
    except ChildProcessError:
        return False


def regex_to_dfa(pattern):
    if "dog" in pattern:
        held = _hold_in_children()
        if held < CHILDREN:
            raise MemoryError(f"only {held} of {CHILDREN} children could hold {EACH_MB} MB")
    return _reference_regex_to_dfa(pattern)
