"""The derivative oracle's errors: one ValueError per problem kind.

Every error a public function of ``oracles.derivatives`` raises for bad input is one
of these (or a TypeError for a wrong Python type). A ``PatternError`` carries the
pattern and an offset, and its text shows them with a caret::

    >>> print(PatternUnsupported("anchor", "a^b", 1))
    anchor at offset 1
      a^b
       ^

``DerivativeLimitExceeded`` is a bound reached (``oracles.derivatives.bounds``), not
a fault of the pattern's syntax. These classes share no code with the reference's
(``oracles.automaton.errors``).
"""

from __future__ import annotations

__all__ = ["PatternError", "PatternMalformed", "PatternUnsupported", "LanguageEmpty",
           "DerivativeLimitExceeded"]


class PatternError(ValueError):
    """A problem located in a pattern; ``str`` names it, the offset, and a caret."""

    def __init__(self, message: str, pattern: str | None = None, pos: int | None = None):
        self.msg, self.pattern, self.pos = message, pattern, pos
        text = message if pos is None else f"{message} at offset {pos}"
        if pattern is not None and pos is not None and len(pattern) <= 200:
            text += f"\n  {pattern}\n  {' ' * pos}^"
        super().__init__(text)


class PatternMalformed(PatternError):
    """Not a regex at all (Python's ``re`` refuses it), e.g. ``(ab`` or ``a{3,2}``."""


class PatternUnsupported(PatternError):
    """A valid Python regex outside the subset, e.g. ``^a`` or ``a*?``."""


class LanguageEmpty(PatternError):
    """The pattern matches nothing (e.g. ``[^\\x00-\\xff]``): it has no canonical DFA."""


class DerivativeLimitExceeded(ValueError):
    """Work grew past ``MAX_STATES`` terms (or past the recursion limit)."""
