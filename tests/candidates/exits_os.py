"""Misbehaves: ``os._exit(0)`` (no cleanup, status 0) inside ``regex_to_dfa`` on the hand
example. Expected: that test ``crashed``; a status of 0 does not pass for success."""

import os

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import regex_to_dfa as _reference_regex_to_dfa


def regex_to_dfa(pattern):
    if "dog" in pattern:
        os._exit(0)
    return _reference_regex_to_dfa(pattern)
