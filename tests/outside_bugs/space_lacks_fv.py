"""True cause: \\s lacks \f and \v (the class table). Function: regex_to_dfa. Pitfall: 1."""
from _outside import patched

globals().update(patched(__name__, {"parser.py": [(r"""SPACE = _mask(" \t\n\r\f\v")""", r"""SPACE = _mask(" \t\n\r")""")]}))
# ruff: noqa: E501 - one edit, one line
