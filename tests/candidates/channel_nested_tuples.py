"""Hostile: on the hand example, answers with a frame it writes itself into its channel
to the grader (the socket among its open files): 300 tuples nested in one another, under
1.5 KB on the wire (the channel's own encoder would refuse it; a hostile process writes
bytes). Before the bound on receive this made ``msgpack`` recurse through the extension
hook until the grader died of SIGSEGV (``golden replay`` exit 139, no verdict).
Expected: that test ``crashed`` with a protocol violation; the next test runs in a fresh
candidate process and passes; ``golden replay --file masks`` exit 3."""

import os
import socket
import stat
import struct
import time

import msgpack

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import regex_to_dfa as _reference_regex_to_dfa

TUPLE = 4  # the channel's extension code for a tuple (harness/sandbox/channel.py)
LEVELS = 300


def _reply() -> bytes:
    value = msgpack.ExtType(TUPLE, msgpack.packb([]))
    for _ in range(LEVELS):
        value = msgpack.ExtType(TUPLE, msgpack.packb([value]))
    body = msgpack.packb(["ok", value, None])
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
        for fd in _sockets():
            try:
                socket.socket(fileno=os.dup(fd)).sendall(_reply())
            except OSError:
                pass
        time.sleep(60)
    return _reference_regex_to_dfa(pattern)
