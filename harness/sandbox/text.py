"""Showing what a candidate wrote: control characters escaped, so it cannot draw.

Everything the candidate prints, every exception message and every ``repr`` of its
objects passes through ``escape`` before it reaches a terminal or a report: a carriage
return, an ANSI escape sequence or a backspace becomes visible text (``\\r``,
``\\x1b``, ``\\x08``), so a candidate cannot overwrite a row with a fake ``PASS`` or
print a fake verdict line. Newlines are escaped too unless ``keep_newlines`` (for a
block of output shown indented under its test, where a line of its own is harmless
because the report prefixes every such line).

Example::

    >>> escape("ok\\r\\x1b[32mPASS\\x1b[0m")
    'ok\\\\r\\\\x1b[32mPASS\\\\x1b[0m'
    >>> escape("a\\nb", keep_newlines=True)
    'a\\nb'
"""

from __future__ import annotations

import unicodedata

__all__ = ["escape"]


def escape(text: str, keep_newlines: bool = False) -> str:
    """``text`` with every control and format character (C0, DEL, C1, bidi overrides,
    zero-width) written as a Python escape; newlines kept when ``keep_newlines``."""
    out = []
    for ch in str(text):
        if ch == "\n" and keep_newlines:
            out.append(ch)
        elif ch == "\t" and keep_newlines:
            out.append("    ")
        elif unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"):
            out.append(ch.encode("unicode_escape").decode("ascii") if ord(ch) < 0x10000 or ch.isprintable()
                       else f"\\U{ord(ch):08x}")
        else:
            out.append(ch)
    return "".join(out)
