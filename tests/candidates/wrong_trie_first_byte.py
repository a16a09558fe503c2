"""Wrong (spec pitfall 5, mutant s06): the mask looks only at a token's first byte, so
tokens that die later are allowed. Must fail: test_masks_match_brute_force."""

import numpy as np

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import TokenIndex as _ReferenceIndex


class TokenIndex(_ReferenceIndex):
    def __init__(self, dfa, vocab, eos_id=None):
        super().__init__(dfa, vocab, eos_id)
        self._first = [t[:1] if t else t for t in vocab]

    def mask(self, state):
        super().mask(state)  # keeps the reference's caches (next_state reads them) filled
        mask = np.zeros(len(self._first), dtype=bool)
        for t, first in enumerate(self._first):
            if t != self.eos_id and first:
                mask[t] = self.dfa.step(state, first) != -1
        if self.eos_id is not None:
            mask[self.eos_id] = bool(self.dfa.accept[state])
        return mask
