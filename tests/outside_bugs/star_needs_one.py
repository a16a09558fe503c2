"""True cause: * built as + (at least one copy). Function: regex_to_dfa. Pitfall: 6."""
from _outside import patched

globals().update(patched(__name__, {"parser.py": [("        p.take()\n        return 0, None\n", "        p.take()\n        return 1, None\n")]}))
# ruff: noqa: E501 - one edit, one line
