"""Class DFA -> canonical DFA: liveness, Moore minimization, breadth-first numbering.

The three steps of the spec's section 2.2:

1. ``prune_dead``: states from which no accepting state is reachable (found by a
   backward search from the accepting states) are removed and every transition
   into them becomes DEAD; the subset construction's sink (the empty set) is such a
   state. E.g. for ``ab`` the sink after ``b`` from the start disappears.
2. ``minimal_partition``: start from two blocks, accepting and not; split every
   block whose states go to different blocks (DEAD counts as a block of its own) on
   some class, until no block splits. States of one block have the same futures and
   merge. First by Moore's rounds (Moore, 1956; vectorized with ``np.unique``), up to
   ``MOORE_ROUNDS``; a DFA needing more (a chain needs one round per state: long
   literals, bounded arrays) goes to Hopcroft's algorithm (Hopcroft, 1971,
   O(k n log n), bounded by ``MAX_MINIMIZE_WORK``).
3. ``number_breadth_first``: from the start block, bytes 0..255 ascending (classes in
   order of their smallest byte), the first block reached gets the next number.

The minimal DFA of a language is unique up to renaming, and step 3 fixes the names:
``trans`` and ``accept`` are a function of the language alone (``a|b`` and ``[ab]``
give equal arrays).
"""

from __future__ import annotations

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


MAX_MINIMIZE_WORK = 20_000_000
"""Hopcroft steps (splitter members read plus predecessors collected) allowed before
LimitExceeded. The algorithm needs O(k n log n) of them for n states over k column
classes: a 10,000-state chain (a long literal) needs about 300,000, the array schema
``[item(,item){0,299}]`` of strings a few million; the bound is a few seconds."""


MOORE_ROUNDS = 64
"""Rounds of vectorized Moore refinement tried first; a DFA that needs more (a chain:
a long literal, a bounded array) goes to ``hopcroft_partition`` instead."""
MOORE_WORK = 20_000_000
"""States x (columns + 1) x rounds allowed to the Moore attempt before it gives way."""
MOORE_PROJECT_AFTER = 8
"""From this round on, the Moore attempt also gives way when, splitting as many new blocks a
round as its last round did, it could not reach one block per state within ``MOORE_ROUNDS``:
a chain splits a few blocks a round and would have run all its rounds first (a 16,008-state
bounded array: 64 rounds, 0.27 CPU s, before Hopcroft's 0.34). The projection can only
hand a DFA to Hopcroft sooner; the partition is the same either way. Only where all the
rounds would cost more than ``MOORE_PROJECT_WORK``: a small DFA with a chain in it (a
283-state schema DFA, 214 blocks) finishes by Moore in less time than Hopcroft takes."""
MOORE_PROJECT_WORK = 4_000_000
"""States x (columns + 1) x ``MOORE_ROUNDS`` above which the projection applies."""


def minimal_partition(trans: np.ndarray, accept: np.ndarray) -> np.ndarray:
    """int [S]: the block of each state in the coarsest stable partition: Moore's
    vectorized rounds when they converge quickly (most DFAs: a few milliseconds),
    else Hopcroft's algorithm (a chain of n states needs n Moore rounds)."""
    block = moore_partition(trans, accept, max_rounds=MOORE_ROUNDS, max_work=MOORE_WORK)
    return block if block is not None else hopcroft_partition(trans, accept)


def moore_partition(trans: np.ndarray, accept: np.ndarray, *, max_rounds: int, max_work: int) -> np.ndarray | None:
    """The coarsest stable partition by Moore's rounds, or None when it takes more than
    ``max_rounds`` rounds or ``max_work`` states x (columns + 1) x rounds.

    One round: each state's signature is its block followed by the block of each
    successor (-1 for DEAD), a row of int32; equal rows, one new block (``np.unique``
    over the rows viewed as opaque bytes: exact, no hashing). Stops when a round
    splits nothing. Equal columns are merged first (they split alike)."""
    cols = np.unique(trans, axis=1) if trans.shape[1] else trans
    n, k = cols.shape
    dead = cols < 0
    safe_targets = np.where(dead, 0, cols)
    block = accept.astype(np.int32)
    n_blocks = len(np.unique(block))
    signature = np.empty((n, k + 1), dtype=np.int32)
    row_bytes = np.dtype((np.void, signature.itemsize * (k + 1)))
    projecting = n * (k + 1) * max_rounds > MOORE_PROJECT_WORK  # small DFAs: all the rounds cost little
    for rounds in range(1, max_rounds + 1):
        if rounds * n * (k + 1) > max_work:
            return None
        signature[:, 0] = block
        signature[:, 1:] = np.where(dead, -1, block[safe_targets])
        _, new_block = np.unique(signature.view(row_bytes).ravel(), return_inverse=True)
        new_block = new_block.ravel().astype(np.int32)
        new_count = int(new_block.max()) + 1 if n else 0
        if new_count == n_blocks:
            return new_block.astype(np.int64)
        if (projecting and rounds >= MOORE_PROJECT_AFTER
                and n - new_count > (new_count - n_blocks) * (max_rounds - rounds)):
            return None  # at this round's pace, not done within max_rounds (a chain): Hopcroft, now
        block, n_blocks = new_block, new_count
    return None


def hopcroft_partition(trans: np.ndarray, accept: np.ndarray, *, max_work: int = MAX_MINIMIZE_WORK) -> np.ndarray:
    """int [S]: the block of each state in the coarsest stable partition (Hopcroft,
    1971: refine by splitters, and of the two halves of a split block only the
    smaller needs to be a new splitter). Columns equal in ``trans`` are merged first
    (they split alike); DEAD is an explicit sink state ``S`` looping to itself.
    Requires every state live (as ``prune_dead`` leaves them): a dead state would
    share the sink's block, where Moore's rounds keep it apart from DEAD.

    Invariants: ``blocks[b]`` is the set of states of block b and ``block_of[s] == b``
    iff ``s in blocks[b]``; ``pending`` holds the (block, column) splitters still to
    apply. E.g. for ``ab|cb`` the states after ``a`` and after ``c`` end in one block.
    Raises LimitExceeded past ``max_work`` steps (see ``MAX_MINIMIZE_WORK``)."""
    n = trans.shape[0]
    cols = np.unique(trans, axis=1) if trans.shape[1] else trans
    preds = _predecessors(cols, sink=n)
    blocks, block_of = _initial_blocks(accept, sink=n)  # two: a live state accepts, the sink does not
    smaller = 0 if len(blocks[0]) <= len(blocks[1]) else 1
    pending = {(smaller, c) for c in range(len(preds))}
    work = 0
    while pending:
        splitter, c = pending.pop()
        table = preds[c]
        sources: set[int] = set()
        for t in blocks[splitter]:
            sources.update(table.get(t, ()))
        work += len(blocks[splitter]) + len(sources)
        if work > max_work:
            raise LimitExceeded(f"the DFA minimization exceeds MAX_MINIMIZE_WORK={max_work} steps "
                                f"({n} states over {len(preds)} column classes)")
        _split(blocks, block_of, sources, pending, len(preds))
    return _dense(block_of[:n])


def _predecessors(cols: np.ndarray, sink: int) -> list[dict[int, list[int]]]:
    """``preds[c][t]``: the states whose column c leads to t (DEAD is ``sink``, whose
    own columns loop to itself)."""
    preds: list[dict[int, list[int]]] = [{} for _ in range(cols.shape[1])]
    for s, row in enumerate(cols.tolist()):
        for c, t in enumerate(row):
            preds[c].setdefault(t if t != DEAD else sink, []).append(s)
    for table in preds:
        table.setdefault(sink, []).append(sink)
    return preds


def _initial_blocks(accept: np.ndarray, sink: int) -> tuple[list[set[int]], list[int]]:
    """Accepting states, then the others with the sink; empty blocks dropped."""
    accepting = set(np.flatnonzero(accept).tolist())
    others = set(range(sink + 1)) - accepting
    blocks = [b for b in (accepting, others) if b]
    block_of = [0] * (sink + 1)
    for b, members in enumerate(blocks):
        for s in members:
            block_of[s] = b
    return blocks, block_of


def _split(blocks: list[set[int]], block_of: list[int], sources: set[int], pending: set, n_cols: int) -> None:
    """Split every block that ``sources`` cuts in two; the part in ``sources`` becomes a
    new block. A new block is a splitter for every column where the old one still
    is; elsewhere the smaller half is (Hopcroft's trick)."""
    cut: dict[int, set[int]] = {}
    for s in sources:
        cut.setdefault(block_of[s], set()).add(s)
    for b, inside in cut.items():
        if len(inside) == len(blocks[b]):
            continue
        blocks[b] -= inside
        new = len(blocks)
        blocks.append(inside)
        for s in inside:
            block_of[s] = new
        for c in range(n_cols):
            if (b, c) in pending:
                pending.add((new, c))
            else:
                pending.add((new, c) if len(inside) <= len(blocks[b]) else (b, c))


def _dense(labels: list[int]) -> np.ndarray:
    """Labels renumbered 0.. in order of first occurrence (e.g. [4, 2, 4] -> [0, 1, 0])."""
    number: dict[int, int] = {}
    return np.array([number.setdefault(label, len(number)) for label in labels], dtype=np.int64)


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
