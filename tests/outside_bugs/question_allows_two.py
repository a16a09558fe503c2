"""True cause: ? built as {0,2}. Function: regex_to_dfa. Pitfall: 6."""
from _outside import patched

globals().update(patched(__name__, {"parser.py": [("        p.take()\n        return 0, 1\n", "        p.take()\n        return 0, 2\n")]}))
# ruff: noqa: E501 - one edit, one line
