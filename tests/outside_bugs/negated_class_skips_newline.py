"""True cause: a negated class [^...] also leaves out \n (as . does). Function: regex_to_dfa. Pitfall: 1."""
from _outside import patched

globals().update(patched(__name__, {"parser.py": [("    return FULL_MASK & ~mask if negate else mask\n",
                                                    "    return FULL_MASK & ~mask & ~NEWLINE if negate else mask\n")]}))
# ruff: noqa: E501 - one edit, one line
