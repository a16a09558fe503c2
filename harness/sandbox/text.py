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

The rule is the terminal format's (``harness.report.escape.terminal``), defined once there
for every writer.
"""

from __future__ import annotations

from harness.report.escape import terminal as escape

__all__ = ["escape"]
