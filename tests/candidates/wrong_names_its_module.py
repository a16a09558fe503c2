"""Wrong (spec pitfall 4, as wrong_eos_everywhere.py): EOS allowed in every state, not only
accepting ones; and the mask of state 1 refused with a ValueError whose message names the
module (``__name__``: under check, ``cand_constrain_<hash of the file's path>``).
Must fail: test_hand_example_masks. Graded twice from two private copies, the records must be
the same and hold no such hash (``harness.grading.autograder.grading.without_scratch``)."""

import numpy as np

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import TokenIndex as _ReferenceIndex


class TokenIndex(_ReferenceIndex):
    def mask(self, state):
        if state == 1:
            raise ValueError(f"state 1 refused by {__name__}")
        mask = np.array(super().mask(state))
        if self.eos_id is not None:
            mask[self.eos_id] = True
        return mask
