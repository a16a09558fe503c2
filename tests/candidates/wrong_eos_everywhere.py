"""Wrong (spec pitfall 4, mutant s05): EOS allowed in every state, not only accepting ones.
Must fail: test_hand_example_masks."""

import numpy as np

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import TokenIndex as _ReferenceIndex


class TokenIndex(_ReferenceIndex):
    def mask(self, state):
        mask = np.array(super().mask(state))
        if self.eos_id is not None:
            mask[self.eos_id] = True
        return mask
