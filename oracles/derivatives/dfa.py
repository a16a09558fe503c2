"""The canonical DFA: explore the derivative automaton, keep the live states,
Moore-minimize, number breadth first.

Guarantee: the arrays are a function of the language alone (the minimal DFA, states
numbered breadth first from 0, bytes ascending, ``DEAD`` (-1) for no continuation),
so they can be compared with the reference's byte for byte. Example::

    >>> from oracles.derivatives.frontend import parse
    >>> trans, accept = canonical_from_term(parse("(cat|car|dog)s?"), "(cat|car|dog)s?")
    >>> trans.shape, accept.nonzero()[0].tolist()
    ((7, 256), [5, 6])
"""

from __future__ import annotations

import itertools

import numpy as np

from . import bounds
from .derive import classes, derivative
from .emptiness import is_empty_term
from .errors import EmptyLanguage, LimitExceeded
from .terms import NOTHING, Term, lowest, members

__all__ = ["DEAD", "canonical_from_term", "canonical_from_rows"]

DEAD = -1            # the absence of a state in a transition table


def _explore(start: Term) -> tuple[list[list[int]], list[bool]]:
    """The derivative automaton from ``start``: rows of 256 targets (DEAD for ∅)
    and accepting flags; state i is the i-th term reached breadth first."""
    index: dict[Term, int] = {start: 0}
    order = [start]
    rows: list[list[int]] = []
    for t in order:  # grows while we iterate: a breadth-first queue
        row = [DEAD] * 256
        for c in classes(t):
            u = derivative(t, lowest(c))
            if u is NOTHING:
                continue
            target = index.get(u)
            if target is None:
                if len(order) >= bounds.MAX_STATES:
                    raise LimitExceeded(
                        f"derivative automaton has more than MAX_STATES={bounds.MAX_STATES} states")
                target = index[u] = len(order)
                order.append(u)
            for b in members(c):
                row[b] = target
        rows.append(row)
    return rows, [t.nullable for t in order]


def _live(rows: list[list[int]], accept: list[bool]) -> list[bool]:
    """live[s] iff an accepting state is reachable from s (backward search)."""
    preds: list[set[int]] = [set() for _ in rows]
    for s, row in enumerate(rows):
        for t in set(row):
            if t != DEAD:
                preds[t].add(s)
    live = list(accept)
    stack = [s for s, a in enumerate(accept) if a]
    while stack:
        for p in preds[stack.pop()]:
            if not live[p]:
                live[p] = True
                stack.append(p)
    return live


def _moore(trans: np.ndarray, accept: np.ndarray) -> np.ndarray:
    """Block ids after Moore refinement: start from {accepting, not}; split blocks
    whose states move to different blocks on some byte column; stop when the number
    of blocks no longer grows. Equal byte columns are merged first (they stay equal
    under any block mapping), so each round compares classes, not 256 bytes.

    Cost: one round per length of the longest shortest distinguishing string, so
    O(n^2 k) on a chain (a 2 000-byte literal needs 2 000 rounds of 2 001 states);
    past ``MAX_MOORE_WORK`` states x columns x rounds (each column is one ``np.unique``
    per round) it raises ``LimitExceeded``.
    """
    _, first = np.unique(trans, axis=1, return_index=True)
    cols = trans[:, np.sort(first)]
    block = accept.astype(np.int64)
    count = len(np.unique(block))  # 1 when every state accepts (or none does)
    for rounds in itertools.count(1):
        if rounds * len(block) * max(1, cols.shape[1]) > bounds.MAX_MOORE_WORK:
            raise LimitExceeded(
                f"Moore minimization past MAX_MOORE_WORK={bounds.MAX_MOORE_WORK} states x columns x rounds "
                f"({len(block)} states, {cols.shape[1]} columns, round {rounds})")
        new_block, new_count = _refine(block, cols)
        if new_count == count:
            return new_block
        block, count = new_block, new_count


def _refine(block: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, int]:
    """One Moore round: number the distinct (block, block of each column's target)
    signatures, folding one column at a time into a dense key (exact, no hashing):
    e.g. key (1, 0) then target block 2 becomes a new dense id for (1, 0, 2)."""
    key = block
    width = int(block.max()) + 2  # target blocks are -1 (DEAD) .. max
    for c in range(cols.shape[1]):
        targets = np.where(cols[:, c] >= 0, block[np.maximum(cols[:, c], 0)], -1)
        _, key = np.unique(key * width + (targets + 1), return_inverse=True)
        key = key.reshape(-1)
    return key, int(key.max()) + 1


def _number(trans: np.ndarray, accept: np.ndarray, block: np.ndarray):
    """The quotient by ``block``, numbered breadth first from block[0], bytes
    ascending: the first block reached gets the next number."""
    rep: dict[int, int] = {}
    for s, b in enumerate(block.tolist()):
        rep.setdefault(b, s)
    number = {int(block[0]): 0}
    order = [int(block[0])]
    rows = []
    for b in order:
        row = []
        for t in trans[rep[b]].tolist():
            if t == DEAD:
                row.append(DEAD)
                continue
            tb = int(block[t])
            if tb not in number:
                number[tb] = len(order)
                order.append(tb)
            row.append(number[tb])
        rows.append(row)
    out_trans = np.array(rows, dtype=np.int32).reshape(len(order), 256)
    out_accept = np.array([bool(accept[rep[b]]) for b in order], dtype=np.bool_)
    return out_trans, out_accept


def canonical_from_term(start: Term, pattern: str) -> tuple[np.ndarray, np.ndarray]:
    if is_empty_term(start):
        raise EmptyLanguage("empty language: the pattern matches no string", pattern, 0)
    rows, accept_list = _explore(start)
    return canonical_from_rows(rows, accept_list)


def canonical_from_rows(rows: list[list[int]], accept_list: list[bool]) -> tuple[np.ndarray, np.ndarray]:
    """Liveness, Moore minimization and numbering of any complete automaton whose
    start state 0 is live (rows of 256 targets or DEAD). With derivatives the
    liveness pass has nothing to do (∅ is the only empty term, and it is DEAD
    already); it is kept, and tested on hand-made automata with a dead sink."""
    live = _live(rows, accept_list)
    if not live[0]:
        raise EmptyLanguage("empty language: no accepting state is reachable")
    keep = [s for s, ok in enumerate(live) if ok]  # state 0 is live: L is not empty
    new_id = {s: i for i, s in enumerate(keep)}
    trans = np.array([[new_id.get(t, DEAD) for t in rows[s]] for s in keep], dtype=np.int64)
    trans = trans.reshape(len(keep), 256)
    accept = np.array([accept_list[s] for s in keep], dtype=np.bool_)
    return _number(trans, accept, _moore(trans, accept))
