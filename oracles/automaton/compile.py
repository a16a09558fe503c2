"""``regex_to_dfa``: the whole pipeline from pattern text to the canonical DFA.

    parse -> build_nfa -> subset_construction -> prune_dead -> minimal_partition
          -> number_breadth_first -> expand classes to 256 bytes -> DFA

Bounds (each raises a ValueError subclass, checked before or as the work grows, never
after it): ``parser.MAX_PATTERN_LENGTH`` (text), ``parser.MAX_REPEAT`` (repeat bounds),
``parser.MAX_NESTING`` (groups), ``nfa.MAX_NFA_STATES`` (counted from the tree before
building), ``determinize.MAX_DFA_STATES`` and ``determinize.MAX_CLOSURE_WORK`` (subset
construction), ``minimize.MAX_MINIMIZE_WORK`` (Hopcroft steps). Together they keep
any pattern to about 10 s and well under 500 MB (``constrain-harness bench stress``).

Example::

    >>> dfa = regex_to_dfa("(cat|car|dog)s?")
    >>> dfa.n_states, dfa.accept.nonzero()[0].tolist()
    (7, [5, 6])
"""

from __future__ import annotations

import contextlib
import sys

from .determinize import MAX_DFA_STATES, subset_construction
from .dfa import DFA
from .errors import EmptyLanguage
from .minimize import minimal_partition, number_breadth_first, prune_dead
from .nfa import build_nfa
from .parser import parse

RECURSION_ROOM = 5000
"""Python frames allowed while parsing and building the NFA: the parser and the NFA
builder recurse about five frames per group level, and ``parser.MAX_NESTING`` (400)
keeps the depth within this."""


@contextlib.contextmanager
def _recursion_room(frames: int):
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, frames))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def regex_to_dfa(pattern: str, *, max_states: int = MAX_DFA_STATES) -> DFA:
    """The canonical DFA of ``pattern`` (meaning: Python's ``re.fullmatch`` on bytes).

    Raises a ValueError naming the construct and offset for syntax outside the
    subset, ``EmptyLanguage`` when no string matches, ``LimitExceeded`` past
    ``max_states`` subset-construction states.
    """
    with _recursion_room(RECURSION_ROOM):
        tree = parse(pattern)
        nfa = build_nfa(tree)
    cdfa = subset_construction(nfa, max_states=max_states)
    trans, accept = prune_dead(cdfa)
    if accept.shape[0] == 0:
        raise EmptyLanguage("the pattern matches no string (empty language)", pattern, 0)
    block = minimal_partition(trans, accept)
    trans, accept = number_breadth_first(trans, accept, block)
    return DFA(trans[:, cdfa.classes.class_of], accept, validate=False)
