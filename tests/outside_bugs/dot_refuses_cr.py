"""True cause: . refuses \r as well as \n. Function: regex_to_dfa. Pitfall: 1."""
from _outside import patched

globals().update(patched(__name__, {"parser.py": [("DOT = FULL_MASK & ~NEWLINE", "DOT = FULL_MASK & ~NEWLINE & ~_mask(\"\\r\")")]}))
# ruff: noqa: E501 - one edit, one line
