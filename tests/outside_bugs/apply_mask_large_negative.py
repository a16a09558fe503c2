"""True cause: apply_mask writes -1e9, not -inf, outside the mask. Function: apply_mask. Pitfall: none."""
import numpy as np
from _outside import patched

globals().update(patched(__name__, {}))
_apply_mask = apply_mask  # noqa: F821


def apply_mask(logits, mask):
    out = _apply_mask(logits, mask)
    out[np.isneginf(out)] = -1e9
    return out
# ruff: noqa: E501 - one edit, one line
