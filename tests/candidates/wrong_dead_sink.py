"""Wrong (spec pitfall 4, mutant s12): the empty set kept as a sink state: every DEAD
transition of the start state leads to a state that loops to itself and never accepts.
Must fail: test_every_state_is_live."""

import numpy as np

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import DFA
from oracles.automaton import regex_to_dfa as _reference_regex_to_dfa


def regex_to_dfa(pattern):
    dfa = _reference_regex_to_dfa(pattern)
    trans, accept = dfa.trans.copy(), dfa.accept.copy()
    if not (trans[0] == -1).any():
        return dfa
    sink = len(accept)
    trans[0][trans[0] == -1] = sink
    trans = np.vstack([trans, np.full((1, 256), sink, dtype=np.int32)])
    return DFA(trans, np.append(accept, False))
