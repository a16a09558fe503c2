"""Thompson NFA -> DFA over byte classes (the subset construction; spec section 2.2).

Byte classes: bytes that every NFA edge treats alike. Guarantee: any two bytes in one
class lead every NFA state (and so every DFA state) to the same successor, so the
construction loops over classes instead of 256 bytes. Classes are numbered by their
smallest byte, so iterating classes in order is iterating bytes in ascending order
of first occurrence. E.g. for ``[a-c]x`` the classes are ``[\\x00-`]``, ``[a-c]``,
``[d-w]``, ``x``, ``[y-\\xff]``.

The subset construction: a DFA state is the epsilon-closure of a set of NFA states,
kept as the sorted *kernel* of that closure: its members with a labeled edge, plus
the NFA's accept state (the only members that decide transitions and acceptance),
packed as int32 bytes (the dict key). From the closure of the NFA entry, for each
state T and class c the successor is the closure of every target of an edge of T
whose label holds c. Closures are computed per DFA state by a depth-first search
that stamps visited NFA states with the search's number, so memory is linear in
the NFA (no closure stored per NFA state: a 100 KB literal used to need one
100,000-bit set per state). E.g. for ``a|b`` the start kernel is the two labeled
states, and class ``a`` leads to the kernel ``{accept}``.

The empty set is kept as an ordinary state here, the *sink*: it is not live, and
``minimize.prune_dead`` turns every transition into it into DEAD.

Bounds: ``max_states`` DFA states (``MAX_DFA_STATES``) and ``max_work`` closure
steps (``MAX_CLOSURE_WORK``: NFA states visited by the closure searches plus the
(kernel member, class) pairs read to collect the seeds, summed over the construction); past either, LimitExceeded. So
``(a|b)*a(a|b){30}`` (2**31 subsets) and ``((a{0,30}){0,30}){0,30}`` (subsets of
tens of thousands of NFA states) both fail within about a second.
"""

from __future__ import annotations

import dataclasses
from array import array

import numpy as np

from .errors import LimitExceeded
from .nfa import NFA

MAX_DFA_STATES = 20_000
"""Subset-construction states allowed before LimitExceeded (before minimization)."""
MAX_CLOSURE_WORK = 4_000_000
"""Closure steps (NFA states visited, kernel members read) allowed in one subset
construction before LimitExceeded: about a second of work. The memory of the
subsets is at most 4 bytes per step, so 16 MB."""


@dataclasses.dataclass
class BytePartition:
    """The byte classes: a partition of the 256 bytes into ``n`` classes (each a byte set)
    that every edge label treats alike. ``class_of[b]``: the class of byte b (int32
    [256]); ``members[c]``: the bytes of class c as a 256-bit int."""

    class_of: np.ndarray
    n: int
    members: list[int]


def byte_classes(labels) -> BytePartition:
    """Partition bytes 0..255 so that every label is a union of classes.

    Each byte's *signature* is the tuple of labels holding it; equal signatures, one
    class. Classes are numbered in order of their smallest byte.
    """
    distinct = sorted({m for m in labels if m})
    if not distinct:
        return BytePartition(np.zeros(256, dtype=np.int32), 1, [(1 << 256) - 1])
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
    return BytePartition(class_of, len(number), members)


@dataclasses.dataclass
class ClassDFA:
    """A DFA over byte classes: ``trans`` int32 [S, n_classes] (no DEAD yet: the empty
    set is the sink state ``sink``, or -1 if never reached), ``accept`` bool [S]."""

    trans: np.ndarray
    accept: np.ndarray
    classes: BytePartition
    sink: int


class _Closures:
    """Epsilon closures on demand, in memory linear in the NFA.

    ``kernel(seeds)``: the sorted members of the closure of ``seeds`` that have a
    labeled edge or are the accept state, packed as int32 bytes. Invariant: ``mark[s]
    == stamp`` iff s was visited by the current search (one int per NFA state, reused
    by every search). Every visited state counts one step of ``work``."""

    def __init__(self, nfa: NFA, max_work: int):
        self.eps = nfa.eps
        self.kept = [bool(label) for label in nfa.label]
        self.kept[nfa.accept] = True
        self.mark = [0] * nfa.n_states
        self.stamp = 0
        self.work = 0
        self.max_work = max_work

    def kernel(self, seeds) -> bytes:
        self.stamp += 1
        stamp, mark, eps, kept = self.stamp, self.mark, self.eps, self.kept
        stack = []
        for s in seeds:
            if mark[s] != stamp:
                mark[s] = stamp
                stack.append(s)
        members = []
        visited = 0
        while stack:
            s = stack.pop()
            visited += 1
            if kept[s]:
                members.append(s)
            for t in eps[s]:
                if mark[t] != stamp:
                    mark[t] = stamp
                    stack.append(t)
        self.spend(visited)
        members.sort()
        return array("i", members).tobytes()

    def spend(self, steps: int) -> None:
        self.work += steps
        if self.work > self.max_work:
            raise LimitExceeded(
                f"the subset construction exceeds MAX_CLOSURE_WORK={self.max_work} closure steps; the "
                f"pattern's automaton is too large to build (e.g. nested counted repeats such as "
                f"((a{{0,30}}){{0,30}}){{0,30}})")


def subset_construction(nfa: NFA, *, max_states: int = MAX_DFA_STATES,
                        max_work: int = MAX_CLOSURE_WORK) -> ClassDFA:
    classes = byte_classes(nfa.label)
    closures = _Closures(nfa, max_work)
    # per NFA state with a labeled edge: the classes its label holds
    held: dict[int, list[int]] = {}
    for s in range(nfa.n_states):
        if nfa.label[s]:
            held[s] = [c for c in range(classes.n) if classes.members[c] & nfa.label[s]]
    start = closures.kernel([nfa.start])
    index = {start: 0}
    subsets = [start]
    rows: list[list[int]] = []
    for subset in subsets:  # grows while iterating: a breadth-first worklist
        members = array("i")
        members.frombytes(subset)
        seeds: list[list[int]] = [[] for _ in range(classes.n)]
        pairs = 0
        for s in members:
            classes_held = held.get(s, ())
            pairs += len(classes_held) + 1
            for c in classes_held:
                seeds[c].append(nfa.target[s])
        closures.spend(pairs)
        row = []
        same: dict[tuple, bytes] = {}  # classes with the same seeds share one closure search
        for class_seeds in seeds:
            key = tuple(class_seeds)
            succ = same.get(key)
            if succ is None:
                succ = same[key] = closures.kernel(class_seeds)
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
    accept = np.array([_holds(sub, nfa.accept) for sub in subsets], dtype=np.bool_)
    trans = np.array(rows, dtype=np.int32).reshape(len(subsets), classes.n)
    return ClassDFA(trans, accept, classes, index.get(b"", -1))


def _holds(kernel: bytes, state: int) -> bool:
    """Return True if and only if the packed kernel holds ``state``."""
    members = array("i")
    members.frombytes(kernel)
    return state in members
