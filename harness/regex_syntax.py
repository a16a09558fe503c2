"""One scanner of regular-expression syntax, Python ``re``'s, for the rewrites that must tell
syntax from characters: a ``$`` inside a class is a character, a ``]`` first in a class is a
literal, a ``)`` after a backslash closes nothing.

Input: a pattern (``str``), well-formed or not. Output: ``scan(pattern)``, a tuple of
``Token(kind, start, end)`` (``pattern[start:end]`` is ``token.text(pattern)``), and
``groups(pattern)``, the matched (open, close) token pairs.

Guarantees:

- the tokens cover the pattern exactly, in order, none empty: ``"".join(t.text(p) for t in
  scan(p)) == p``; scanning never raises on a ``str`` (a malformed pattern is cut as Python
  would start to read it: an unterminated class runs to the end, an unmatched ``)`` is a
  ``CLOSE`` with no partner) and is linear in the pattern's length;
- on a pattern ``re`` compiles, the tokens are ``re``'s reading (``tests/peers/test_regex_syntax.py``
  holds them to ``re._parser``): each ``CLASS`` alone parses to one item; ``END`` tokens
  are its ``AT_END`` items; ``LAZY`` tokens its lazy repeats; ``QUANTIFIER`` tokens its repeats;
  wrapping a pair of ``groups`` in one more group compiles, with one more capturing group.

Kinds (``KINDS``), with the syntax each covers:

================  ===============================================================================
``LITERAL``       one character that is not syntax (``a``, a ``{`` that starts no repeat)
``ESCAPE``        ``\\`` and the character after it; ``\\N{...}``, ``\\p{...}``, ``\\P{...}``,
                  ``\\x{...}`` whole (a lone ``\\`` at the end too)
``CLASS``         ``[...]`` whole: a ``]`` right after ``[`` or ``[^`` is a literal (``[]$]``
                  is the class of ``]`` and ``$``), escapes inside are skipped, a ``[`` inside
                  is a character
``ANY``           ``.``
``START``         ``^``
``END``           ``$``
``ALTERNATION``   ``|``
``OPEN``          a group's opener: ``(``, ``(?:``, ``(?=``, ``(?!``, ``(?>``, ``(?<=``, ``(?<!``,
                  ``(?P<name>``, ``(?<name>``, ``(?flags:``, ``(?flags-flags:``, ``(?(cond)``
``CLOSE``         ``)``
``INLINE``        a parenthesized item with no body: ``(?#comment)``, ``(?flags)``, ``(?P=name)``
``QUANTIFIER``    ``*``, ``+``, ``?``, ``{m}``, ``{m,}``, ``{,n}``, ``{m,n}`` (``{}`` and ``{a}``
                  are literals, as in ``re``)
``LAZY``          the ``?`` right after a quantifier (``a*?``, ``a{2,}?``)
``POSSESSIVE``    the ``+`` right after a quantifier (``a*+``, Python 3.11)
================  ===============================================================================

Example::

    >>> [(t.kind, t.text("[]$]$")) for t in scan("[]$]$")]
    [('CLASS', '[]$]'), ('END', '$')]
    >>> [(o.text("(?:a)b"), c.text("(?:a)b")) for o, c in groups("(?:a)b")]
    [('(?:', ')')]

Known weak spots: verbose mode (``(?x)``: whitespace and ``#`` comments) is not read, so its
comments are scanned as syntax; the ``regex`` module's V1 sets (``[[a-z]--[aeiou]]``) and
ECMA-262's ``[]`` (empty) and ``[^]`` (any) classes are read as ``re`` reads them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Token", "KINDS", "scan", "groups", "LITERAL", "ESCAPE", "CLASS", "ANY", "START", "END",
           "ALTERNATION", "OPEN", "CLOSE", "INLINE", "QUANTIFIER", "LAZY", "POSSESSIVE"]

KINDS = ("LITERAL", "ESCAPE", "CLASS", "ANY", "START", "END", "ALTERNATION", "OPEN", "CLOSE", "INLINE", "QUANTIFIER",
         "LAZY", "POSSESSIVE")
LITERAL, ESCAPE, CLASS, ANY, START, END, ALTERNATION, OPEN, CLOSE, INLINE, QUANTIFIER, LAZY, POSSESSIVE = KINDS

_SINGLE = {".": ANY, "^": START, "$": END, "|": ALTERNATION, ")": CLOSE, "*": QUANTIFIER, "+": QUANTIFIER,
           "?": QUANTIFIER}
_BRACED_ESCAPES = "NpPx"  # \N{name}, \p{prop}, \P{prop}, \x{hex}: the braces belong to the escape
_REPEAT = re.compile(r"\{(?:\d*,\d*|\d+)\}")  # {m}, {m,}, {,n}, {m,n}, {,}: what re reads as a repeat
_OPENERS = (  # (a regex at "(?", its kind); the first that matches wins
    (re.compile(r"\(\?(?::|=|!|>|<=|<!)"), OPEN),           # (?:  (?=  (?!  (?>  (?<=  (?<!
    (re.compile(r"\(\?P?<[^>)]*>"), OPEN),                  # (?P<name>  (?<name>
    (re.compile(r"\(\?P=[^)]*\)"), INLINE),                 # (?P=name)
    (re.compile(r"\(\?\([^)]*\)"), OPEN),                   # (?(1)  (?(name)
    (re.compile(r"\(\?[a-zA-Z]*(?:-[a-zA-Z]*)?:"), OPEN),   # (?i:  (?-i:  (?s-m:
    (re.compile(r"\(\?[a-zA-Z]+\)"), INLINE),               # (?i)  (?aiLmsux)
)


@dataclass(frozen=True)
class Token:
    """``pattern[start:end]`` is one item of syntax of kind ``kind`` (one of ``KINDS``);
    ``start < end``."""

    kind: str
    start: int
    end: int

    def text(self, pattern: str) -> str:
        return pattern[self.start:self.end]


def scan(pattern: str) -> tuple[Token, ...]:
    """``pattern`` cut into tokens (the module docstring's kinds and guarantees)."""
    if not isinstance(pattern, str):
        raise TypeError(f"scan: the pattern must be a str, not {type(pattern).__name__}")
    tokens: list[Token] = []
    i = 0
    while i < len(pattern):
        kind, end = _token_at(pattern, i)
        if kind == QUANTIFIER and tokens and tokens[-1].kind == QUANTIFIER and pattern[i] in "?+":
            kind = LAZY if pattern[i] == "?" else POSSESSIVE  # e.g. a*? a{2,}? a*+ (one character)
        tokens.append(Token(kind, i, end))
        i = end
    return tuple(tokens)


def _token_at(pattern: str, i: int) -> tuple[str, int]:
    """``(kind, end)`` of the token that starts at ``i``: a closed dispatch on its first character."""
    ch = pattern[i]
    if ch == "\\":   # e.g. \$ \] \N{DIGIT ONE}
        return ESCAPE, _escape_end(pattern, i)
    if ch == "[":    # e.g. [a-z] []$] [^]a]
        return CLASS, _class_end(pattern, i)
    if ch == "(":    # e.g. ( (?: (?P<n> (?#c) (?i)
        return _opener(pattern, i)
    if ch == "{":    # e.g. {2,} ({} and {a} are literals)
        repeat = _REPEAT.match(pattern, i)
        return (QUANTIFIER, repeat.end()) if repeat else (LITERAL, i + 1)
    return _SINGLE.get(ch, LITERAL), i + 1


def _escape_end(pattern: str, i: int) -> int:
    """The end of the escape at ``i``: the backslash and one character, or a braced escape whole."""
    if pattern[i + 1:i + 2] and pattern[i + 1] in _BRACED_ESCAPES and pattern[i + 2:i + 3] == "{":
        close = pattern.find("}", i + 3)
        if close != -1:
            return close + 1
    return min(i + 2, len(pattern))


def _class_end(pattern: str, i: int) -> int:
    """The end of the class that opens at ``i`` (the pattern's end when it is not closed)."""
    j = i + 1
    if pattern[j:j + 1] == "^":
        j += 1
    if pattern[j:j + 1] == "]":   # first in the class: a literal
        j += 1
    while j < len(pattern):
        if pattern[j] == "\\":
            j = _escape_end(pattern, j)
        elif pattern[j] == "]":
            return j + 1
        else:
            j += 1
    return len(pattern)


def _opener(pattern: str, i: int) -> tuple[str, int]:
    """``(kind, end)`` of the parenthesized syntax at ``i``: a group's opener, or an item with
    no body (a comment runs to its first unescaped ``)``, as ``re`` reads it)."""
    if not pattern.startswith("(?", i):
        return OPEN, i + 1
    if pattern.startswith("(?#", i):
        j = i + 3
        while j < len(pattern) and pattern[j] != ")":
            j = _escape_end(pattern, j) if pattern[j] == "\\" else j + 1
        return INLINE, min(j + 1, len(pattern))
    for opener, kind in _OPENERS:
        found = opener.match(pattern, i)
        if found:
            return kind, found.end()
    return OPEN, i + 1   # malformed, e.g. "(?Q": the "(" alone; re refuses the pattern


def groups(pattern: str) -> list[tuple[Token, Token]]:
    """The (``OPEN``, ``CLOSE``) token pairs of ``pattern``, in the order they close (inner
    groups first); an unmatched ``OPEN`` or ``CLOSE`` is in no pair."""
    pairs, stack = [], []
    for token in scan(pattern):
        if token.kind == OPEN:
            stack.append(token)
        elif token.kind == CLOSE and stack:
            pairs.append((stack.pop(), token))
    return pairs
