"""Wrong (spec pitfall 3, like mutant s04): the minimal DFA numbered depth first (bytes
ascending, each successor numbered before the next byte is looked at) instead of breadth
first, so ``(cat|car|dog)s?`` numbers "ca" 2 and "d" 5. The language is right; only the
numbering differs from the spec's. Must fail: test_hand_example; the tests that address
states by their canonical numbers fail with it (issue 26: the diagnosis names pitfall 3)."""

import numpy as np

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import DFA
from oracles.automaton import regex_to_dfa as _reference_regex_to_dfa


def regex_to_dfa(pattern):
    dfa = _reference_regex_to_dfa(pattern)
    rows = dfa.trans.tolist()
    order, seen, stack = [], {0}, [0]
    while stack:   # depth first: the smallest byte's successor first, all the way down
        s = stack.pop()
        order.append(s)
        for t in reversed(list(dict.fromkeys(t for t in rows[s] if t != -1))):
            if t not in seen:
                seen.add(t)
                stack.append(t)
    new = {old: i for i, old in enumerate(order)}
    trans = np.array([[new[t] if t != -1 else -1 for t in rows[old]] for old in order], dtype=np.int32)
    return DFA(trans, dfa.accept[order])
