"""True cause: integers accept a leading +. Function: json_schema_to_regex. Pitfall: none."""
from _outside import patched

globals().update(patched(__name__, {"schema.py": [("INTEGER = r\"-?(?:0|[1-9][0-9]*)\"", "INTEGER = r\"[-+]?(?:0|[1-9][0-9]*)\"")]}))
# ruff: noqa: E501 - one edit, one line
