"""Wrong: the reference, but every token longer than 3 bytes is refused (its mask bit off,
``next_state`` DEAD, ``advance`` a ValueError). Must fail: test_masks_match_brute_force and
test_masks_match_the_golden_file; the 14 others pass. The honest twin of
``echoes_expected_answers.py`` (issue 48: that one must get exactly this verdict)."""

import numpy as np

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import TokenIndex as _ReferenceIndex

LONGEST = 3  # bytes: a longer token is never allowed


class TokenIndex(_ReferenceIndex):
    def __init__(self, dfa, vocab, eos_id=None):
        super().__init__(dfa, vocab, eos_id)
        self._long = np.array([t is not None and len(t) > LONGEST for t in vocab], dtype=bool)

    def mask(self, state):
        return super().mask(state) & ~self._long

    def next_state(self, state, token_id):
        target = super().next_state(state, token_id)
        return -1 if 0 <= token_id < len(self._long) and self._long[token_id] else target
