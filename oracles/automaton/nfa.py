"""Tree -> Thompson NFA (Thompson, CACM 1968; the spec's section 2.1).

Each node becomes a fragment with one entry and one exit, glued by epsilon edges:

- ``ByteSet(m)``: two states and one edge labeled ``m``;
- ``Concat``: fragments chained, exit of one epsilon to entry of the next;
- ``Alt``: a new entry with epsilon edges into each branch, a new exit they all reach;
- ``Repeat(x, m, n)``: ``m`` copies of ``x``, then either a loop state that can enter
  ``x`` again or leave (``n`` None), or ``n - m`` optional copies that may each skip
  to the end.

Guarantees: every state has at most one labeled edge (so ``label[s]``/``target[s]``
are per-state fields), state ``start`` is the entry and ``accept`` the single exit.
Example: ``a|b`` has 6 states: entry -e-> {a-in, b-in}, a-in -a-> a-out, b-in -b->
b-out, {a-out, b-out} -e-> exit.
"""

from __future__ import annotations

import dataclasses

from .ast import Alt, ByteSet, Concat, EmptyString, Node, Repeat
from .errors import LimitExceeded

MAX_NFA_STATES = 200_000
"""Thompson states allowed. ``build_nfa`` counts the states from the tree first
(``count_states``) and raises LimitExceeded before building anything when the count
is over: ``(x{1000}){1000}`` (2 million states) is refused in microseconds."""


@dataclasses.dataclass
class NFA:
    """States ``0..n-1``; ``eps[s]``: epsilon targets; ``label[s]``: the byte set (256-bit
    int) of the one labeled edge of ``s`` (0 if none) and ``target[s]`` its target."""

    eps: list[list[int]]
    label: list[int]
    target: list[int]
    start: int
    accept: int

    @property
    def n_states(self) -> int:
        return len(self.label)


class _Builder:
    def __init__(self, limit: int):
        self.eps: list[list[int]] = []
        self.label: list[int] = []
        self.target: list[int] = []
        self.limit = limit

    def state(self) -> int:
        if len(self.label) >= self.limit:
            raise LimitExceeded(f"the NFA exceeds MAX_NFA_STATES={self.limit} states; "
                                f"reduce the repeat bounds or nesting of the pattern")
        self.eps.append([])
        self.label.append(0)
        self.target.append(-1)
        return len(self.label) - 1

    def build(self, node: Node) -> tuple[int, int]:
        """Add ``node``'s fragment; return its (entry, exit)."""
        if isinstance(node, ByteSet):
            entry, exit_ = self.state(), self.state()
            self.label[entry] = node.mask
            self.target[entry] = exit_
            return entry, exit_
        if isinstance(node, EmptyString):
            s = self.state()
            return s, s
        if isinstance(node, Concat):
            return self.chain([node.items[i] for i in range(len(node.items))])
        if isinstance(node, Alt):
            return self.alternation(node.items)
        return self.repetition(node)  # Repeat, the fifth node type: the parser builds no other

    def chain(self, items) -> tuple[int, int]:
        entry, exit_ = self.build(items[0])
        for item in items[1:]:
            e, x = self.build(item)
            self.eps[exit_].append(e)
            exit_ = x
        return entry, exit_

    def alternation(self, items) -> tuple[int, int]:
        entry, exit_ = self.state(), self.state()
        for item in items:
            e, x = self.build(item)
            self.eps[entry].append(e)
            self.eps[x].append(exit_)
        return entry, exit_

    def repetition(self, node: Repeat) -> tuple[int, int]:
        entry = exit_ = self.state()
        for _ in range(node.min):                 # m mandatory copies
            e, x = self.build(node.item)
            self.eps[exit_].append(e)
            exit_ = x
        if node.max is None:                      # x*: a loop state, enter x again or leave
            loop = self.state()
            self.eps[exit_].append(loop)
            e, x = self.build(node.item)
            self.eps[loop].append(e)
            self.eps[x].append(loop)
            return entry, loop
        end = self.state()
        for _ in range(node.max - node.min):      # n - m optional copies, each may skip to the end
            self.eps[exit_].append(end)
            e, x = self.build(node.item)
            self.eps[exit_].append(e)
            exit_ = x
        self.eps[exit_].append(end)
        return entry, end


def count_states(node: Node, cap: int) -> int:
    """The number of states ``build_nfa`` makes for ``node``, or ``cap + 1`` when it
    is over ``cap`` (saturating: ``((x{1000}){1000}){1000}`` never builds a big int).
    Mirrors ``_Builder.build`` case by case, e.g. ``a|b`` is 2 + 2 + 2 = 6."""
    if isinstance(node, ByteSet):
        n = 2
    elif isinstance(node, EmptyString):
        n = 1
    elif isinstance(node, Concat):
        n = sum(count_states(item, cap) for item in node.items)
    elif isinstance(node, Alt):
        n = 2 + sum(count_states(item, cap) for item in node.items)
    else:  # Repeat, the fifth node type: the parser builds no other
        item = count_states(node.item, cap)
        copies = node.min + 1 if node.max is None else node.max
        n = 2 + copies * item
    return min(n, cap + 1)


def build_nfa(node: Node, *, max_states: int = MAX_NFA_STATES) -> NFA:
    """Thompson's construction of ``node``; raises LimitExceeded, before building,
    when it would have more than ``max_states`` states."""
    count = count_states(node, max_states)
    if count > max_states:
        raise LimitExceeded(f"the NFA would exceed MAX_NFA_STATES={max_states} states; "
                            f"reduce the repeat bounds or nesting of the pattern")
    builder = _Builder(max_states)
    start, accept = builder.build(node)
    return NFA(builder.eps, builder.label, builder.target, start, accept)
