"""Misbehaves (issue 23): the reference, but every function of the contract first sleeps
for an hour, using no CPU (a submission that blocks rather than computes).

Expected: every test that calls into it (all 16) times out; the verdict is ``timed out``
and the score 0, the same from ``check``, ``check --batch`` and ``autograder run``
(``tests/test_batch_policy.py``). Only a wall-clock backstop can stop it: its CPU time
stays near zero."""

import time

import oracles.automaton as _reference
from oracles.automaton import *  # noqa: F401,F403 - the constants (DEAD) and anything not wrapped below

_HOUR = 3600.0


def _sleeps_first(function):
    def sleepy(*args, **kwargs):
        time.sleep(_HOUR)
        return function(*args, **kwargs)

    sleepy.__name__ = function.__name__
    return sleepy


regex_to_dfa = _sleeps_first(_reference.regex_to_dfa)
json_schema_to_regex = _sleeps_first(_reference.json_schema_to_regex)
sample = _sleeps_first(_reference.sample)
apply_mask = _sleeps_first(_reference.apply_mask)
vocab_bytes = _sleeps_first(_reference.vocab_bytes)
bytes_to_unicode = _sleeps_first(_reference.bytes_to_unicode)
unicode_to_bytes = _sleeps_first(_reference.unicode_to_bytes)
constrained_sample = _sleeps_first(_reference.constrained_sample)


class DFA(_reference.DFA):
    def __init__(self, *args, **kwargs):
        time.sleep(_HOUR)
        super().__init__(*args, **kwargs)


class TokenIndex(_reference.TokenIndex):
    def __init__(self, *args, **kwargs):
        time.sleep(_HOUR)
        super().__init__(*args, **kwargs)


class Constraint(_reference.Constraint):
    def __init__(self, *args, **kwargs):
        time.sleep(_HOUR)
        super().__init__(*args, **kwargs)


class SamplingParams(_reference.SamplingParams):
    def __init__(self, *args, **kwargs):
        time.sleep(_HOUR)
        super().__init__(*args, **kwargs)
