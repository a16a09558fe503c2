"""Misbehaves without using the CPU: ``regex_to_dfa`` sleeps (for a day) on patterns with
'dog' (the hand example). Its CPU budget never runs out, so only the wall-clock backstop
(``harness.policy.BACKSTOP_FACTOR`` times the per-test CPU limit) ends it.
Expected: that test gets the verdict ``timeout``, its reason naming the wall-clock
backstop; the others still run."""

import time

from oracles.automaton import *  # noqa: F401,F403 - the reference for everything else
from oracles.automaton import regex_to_dfa as _reference_regex_to_dfa


def regex_to_dfa(pattern):
    if "dog" in pattern:
        time.sleep(86400)
    return _reference_regex_to_dfa(pattern)
