"""Hostile: on the hand example, answers with a frame it writes itself into its channel
to the grader: a list of 32 million empty lists, 32 MB on the wire (one byte each) but
some 2.3 GB once decoded (before the bound on receive it took ``check``'s grader child to
4.8 GB). Expected: that test ``crashed`` with a protocol violation, the frame refused
from its header before anything is decoded; the next test runs in a fresh candidate
process and passes; ``golden replay --file masks`` exit 3."""

import os
import socket
import stat
import struct
import time

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import regex_to_dfa as _reference_regex_to_dfa

COUNT = 32 << 20


def _reply() -> bytes:
    body = b"\x93\xa2ok" + b"\xdd" + struct.pack(">I", COUNT) + b"\x90" * COUNT + b"\xc0"  # ["ok", [[], ...], None]
    return struct.pack(">I", len(body)) + body


def _sockets():
    for name in os.listdir("/proc/self/fd"):
        try:
            if stat.S_ISSOCK(os.fstat(int(name)).st_mode):
                yield int(name)
        except OSError:
            continue


def regex_to_dfa(pattern):
    if "dog" in pattern:
        frame = _reply()
        for fd in _sockets():
            try:
                socket.socket(fileno=os.dup(fd)).sendall(frame)
            except OSError:
                pass
        time.sleep(60)
    return _reference_regex_to_dfa(pattern)
