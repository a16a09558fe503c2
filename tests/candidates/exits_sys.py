"""Misbehaves: ``sys.exit(0)`` inside ``regex_to_dfa`` on the hand example.
Expected: SystemExit is a failure of that test, never the end of the grading."""

import sys

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import regex_to_dfa as _reference_regex_to_dfa


def regex_to_dfa(pattern):
    if "dog" in pattern:
        sys.exit(0)
    return _reference_regex_to_dfa(pattern)
