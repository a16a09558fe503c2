"""True cause: JSON strings refuse every non-ASCII character (no UTF-8 sequences). Function: json_schema_to_regex. Pitfall: none."""
from _outside import patched

globals().update(patched(__name__, {"schema.py": [("] + _UTF8_MULTIBYTE)", "])")]}))
# ruff: noqa: E501 - one edit, one line
