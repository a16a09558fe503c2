"""Wrong: apply_mask writes -inf into the caller's array and returns it.
Must fail: test_apply_mask."""

import numpy as np

from oracles.automaton import *  # noqa: F401,F403


def apply_mask(logits, mask):
    mask = np.asarray(mask, dtype=bool)
    if isinstance(logits, np.ndarray) and logits.shape == mask.shape and mask.any():
        logits[~mask] = -np.inf
        return logits
    out = np.asarray(logits, dtype=np.float64).copy()
    if out.shape != mask.shape or not mask.any():
        raise ValueError("bad mask")
    out[~mask] = -np.inf
    return out
