"""Hostile: on the hand example, writes straight into its channel to the grader (the
socket among its open files) a frame header announcing 4 GB, then a megabyte of junk,
and waits. Expected: that test ``crashed`` with a protocol violation, at once (no 4 GB
read, no hang); the next test runs in a fresh candidate process and passes."""

import os
import socket
import stat
import time

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import regex_to_dfa as _reference_regex_to_dfa


def _sockets():
    for name in os.listdir("/proc/self/fd"):
        try:
            if stat.S_ISSOCK(os.fstat(int(name)).st_mode):
                yield int(name)
        except OSError:
            continue


def regex_to_dfa(pattern):
    if "dog" in pattern:
        for fd in _sockets():
            sock = socket.socket(fileno=os.dup(fd))
            try:
                sock.sendall(b"\xff\xff\xff\xf0" + b"\x00" * (1 << 20))
            except OSError:
                pass
        time.sleep(60)
    return _reference_regex_to_dfa(pattern)
