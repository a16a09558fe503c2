"""Misbehaves in one test of each half of the catalogue (``harness.suite.twin``'s split):
``regex_to_dfa`` spins forever on ``a(ba)*`` (test_canonical_form's last pair, before the
split) and ``apply_mask`` spins forever (test_apply_mask, after it).
Expected: those two tests get the verdict ``timeout``; the others still run."""

from oracles.automaton import *  # noqa: F401,F403 - the reference for everything else
from oracles.automaton import regex_to_dfa as _reference_regex_to_dfa


def regex_to_dfa(pattern):
    while pattern == "a(ba)*":
        pass
    return _reference_regex_to_dfa(pattern)


def apply_mask(logits, mask):
    while True:
        pass
