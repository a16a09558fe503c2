"""Misbehaves: wrong numbering (states numbered depth first from the end), hidden by
patching what the tests trust: at import ``re.fullmatch``/``re.compile``-level results and
the derivative oracle, and during a call the catalogue's own ``fail`` helpers.
Expected: the patches change only the candidate's own process (the tests run in the
grader's), so ``test_hand_example`` fails on the numbering (exit 1), never a pass."""

import re

import numpy as np

import oracles.derivatives
import oracles.stdlib
from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import DFA
from oracles.automaton import regex_to_dfa as _reference_regex_to_dfa


def _always(*args, **kwargs):
    return True


re.fullmatch = _always
oracles.stdlib.fullmatch = _always
oracles.derivatives.canonical_dfa = lambda pattern: _tables(regex_to_dfa(pattern))


def _tables(dfa):
    return dfa.trans, dfa.accept


def _silence():
    import sys

    for name, module in list(sys.modules.items()):
        if name.startswith("harness.suite") and hasattr(module, "fail"):
            module.fail = lambda *a, **k: None


def regex_to_dfa(pattern):
    _silence()
    dfa = _reference_regex_to_dfa(pattern)
    n = dfa.n_states
    order = [0] + list(range(n - 1, 0, -1))  # state 0 stays; the rest reversed
    new = {old: i for i, old in enumerate(order)}
    trans = np.full((n, 256), -1, dtype=np.int32)
    for old in range(n):
        row = dfa.trans[old]
        trans[new[old]] = [new[t] if t != -1 else -1 for t in row.tolist()]
    accept = np.array([dfa.accept[old] for old in order])
    return DFA(trans, accept)
