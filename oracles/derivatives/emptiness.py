r"""Emptiness: is a term's language empty? A search of its derivatives for a nullable term.

By the terms' normal form a term is empty iff it is ``NOTHING``; ``is_empty_term``
nevertheless decides it by definition (the tests check the two agree), and memoizes
the answer on every term it visits. Example::

    >>> from oracles.derivatives.frontend import parse
    >>> is_empty_term(parse("a[^\\x00-\\xff]")), is_empty_term(parse("a*"))
    (True, False)
"""

from __future__ import annotations

from collections import deque

from . import bounds
from .derive import classes, derivative
from .errors import LimitExceeded
from .terms import Term, lowest

__all__ = ["is_empty_term"]

def is_empty_term(term: Term) -> bool:
    """Return True if and only if no nullable term is reachable from ``term`` by
    derivatives (so L(term) is empty). Breadth first over derivative classes;
    memoized: the terms on the path to a nullable term are marked non-empty, and
    when the search fails every visited term is marked empty.

    Raises ``LimitExceeded`` past ``MAX_STATES`` visited terms.
    """
    if term._empty is not None:
        return term._empty
    parent: dict[Term, Term | None] = {term: None}
    queue = deque([term])
    while queue:
        t = queue.popleft()
        if t.nullable or t._empty is False:
            while t is not None:  # mark the path back to the start non-empty
                t._empty = False
                t = parent[t]
            return False
        if t._empty:
            continue
        for c in classes(t):
            u = derivative(t, lowest(c))
            if u not in parent:
                if len(parent) >= bounds.MAX_STATES:
                    raise LimitExceeded(
                        f"emptiness search visited more than MAX_STATES={bounds.MAX_STATES} terms")
                parent[u] = t
                queue.append(u)
    for t in parent:
        t._empty = True
    return True
