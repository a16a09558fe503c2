"""True cause: TokenIndex.mask never allows the vocabulary's last id (a range off by one). Function: TokenIndex.mask. Pitfall: none."""
import numpy as np
from _outside import patched

globals().update(patched(__name__, {}))
_TokenIndex = TokenIndex  # noqa: F821


class TokenIndex(_TokenIndex):
    def mask(self, state):
        row = np.array(super().mask(state))
        row[len(row) - 1] = False
        return row
# ruff: noqa: E501 - one edit, one line
