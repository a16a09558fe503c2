"""Thompson NFA -> DFA over byte classes (the subset construction; seed section 2.2).

Byte classes: bytes that every NFA edge treats alike. Guarantee: any two bytes in one
class lead every NFA state (and so every DFA state) to the same successor, so the
construction loops over classes instead of 256 bytes. Classes are numbered by their
smallest byte, so iterating classes in order is iterating bytes in ascending order
of first occurrence. E.g. for ``[a-c]x`` the classes are ``[\\x00-`]``, ``[a-c]``,
``[d-w]``, ``x``, ``[y-\\xff]``.

The subset construction: a DFA state is the epsilon-closure of a set of NFA states
(a Python int used as a bitset over NFA states). From the closure of the NFA entry,
for each state T and class c the successor is the closure of every target of an edge
of T whose label holds c. The empty set is kept as an ordinary state here, the
*sink*: it is not live, and ``minimize.prune_dead`` turns every transition into it
into DEAD.

Bound: ``max_states`` DFA states (``MAX_DFA_STATES``); past it LimitExceeded, so
``(a|b)*a(a|b){30}`` (2**31 subsets) fails in a fraction of a second.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .errors import LimitExceeded
from .nfa import NFA

MAX_DFA_STATES = 20_000
"""Subset-construction states allowed before LimitExceeded (before minimization)."""


@dataclasses.dataclass
class ByteClasses:
    """``class_of[b]``: the class of byte b (int32 [256]); ``n``: the number of classes;
    ``members[c]``: the bytes of class c as a 256-bit int."""

    class_of: np.ndarray
    n: int
    members: list[int]


def byte_classes(labels) -> ByteClasses:
    """Partition bytes 0..255 so that every label is a union of classes.

    Each byte's *signature* is the tuple of labels holding it; equal signatures, one
    class. Classes are numbered in order of their smallest byte.
    """
    distinct = sorted({m for m in labels if m})
    if not distinct:
        return ByteClasses(np.zeros(256, dtype=np.int32), 1, [(1 << 256) - 1])
    bits = np.zeros((len(distinct), 256), dtype=np.uint8)
    for i, m in enumerate(distinct):
        bits[i] = np.unpackbits(np.frombuffer(m.to_bytes(32, "little"), dtype=np.uint8), bitorder="little")
    signatures = np.packbits(bits, axis=0).T.copy()  # row b: which labels hold byte b
    number: dict[bytes, int] = {}
    class_of = np.empty(256, dtype=np.int32)
    for b in range(256):  # first occurrence numbering: class ids ascend with their smallest byte
        class_of[b] = number.setdefault(signatures[b].tobytes(), len(number))
    members = [0] * len(number)
    for b in range(256):
        members[class_of[b]] |= 1 << b
    return ByteClasses(class_of, len(number), members)


@dataclasses.dataclass
class ClassDFA:
    """A DFA over byte classes: ``trans`` int32 [S, n_classes] (no DEAD yet: the empty
    set is the sink state ``sink``, or -1 if never reached), ``accept`` bool [S]."""

    trans: np.ndarray
    accept: np.ndarray
    classes: ByteClasses
    sink: int


def epsilon_closures(nfa: NFA) -> list[int]:
    """``closure[s]``: the bitset of states reachable from s by epsilon edges alone."""
    closures = [0] * nfa.n_states
    for s in range(nfa.n_states):
        seen = 1 << s
        stack = [s]
        while stack:
            for t in nfa.eps[stack.pop()]:
                if not seen >> t & 1:
                    seen |= 1 << t
                    stack.append(t)
        closures[s] = seen
    return closures


def subset_construction(nfa: NFA, *, max_states: int = MAX_DFA_STATES) -> ClassDFA:
    classes = byte_classes(nfa.label)
    closures = epsilon_closures(nfa)
    # per NFA state with a labeled edge: the classes its label holds, and the
    # closure of its target
    moves: dict[int, tuple[list[int], int]] = {}
    for s in range(nfa.n_states):
        if nfa.label[s]:
            held = [c for c in range(classes.n) if classes.members[c] & nfa.label[s]]
            moves[s] = (held, closures[nfa.target[s]])
    start = closures[nfa.start]
    index = {start: 0}
    subsets = [start]
    rows: list[list[int]] = []
    for subset in subsets:  # grows while iterating: a breadth-first worklist
        successors = [0] * classes.n
        for s in _members(subset):
            move = moves.get(s)
            if move is not None:
                held, target_closure = move
                for c in held:
                    successors[c] |= target_closure
        row = []
        for succ in successors:
            j = index.get(succ)
            if j is None:
                if len(subsets) >= max_states:
                    raise LimitExceeded(
                        f"the DFA exceeds MAX_DFA_STATES={max_states} states during the subset "
                        f"construction; the pattern's automaton is too large (e.g. (a|b)*a(a|b){{30}})")
                j = index[succ] = len(subsets)
                subsets.append(succ)
            row.append(j)
        rows.append(row)
    accept = np.array([bool(sub >> nfa.accept & 1) for sub in subsets], dtype=np.bool_)
    trans = np.array(rows, dtype=np.int32).reshape(len(subsets), classes.n)
    return ClassDFA(trans, accept, classes, index.get(0, -1))


def _members(bitset: int):
    """The set bits of ``bitset``, ascending (e.g. 0b1010 -> 1, 3)."""
    while bitset:
        low = bitset & -bitset
        yield low.bit_length() - 1
        bitset ^= low
