"""Wrong (spec pitfall 3, mutant s04): states numbered breadth first but with bytes in
descending order, so ``(cat|car|dog)s?`` numbers "d" before "c".
Must fail: test_hand_example."""

from collections import deque

import numpy as np

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import DFA
from oracles.automaton import regex_to_dfa as _reference_regex_to_dfa


def regex_to_dfa(pattern):
    dfa = _reference_regex_to_dfa(pattern)
    rows = dfa.trans.tolist()
    order, seen, queue = [], {0}, deque([0])
    while queue:
        s = queue.popleft()
        order.append(s)
        for t in reversed(rows[s]):
            if t != -1 and t not in seen:
                seen.add(t)
                queue.append(t)
    new = {old: i for i, old in enumerate(order)}
    trans = np.array([[new[t] if t != -1 else -1 for t in rows[old]] for old in order], dtype=np.int32)
    return DFA(trans, dfa.accept[order])
