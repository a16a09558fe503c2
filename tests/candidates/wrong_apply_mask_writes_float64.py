"""Wrong: apply_mask converts with np.asarray (no copy for float64 logits) and writes -inf
into it, so a caller's float64 logits are changed. Must fail: test_apply_mask (behind the
wall too: the sandbox writes a call's in-place changes back into the caller's arrays)."""

import numpy as np

from oracles.automaton import *  # noqa: F401,F403


def apply_mask(logits, mask):
    out = np.asarray(logits, dtype=np.float64)  # float64 in: the caller's own array
    mask = np.asarray(mask, dtype=bool)
    if out.shape != mask.shape or not mask.any():
        raise ValueError("the mask must have the logits' shape and allow at least one token")
    out[~mask] = -np.inf
    return out
