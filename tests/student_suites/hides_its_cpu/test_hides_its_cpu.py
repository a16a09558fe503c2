"""A test that spends its CPU in children the kernel reaps by itself (SIGCHLD ignored): each
burns a short burst and is gone before anyone reads it, so a count of the live tree (plus what
parents reaped) never sees it. About 3 CPU s in all, under a per-test limit of 0.5."""

import os
import signal
import time

from tinyllm.infer import constrain

BURSTS, BURST_SECONDS = 60, 0.05


def _burn(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_fine():
    assert constrain.regex_to_dfa("a").matches(b"a")


def test_hides_its_cpu():
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)   # children are reaped by the kernel, never by us
    for _ in range(BURSTS):
        if os.fork() == 0:
            _burn(BURST_SECONDS)
            os._exit(0)
        time.sleep(BURST_SECONDS / 2)
    assert constrain.regex_to_dfa("a").matches(b"a")
