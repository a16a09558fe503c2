"""A suite that floods its output, then kills its own process mid-run."""

import os
import signal
import sys

from tinyllm.infer import constrain


def test_floods_stdout():
    chunk = "flood " * 10_000
    for _ in range(500):  # 30 MB
        sys.stdout.write(chunk)
    assert constrain.regex_to_dfa("a").matches(b"a")


def test_kills_its_process():
    os.kill(os.getpid(), signal.SIGKILL)


def test_never_reached():
    assert True
