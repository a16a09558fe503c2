"""True cause: a number accepts a dot without digits after it (1.). Function: json_schema_to_regex. Pitfall: none."""
from _outside import patched

globals().update(patched(__name__, {"schema.py": [("(?:\\.[0-9]+)?(?:[eE]", "(?:\\.[0-9]*)?(?:[eE]")]}))
# ruff: noqa: E501 - one edit, one line
