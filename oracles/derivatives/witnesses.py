"""Witnesses: the shortlex-least member of a language, and of a symmetric difference.

Both are breadth-first searches of derivative automata, bytes ascending, so the first
goal found is reached by the shortlex-least string. Example::

    >>> from oracles.derivatives.frontend import parse
    >>> witness_term(parse("(ab|ba)c?")), difference_term(parse("a{2,3}"), parse("a{2,4}"))
    (b'ab', b'aaaa')
"""

from __future__ import annotations

from collections import deque

from . import bounds
from .derive import classes, derivative, meet
from .errors import LimitExceeded
from .terms import NOTHING, Term, lowest

__all__ = ["witness_term", "difference_term"]

def _shortlex_search(start, is_goal, step) -> bytes | None:
    """Breadth first from ``start``, bytes ascending: nodes are dequeued in the
    shortlex order (length, then bytes) of the first string reaching them, so the
    first goal dequeued is reached by the shortlex-least string. ``step(node)``
    yields (byte set, successor) pairs, or None successors to skip."""
    path: dict = {start: b""}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if is_goal(node):
            return path[node]
        for bits, succ in sorted(step(node), key=lambda pair: lowest(pair[0])):
            if succ is not None and succ not in path:
                if len(path) >= bounds.MAX_STATES:
                    raise LimitExceeded(f"witness search past MAX_STATES={bounds.MAX_STATES} terms")
                path[succ] = path[node] + bytes([lowest(bits)])
                queue.append(succ)
    return None


def witness_term(term: Term) -> bytes | None:
    """The shortlex-least member of L(term) (e.g. ``b"ab"`` for ``(ab|ba)c?``), or
    None when the language is empty."""
    def step(t):
        return [(c, None if (u := derivative(t, lowest(c))) is NOTHING else u) for c in classes(t)]
    return _shortlex_search(term, lambda t: t.nullable, step)


def difference_term(left: Term, right: Term) -> bytes | None:
    """The shortlex-least string in exactly one of the two languages (a member of
    the symmetric difference), or None when they are equal: a product search of
    the two derivative automata over the meet of their classes."""
    def step(pair):
        t, u = pair
        if t is NOTHING and u is NOTHING:
            return []
        out = []
        for c in meet(classes(t), classes(u)):
            b = lowest(c)
            out.append((c, (derivative(t, b), derivative(u, b))))
        return out
    return _shortlex_search((left, right), lambda pair: pair[0].nullable != pair[1].nullable, step)
