"""Pattern text that must be refused, or that sits at a bound: malformed, outside the
subset, or oversized (the fuzz corpus on which the two automaton oracles must give the
same error class and offset).

Main access point: ``hostile_patterns()``; its parts are ``edited_patterns()`` (two to
four edits of a ``patterns()`` pattern, drawn from ``EDIT_CHARACTERS``: unbalanced
groups and brackets, stray quantifiers, escapes, anchors, non-ASCII next to a
malformed construct, constructs hidden in braces such as ``a{1(?#x)}``) and
``oversized_patterns()`` (nesting around ``MAX_NESTING`` = 400 groups, repeat bounds
around ``MAX_REPEAT`` = 1000 and far past it, each with or without a second problem
before or after it).

Guarantees: every pattern is a str of at most ``MAX_TEXT`` characters; nothing here
decides what a pattern means (no oracle is imported): the tests compare the oracles'
answers. Example::

    >>> nest(2, "a", 1)
    '((a))'
"""

from __future__ import annotations

from hypothesis import strategies as st

from .patterns import EDIT_CHARACTERS, patterns

__all__ = ["edited_patterns", "oversized_patterns", "hostile_patterns", "nest", "MAX_TEXT"]

MAX_TEXT = 4000
"""Longest pattern drawn (the length bound itself, 200,000, is the stress corpus's)."""
EXTRA_EDITS = ("(?#", "(?:", "(?P<n>", "(?i)", "{1(?#x)}", "{1,", "{,}", "[^", "\\x", "\\9", "é", "€", "*?", "{^1,}")
"""Multi-character edits: openers of refused constructs, braces that are or are not repeats."""
SECOND_PROBLEMS = ("", "(", ")", "*", "^", "(?=a)", "\\b", "é", "[", "a{3,2}", "(?P<n>a)", "a*?", "(?#c)")
"""What an oversized pattern may also hold, before or after its bound."""


@st.composite
def edited_patterns(draw, *, max_edits: int = 4) -> str:
    """A ``patterns()`` pattern with 2..``max_edits`` edits (insert, delete, replace) of
    single characters or ``EXTRA_EDITS``. Shrinks toward two insertions of ``(``."""
    text = draw(patterns(max_leaves=6))
    for _ in range(draw(st.integers(2, max_edits))):
        edit = draw(st.sampled_from(EDIT_CHARACTERS) | st.sampled_from(EXTRA_EDITS))
        kind = draw(st.sampled_from(["insert", "delete", "replace"] if text else ["insert"]))
        if kind == "insert":
            i = draw(st.integers(0, len(text)))
            text = text[:i] + edit + text[i:]
        else:
            i = draw(st.integers(0, len(text) - 1))
            text = text[:i] + ("" if kind == "delete" else edit) + text[i + 1:]
    return text


def nest(depth: int, body: str, style: int) -> str:
    """``body`` inside ``depth`` groups: capturing ``(`` (style 1), ``(?:`` (2), or
    alternating with a quantifier after each (3), e.g. ``nest(2, "a", 3) == "((?:a)*)*"``."""
    if style == 1:
        return "(" * depth + body + ")" * depth
    if style == 2:
        return "(?:" * depth + body + ")" * depth
    return "".join("(" if i % 2 == 0 else "(?:" for i in range(depth)) + body + ")*" * depth


@st.composite
def oversized_patterns(draw) -> str:
    """Nesting near 400 groups or a repeat bound near or far past 1000, with an
    optional second problem before or after. Shrinks toward ``(`` x 395 around ``a``."""
    second = draw(st.sampled_from(SECOND_PROBLEMS))
    if draw(st.booleans()):
        core = nest(draw(st.integers(395, 405)), draw(st.sampled_from(["a", "a|b", "[(]", "\\(", ""])),
                    draw(st.integers(1, 3)))
    else:
        bound = draw(st.sampled_from(["999", "1000", "1001", "5000", "0" * 10 + "1001", "4294967296",
                                      "9" * 50, "9" * 2000]))
        form = draw(st.sampled_from(["{%s}", "{%s,}", "{,%s}", "{1,%s}", "{%s,1}"]))
        core = "a" + form % bound
    return core + second if draw(st.booleans()) else second + core


def hostile_patterns() -> st.SearchStrategy[str]:
    """``edited_patterns()`` or ``oversized_patterns()`` (3 to 1). Shrinks toward an
    edited pattern."""
    return st.one_of(edited_patterns(), edited_patterns(), edited_patterns(), oversized_patterns())
