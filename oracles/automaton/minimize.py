"""Class DFA -> canonical DFA: liveness, Moore minimization, breadth-first numbering.

The three steps of the seed's section 2.2:

1. ``prune_dead``: states from which no accepting state is reachable (found by a
   backward search from the accepting states) are removed and every transition
   into them becomes DEAD; the subset construction's sink (the empty set) is such a
   state. E.g. for ``ab`` the sink after ``b`` from the start disappears.
2. ``moore_partition``: start from two blocks, accepting and not; split every block
   whose states go to different blocks (DEAD counts as a block of its own) on some
   class; stop when a round splits nothing. States of one block have the same
   futures and merge. (Moore, 1956; rounds are vectorized with ``np.unique``;
   bounded by ``MAX_MOORE_WORK``: a chain needs one round per state.)
3. ``number_breadth_first``: from the start block, bytes 0..255 ascending (classes in
   order of their smallest byte), the first block reached gets the next number.

The minimal DFA of a language is unique up to renaming, and step 3 fixes the names:
``trans`` and ``accept`` are a function of the language alone (``a|b`` and ``[ab]``
give equal arrays).
"""

from __future__ import annotations

import itertools
from collections import deque

import numpy as np

from .determinize import ClassDFA
from .dfa import DEAD, live_states
from .errors import LimitExceeded


def prune_dead(cdfa: ClassDFA) -> tuple[np.ndarray, np.ndarray]:
    """(trans, accept) over the live states only, DEAD for transitions to dead ones,
    numbered in the old order; the start state 0 must be live (else: empty language,
    returned as zero states)."""
    n = cdfa.accept.shape[0]
    live = live_states(cdfa.trans, cdfa.accept)
    if not live[0]:
        return np.zeros((0, cdfa.trans.shape[1]), dtype=np.int32), np.zeros(0, dtype=np.bool_)
    new_id = np.full(n + 1, DEAD, dtype=np.int32)  # index n stands for DEAD itself
    new_id[np.flatnonzero(live)] = np.arange(int(live.sum()), dtype=np.int32)
    trans = new_id[cdfa.trans[live]]
    return trans, cdfa.accept[live]


MAX_MOORE_WORK = 200_000_000
"""Moore rounds x states x (classes + 1) allowed before LimitExceeded: a long chain needs one
round per link (e.g. ``[item(,item){0,299}]`` with string items: over 550 rounds of
7,802 states and 22 classes), so the work is quadratic in the states; the bound holds
it to a few seconds and still admits that schema."""


def moore_partition(trans: np.ndarray, accept: np.ndarray, *, max_work: int = MAX_MOORE_WORK) -> np.ndarray:
    """int [S]: the block of each state in the coarsest stable partition.

    One round: each state's signature is its block followed by the block of each
    successor (-1 for DEAD), a row of ``classes + 1`` int32; equal rows, one new block
    (``np.unique`` over the rows viewed as opaque bytes: exact, no hashing). Stops when
    a round splits nothing. Raises LimitExceeded past ``max_work``."""
    n, k = trans.shape
    dead = trans < 0
    safe_targets = np.where(dead, 0, trans)
    block = accept.astype(np.int32)
    n_blocks = len(np.unique(block))
    signature = np.empty((n, k + 1), dtype=np.int32)
    row_bytes = np.dtype((np.void, signature.itemsize * (k + 1)))
    for rounds in itertools.count(1):
        if rounds * n * (k + 1) > max_work:
            raise LimitExceeded(f"the DFA minimization exceeds MAX_MOORE_WORK={max_work} (round {rounds} of "
                                f"{n} states over {k} classes); the pattern's automaton is too long a chain")
        signature[:, 0] = block
        signature[:, 1:] = np.where(dead, -1, block[safe_targets])
        _, new_block = np.unique(signature.view(row_bytes).ravel(), return_inverse=True)
        new_count = int(new_block.max()) + 1 if n else 0
        if new_count == n_blocks:
            return new_block.astype(np.int64).ravel()
        block, n_blocks = new_block.astype(np.int32).ravel(), new_count
    raise AssertionError("unreachable")


def number_breadth_first(trans: np.ndarray, accept: np.ndarray, block: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray]:
    """Quotient by ``block`` and renumber breadth first from state 0's block, classes
    ascending. Returns (trans over classes, accept) of the canonical DFA."""
    n_blocks = int(block.max()) + 1
    representative = np.full(n_blocks, -1, dtype=np.int64)
    for s in range(len(block) - 1, -1, -1):  # any member works: members agree on everything
        representative[block[s]] = s
    rows = trans.tolist()
    number = {int(block[0]): 0}
    queue = deque([int(block[0])])
    order = []
    while queue:
        b = queue.popleft()
        order.append(b)
        for t in rows[representative[b]]:
            if t != DEAD:
                tb = int(block[t])
                if tb not in number:
                    number[tb] = len(number)
                    queue.append(tb)
    new_trans = np.full((len(order), trans.shape[1]), DEAD, dtype=np.int32)
    new_accept = np.zeros(len(order), dtype=np.bool_)
    for b in order:
        rep = representative[b]
        i = number[b]
        new_accept[i] = accept[rep]
        new_trans[i] = [number[int(block[t])] if t != DEAD else DEAD for t in rows[rep]]
    return new_trans, new_accept
