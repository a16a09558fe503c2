"""Wrong (spec pitfall 2, mutant s03): the DFA is not minimized where the pattern has an
alternation: each accepting state reached on a byte gets a duplicate, as an unminimized
subset construction leaves one state per branch. Must fail: test_canonical_form."""

import numpy as np

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import DFA
from oracles.automaton import regex_to_dfa as _reference_regex_to_dfa


def regex_to_dfa(pattern):
    dfa = _reference_regex_to_dfa(pattern)
    if "|" not in pattern:
        return dfa
    trans, accept = dfa.trans.copy(), dfa.accept.copy()
    # the last edge from state 0 into a state gets a copy of that state (same row, same
    # acceptance): the language is unchanged, the table is not minimal
    row0 = trans[0]
    byte = int(np.flatnonzero(row0 != -1)[-1])
    target = int(row0[byte])
    trans = np.vstack([trans, trans[target:target + 1]])
    accept = np.append(accept, accept[target])
    trans[0, byte] = len(accept) - 1
    return DFA(trans, accept)
