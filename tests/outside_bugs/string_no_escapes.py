"""True cause: JSON strings refuse the escapes (backslash sequences). Function: json_schema_to_regex. Pitfall: none."""
from _outside import patched

globals().update(patched(__name__, {"schema.py": [("    r'\\\\[\"\\\\/bfnrt]',                               # the eight escapes\n", "")]}))
# ruff: noqa: E501 - one edit, one line
