"""True cause: a range [a-c] in a class also takes the byte after its end. Function: regex_to_dfa. Pitfall: 1."""
from _outside import patched

globals().update(patched(__name__, {"parser.py": [("            mask |= _range_mask(lo, hi)\n",
                                                    "            mask |= _range_mask(lo, min(hi + 1, 255))\n")]}))
# ruff: noqa: E501 - one edit, one line
