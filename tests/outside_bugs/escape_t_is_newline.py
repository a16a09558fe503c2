"""True cause: the escape \t is read as a newline byte. Function: regex_to_dfa. Pitfall: none."""
from _outside import patched

globals().update(patched(__name__, {"parser.py": [("\"t\": 0x09", "\"t\": 0x0A")]}))
# ruff: noqa: E501 - one edit, one line
