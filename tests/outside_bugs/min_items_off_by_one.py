"""True cause: minItems off by one (one item more required). Function: json_schema_to_regex. Pitfall: none."""
from _outside import patched

globals().update(patched(__name__, {"schema.py": [("    more_lo = max(lo - 1, 0)\n", "    more_lo = lo\n")]}))
# ruff: noqa: E501 - one edit, one line
