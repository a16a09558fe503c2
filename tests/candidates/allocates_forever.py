"""Misbehaves: ``regex_to_dfa`` allocates 64 MB blocks without bound on the hand example
(``np.empty``: address space without touching pages, so the limit is reached at once).
Expected: the memory limit stops it (MemoryError or a kill): the verdict is ``crashed``."""

import numpy as np

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import regex_to_dfa as _reference_regex_to_dfa

_hoard = []


def regex_to_dfa(pattern):
    while "dog" in pattern:
        _hoard.append(np.empty(64 << 20, dtype=np.uint8))
    return _reference_regex_to_dfa(pattern)
