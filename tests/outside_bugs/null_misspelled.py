"""True cause: null written None. Function: json_schema_to_regex. Pitfall: none."""
from _outside import patched

globals().update(patched(__name__, {"schema.py": [("NULL = \"null\"", "NULL = \"None\"")]}))
# ruff: noqa: E501 - one edit, one line
