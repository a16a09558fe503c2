"""Every output escaped for its format: one function per format, used by every writer.

Text a student, a candidate or a server under test controls (a name, an exception
message, a model name, a roster cell) reaches five kinds of output. Each has one function
here, and every writer of that kind calls it (the report formats of ``harness.report.formats``,
the class reports, gradebooks and feedback files of ``harness.grading.batch``, conform's
table):

- ``terminal(text)``: every C0 and C1 control character, DEL, and every format, separator,
  private-use, surrogate or unassigned character (bidirectional overrides, zero-width
  spaces, the byte-order mark) written as a Python escape (``\\x1b``, ``\\u202e``), so an
  ANSI escape sequence, a carriage return or a backspace is visible text and can never
  draw a fake row, recolour a verdict or write the clipboard (OSC 52);
  ``keep_newlines`` keeps ``\\n`` (and writes a tab as four spaces) for an indented block;
- ``markdown(text)``: one line of Markdown text (whitespace squeezed, controls as in
  ``terminal``) in which nothing is markup: ``\\ ` * _ [ ] < > | &`` are backslash
  escaped (no raw HTML such as ``<img onerror>`` or ``<script>``, no link or image
  ``[text](url)``, no code span, no table cell break), a bare URL, ``www.`` or e-mail
  address is broken so GitHub's autolinker does not make it a link (``https:\\/\\/``,
  ``www\\.``, ``\\@``), and a leading block marker (``#``, ``>``, ``-``, ``+``, ``=``,
  ``1.``) is escaped; ``markdown_block(text)`` is a fenced code block whose fence is
  longer than any run of backticks inside;
- ``html(text)``: ``html.escape`` with quotes, after ``terminal`` (newlines kept);
- ``spreadsheet(value)``: a CSV or gradebook cell that a spreadsheet never evaluates: a
  cell whose first visible character starts a formula (``= + - @``, a tab or carriage
  return, their fullwidth and small forms such as U+FF1D ``＝``, the minus sign U+2212)
  or that starts with an invisible character (a zero-width space, a byte-order mark, a
  bidirectional control, whitespace) is prefixed with ``'``; controls are escaped as in
  ``terminal`` (newlines kept: a student's failures are one per line). OWASP's "CSV
  Injection" page lists the ASCII prefixes; the fullwidth forms are what an East Asian
  input method types and some spreadsheets read as the ASCII sign.

Guarantees: each function is total on ``str`` (anything else goes through ``str``), pure,
and never drops a visible character: the escaped text reads as the original. Escaping
twice is harmless for ``terminal`` (its output holds no control character) but not
idempotent for the others (a backslash is escaped again): escape once, where the text is
written.

Example::

    >>> terminal("ok\\r\\x1b[32mPASS")
    'ok\\\\r\\\\x1b[32mPASS'
    >>> markdown("[regrade form](https://evil.example) <img src=x onerror=alert(1)>")
    '\\\\[regrade form\\\\](https:\\\\/\\\\/evil.example) \\\\<img src=x onerror=alert(1)\\\\>'
    >>> spreadsheet("\\uff1dHYPERLINK(1)")
    "'\\uff1dHYPERLINK(1)"
"""

from __future__ import annotations

import html as _html
import re
import unicodedata

__all__ = ["terminal", "markdown", "markdown_cell", "markdown_block", "html", "spreadsheet", "FORMULA_STARTS",
           "INVISIBLE_CATEGORIES"]

INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"})
"""Unicode categories never written raw to a terminal or a report (controls, format
characters such as U+200B and U+202E, line and paragraph separators, private use,
surrogates, unassigned)."""

FORMULA_STARTS = frozenset("=+-@\t\r" "\uff1d\uff0b\uff0d\uff20" "\ufe66\ufe62\ufe63" "\u2212\u207a\u208a\u207c\u208c")
"""First characters that make a spreadsheet read a cell as a formula: the ASCII four, tab,
carriage return, their fullwidth (U+FF1D ``＝``, U+FF0B, U+FF0D, U+FF20) and small forms
(U+FE66, U+FE62, U+FE63), the minus sign and the super/subscript plus and equals."""


def terminal(text: object, keep_newlines: bool = False) -> str:
    """``text`` with every invisible or controlling character written as a Python escape."""
    out = []
    for ch in str(text):
        if keep_newlines and ch == "\n":
            out.append(ch)
        elif keep_newlines and ch == "\t":
            out.append("    ")
        elif unicodedata.category(ch) in INVISIBLE_CATEGORIES:
            out.append(ch.encode("unicode_escape").decode("ascii") if ord(ch) < 0x10000 or ch.isprintable()
                       else f"\\U{ord(ch):08x}")   # e.g. "\\r", "\\x1b", "\\u202e"
        else:
            out.append(ch)
    return "".join(out)


# --------------------------------------------------------------------------- Markdown

_MARKUP = re.compile(r"[\\`*\[\]<>|&]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")   # e.g. "a_b" keeps its "_"
_AUTOLINK = re.compile(r"(?i)//|(?<![0-9a-z])(www)\.|@")
_BLOCK_START = re.compile(r"^(?:[#>+=-]|\d+[.)])")


def markdown(text: object, line_start: bool = True) -> str:
    """One line of Markdown that renders as ``text`` and holds no markup (module docstring);
    ``line_start=False`` for text written after other text on its line, where a leading
    ``#`` or ``1.`` is no block marker and is left as it is."""
    line = terminal(" ".join(str(text).split()))
    line = _MARKUP.sub(lambda m: "\\" + m.group(), line)
    line = _AUTOLINK.sub(_break_autolink, line)
    start = _BLOCK_START.match(line) if line_start else None
    if start:
        marker = start.group()
        line = marker[:-1] + "\\" + marker[-1] + line[len(marker):]
    return line


def _break_autolink(match: re.Match) -> str:
    """``https://x`` -> ``https:\\/\\/x``, ``www.x`` -> ``www\\.x``, ``a@b`` -> ``a\\@b``: each
    escape splits the autolinker's text run (CommonMark: any ASCII punctuation may be escaped)."""
    found = match.group()
    if found == "//":
        return "\\/\\/"
    if match.group(1):
        return "www\\."
    return "\\" + found if found == "@" else found


def markdown_cell(text: object) -> str:
    """A Markdown table cell: ``markdown`` (whose ``|`` is already escaped)."""
    return markdown(text)


def markdown_block(text: object) -> list[str]:
    """``text`` as the lines of a fenced code block (controls escaped, newlines kept),
    fenced with more backticks than any run inside it, so nothing in it is markup."""
    body = terminal(str(text), keep_newlines=True).rstrip()
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, body, fence]


# --------------------------------------------------------------------------- HTML


def html(text: object) -> str:
    """``text`` as HTML character data or a quoted attribute value."""
    return _html.escape(terminal(text, keep_newlines=True), quote=True)


# --------------------------------------------------------------------------- spreadsheets


def spreadsheet(value: object) -> str:
    """A CSV or gradebook cell that is never a formula (module docstring); a list is
    joined with "; "."""
    text = "; ".join(map(str, value)) if isinstance(value, list) else str(value)
    first = text[:1]
    risky = bool(first) and (first in FORMULA_STARTS or first.isspace()
                             or unicodedata.category(first) in INVISIBLE_CATEGORIES)
    text = terminal(text, keep_newlines=True) if any(
        ch != "\n" and unicodedata.category(ch) in INVISIBLE_CATEGORIES for ch in text) else text
    return "'" + text if risky else text
