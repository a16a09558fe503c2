"""Errors of the reference pipeline.

Every error a caller can provoke with bad input is a ``ValueError`` (or a
``TypeError`` for a wrong Python type). The subclasses keep *malformed* input
(``PatternSyntaxError``: not a regex at all, e.g. ``(ab``) apart from valid input
outside our subset (``UnsupportedSyntax``: e.g. ``^ab``), from languages we refuse
(``EmptyLanguage``), from work over a documented bound (``LimitExceeded``), and
from schemas outside the JSON-schema subset (``SchemaError``).
"""

from __future__ import annotations


class ConstrainError(ValueError):
    """Base class of every error the pipeline raises for bad input."""


class PatternError(ConstrainError):
    """An error located in a pattern: carries the pattern and an offset.

    ``str(err)`` names the problem and the offset, then renders the pattern with a
    caret under the offending character, e.g.::

        lookaround is not supported at offset 1
          a(?=b)
           ^
    """

    def __init__(self, message: str, pattern: str | None = None, pos: int | None = None):
        self.msg = message
        self.pattern = pattern
        self.pos = pos
        text = message
        if pos is not None:
            text = f"{message} at offset {pos}"
        if pattern is not None and pos is not None and len(pattern) <= 200:
            text += f"\n  {pattern}\n  {' ' * len(pattern[:pos])}^"
        super().__init__(text)


class PatternSyntaxError(PatternError):
    """The pattern is malformed: not a regex in any dialect (e.g. ``(ab``, ``a{3,2}``)."""


class UnsupportedSyntax(PatternError):
    """The pattern is a valid Python regex outside our subset (e.g. ``^a``, ``(?=a)``)."""


class EmptyLanguage(PatternError):
    """The pattern matches no string at all (e.g. ``[^\\x00-\\xff]``): a constraint
    with an empty language could never finish, so it is refused."""


class LimitExceeded(ConstrainError):
    """Work would grow past a documented bound: pattern length, repeat bounds, nesting,
    NFA states (counted before building), DFA states, closure work, minimization
    work, vocabulary size. Raised before or as the work grows, never after it."""


class PatternTooLarge(PatternError, LimitExceeded):
    """A valid pattern over one of our bounds, located in the pattern (e.g. ``a{1001}``
    over ``MAX_REPEAT``, groups nested deeper than ``MAX_NESTING``)."""


class SchemaError(ConstrainError):
    """A JSON schema outside the subset, or malformed; carries the JSON pointer.

    ``str(err)`` reads ``<pointer>: <problem>``, e.g.
    ``/properties/city: keyword 'pattern' is not supported``.
    """

    def __init__(self, message: str, pointer: str = ""):
        self.msg = message
        self.pointer = pointer or ""
        super().__init__(f"{self.pointer or '/'}: {message}" if pointer is not None else message)
