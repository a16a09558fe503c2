r"""True cause: \d is [1-9], 0 left out. Function: regex_to_dfa. Pitfall: 1."""
from _outside import patched

globals().update(patched(__name__, {"parser.py": [("DIGIT = _range_mask(0x30, 0x39)", "DIGIT = _range_mask(0x31, 0x39)")]}))
# ruff: noqa: E501 - one edit, one line
