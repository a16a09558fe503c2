"""Misbehaves: ``regex_to_dfa`` spins forever on patterns with 'dog' (the hand example).
Expected: that test gets the verdict ``timeout``; the others still run."""

from oracles.automaton import *  # noqa: F401,F403 - the reference for everything else
from oracles.automaton import regex_to_dfa as _reference_regex_to_dfa


def regex_to_dfa(pattern):
    while "dog" in pattern:
        pass
    return _reference_regex_to_dfa(pattern)
