"""Misbehaves: reads a kernel-space address through ctypes (a segmentation fault: no user
process can map it; address 0 itself may be mapped) in ``regex_to_dfa`` on the hand
example. Expected: that test ``crashed``; the others still run."""

import ctypes

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import regex_to_dfa as _reference_regex_to_dfa


def regex_to_dfa(pattern):
    if "dog" in pattern:
        ctypes.string_at(0xFFFF_FFFF_FFFF_0000, 16)
    return _reference_regex_to_dfa(pattern)
