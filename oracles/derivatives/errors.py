"""The derivative oracle's errors: one class per kind of bad input, all under ``ConstrainError``.

Every error a public function of ``oracles.derivatives`` raises for bad input is a
``ConstrainError`` (a ``ValueError``), or a plain ``TypeError`` for a wrong Python
type. The kinds have the same names as the reference's (``oracles.automaton.errors``)
for the same kinds, but these classes share no code with them (a bug shared by two
oracles is invisible); this oracle has no schema front end, hence no schema kinds::

    ConstrainError                 bad input of any kind
      PatternError                 located in a pattern: pattern, offset, caret
        PatternSyntaxError         malformed: Python's ``re`` refuses it, e.g. ``(ab``
        UnsupportedSyntax          a valid Python regex outside the subset, e.g. ``^a``
        EmptyLanguage              the pattern matches no string: no canonical DFA
        PatternTooLarge            (also a LimitExceeded) e.g. ``a{1001}``
      LimitExceeded                a bound reached (``oracles.derivatives.bounds``)
      InvalidArgument              a value of the right type the call cannot take

A ``PatternError``'s text shows the pattern and the offset with a caret::

    >>> print(UnsupportedSyntax("anchor", "a^b", 1))
    anchor at offset 1
      a^b
       ^
"""

from __future__ import annotations

__all__ = ["ConstrainError", "PatternError", "PatternSyntaxError", "UnsupportedSyntax", "EmptyLanguage",
           "LimitExceeded", "PatternTooLarge", "InvalidArgument"]


class ConstrainError(ValueError):
    """Base of every error this oracle raises for bad input (``TypeError`` apart)."""


class PatternError(ConstrainError):
    """A problem located in a pattern; ``str`` names it, the offset, and a caret."""

    def __init__(self, message: str, pattern: str | None = None, pos: int | None = None):
        self.msg, self.pattern, self.pos = message, pattern, pos
        text = message if pos is None else f"{message} at offset {pos}"
        if pattern is not None and pos is not None and len(pattern) <= 200:
            text += f"\n  {pattern}\n  {' ' * pos}^"
        super().__init__(text)


class PatternSyntaxError(PatternError):
    """Not a regex at all (Python's ``re`` refuses it), e.g. ``(ab`` or ``a{3,2}``."""


class UnsupportedSyntax(PatternError):
    """A valid Python regex outside the subset, e.g. ``^a`` or ``a*?``."""


class EmptyLanguage(PatternError):
    """The pattern matches nothing (e.g. ``[^\\x00-\\xff]``): it has no canonical DFA."""


class LimitExceeded(ConstrainError):
    """Work grew past a bound of ``oracles.derivatives.bounds`` (``MAX_STATES`` terms,
    ``MAX_DERIVATIVE_WORK``, ``MAX_MOORE_WORK``) or past the recursion limit."""


class PatternTooLarge(PatternError, LimitExceeded):
    """A pattern over a bound of its text: longer than ``MAX_PATTERN_CHARS``, a repeat
    count over ``MAX_REPEAT``, nested deeper than Python's parser can recurse."""


class InvalidArgument(ConstrainError):
    """A value of the right Python type that the call cannot take: an ``eos_id`` out of
    range, a vocabulary entry that is not bytes, a byte set outside 0..255."""
