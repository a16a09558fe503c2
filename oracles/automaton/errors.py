"""Errors of the reference pipeline: one class per kind of bad input, all under ``ConstrainError``.

Every error a caller can provoke with bad input is a ``ConstrainError`` (a
``ValueError``), or a plain ``TypeError`` for a wrong Python type. ``TypeError`` is
kept apart on purpose: a class deriving from both would make ``except ValueError``
catch wrong types, which the contract (``harness/contract/constrain.pyi``) keeps
separate. ``tests/oracles/test_errors.py`` walks every ``raise`` of this package and checks it.

The kinds (the derivative oracle, ``oracles.derivatives.errors``, has the same names
for the same kinds, in its own code; it has no schema front end, so no schema kinds)::

    ConstrainError                 bad input of any kind
      PatternError                 located in a pattern: pattern, offset, caret
        PatternSyntaxError         malformed: not a regex at all, e.g. ``(ab``, ``a{3,2}``
        UnsupportedSyntax          a valid Python regex outside the subset, e.g. ``^ab``
        EmptyLanguage              the pattern matches no string, e.g. ``[^\\x00-\\xff]``
        PatternTooLarge            (also a LimitExceeded) e.g. ``a{1001}``
      LimitExceeded                work over a documented bound (states, work, vocabulary)
      SchemaError                  located in a JSON schema: the JSON pointer
        SchemaMalformed            not a valid JSON Schema / not JSON, e.g. ``{"type": 3}``
        SchemaUnsupported          a valid JSON Schema outside the subset, e.g. ``{"minLength": 1}``
        SchemaTooLarge             (also a LimitExceeded) e.g. ``maxItems`` over ``MAX_ITEMS_BOUND``
      InvalidArgument              a value of the right type that the call cannot take:
                                   an id or state out of range, a NaN logit, an all-false
                                   mask, a token the constraint refuses, a finished constraint

Example::

    >>> from oracles.automaton import regex_to_dfa
    >>> try:
    ...     regex_to_dfa("a(?=b)")
    ... except ConstrainError as err:
    ...     print(type(err).__name__, isinstance(err, ValueError))
    UnsupportedSyntax True
"""

from __future__ import annotations


class ConstrainError(ValueError):
    """Base class of every error the pipeline raises for bad input (``TypeError`` apart)."""


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
    ``/properties/city: keyword 'pattern' is not supported``. Raised as one of the
    three subclasses below.
    """

    def __init__(self, message: str, pointer: str = ""):
        self.msg = message
        self.pointer = pointer or ""
        super().__init__(f"{self.pointer or '/'}: {message}" if pointer is not None else message)


class SchemaMalformed(SchemaError):
    """Not a valid JSON Schema, or not JSON at all: a document that JSON Schema's own
    meta-schema rejects (``{"type": 3}``, ``{"anyOf": []}``, ``{"required": "a"}``) or
    a Python value with no JSON (a set, NaN, a non-string key, a lone surrogate)."""


class SchemaUnsupported(SchemaError):
    """A valid JSON Schema outside the subset: a keyword or form we refuse rather than
    ignore (``{"type": "string", "minLength": 1}``, ``{}``, ``true``, a type list), or
    one whose language is empty (``{"enum": []}``, ``minItems`` above ``maxItems``)."""


class SchemaTooLarge(SchemaError, LimitExceeded):
    """A valid schema over one of our bounds, located by its pointer (e.g. ``maxItems``
    over ``MAX_ITEMS_BOUND``, nesting deeper than ``MAX_DEPTH``)."""


class InvalidArgument(ConstrainError):
    """A value of the right Python type that the call cannot take: a state or token id
    out of range, logits holding NaN, an all-false mask, a token the constraint does
    not allow, a finished constraint, a token string with no UTF-8."""
