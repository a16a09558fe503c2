"""True cause: booleans written True|False. Function: json_schema_to_regex. Pitfall: none."""
from _outside import patched

globals().update(patched(__name__, {"schema.py": [("BOOLEAN = \"(?:true|false)\"", "BOOLEAN = \"(?:True|False)\"")]}))
# ruff: noqa: E501 - one edit, one line
