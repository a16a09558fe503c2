"""True cause: vocab_bytes marks id 0 as special (None). Function: vocab_bytes. Pitfall: none."""
from _outside import patched

globals().update(patched(__name__, {}))
_vocab_bytes = vocab_bytes  # noqa: F821


def vocab_bytes(tok, special_ids=None):
    out = list(_vocab_bytes(tok, special_ids))
    if out:
        out[0] = None
    return out
# ruff: noqa: E501 - one edit, one line
