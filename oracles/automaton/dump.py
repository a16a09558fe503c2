"""A one-line-per-state text dump of a DFA, and Graphviz DOT.

Format (used by ``constrain-harness dfa``, debugging and golden diffs)::

    DFA: 7 states, 2 accepting, start 0
    > 0000    c -> 1, d -> 2
      0001    a -> 3
      0003    r t -> 5
     *0005    s -> 6
     *0006

``>`` marks the start state, ``*`` an accepting one; transitions are grouped by
target (ascending by their first byte) and written as byte ranges (``[0-9]``,
``\\x00-\\x1f``); a state with no transitions ends the line.
"""

from __future__ import annotations

import numpy as np

from .ast import byte_ranges, format_byte
from .dfa import DEAD, DFA


def transition_groups(row) -> list[tuple[int, int]]:
    """(target, byte set as 256-bit int) for each live target of a row, ordered by
    the target's first byte. E.g. a row with r,t -> 5 gives ``[(5, mask(rt))]``."""
    groups: dict[int, int] = {}
    for b, t in enumerate(row):
        if t != DEAD:
            groups[t] = groups.get(t, 0) | (1 << b)
    return list(groups.items())


def format_set(mask: int) -> str:
    parts = []
    for lo, hi in byte_ranges(mask):
        if lo == hi:
            parts.append(format_byte(lo))
        elif hi == lo + 1:
            parts.append(f"{format_byte(lo)} {format_byte(hi)}")
        else:
            parts.append(f"{format_byte(lo)}-{format_byte(hi)}")
    return " ".join(parts)


def dump(dfa: DFA) -> str:
    rows = dfa.trans.tolist()
    lines = [f"DFA: {dfa.n_states} states, {int(np.count_nonzero(dfa.accept))} accepting, start 0"]
    for s, row in enumerate(rows):
        mark = (">" if s == 0 else " ") + ("*" if dfa.accept[s] else " ")
        edges = ", ".join(f"{format_set(m)} -> {t}" for t, m in transition_groups(row))
        lines.append(f"{mark}{s:04d}    {edges}".rstrip())
    return "\n".join(lines)


def to_dot(dfa: DFA, name: str = "dfa") -> str:
    lines = [f"digraph {name} {{", "  rankdir=LR;", '  start [shape=point];', "  start -> 0;"]
    for s in range(dfa.n_states):
        shape = "doublecircle" if dfa.accept[s] else "circle"
        lines.append(f"  {s} [shape={shape}];")
    for s, row in enumerate(dfa.trans.tolist()):
        for t, m in transition_groups(row):
            label = format_set(m).replace("\\", "\\\\").replace('"', '\\"')
            lines.append(f'  {s} -> {t} [label="{label}"];')
    lines.append("}")
    return "\n".join(lines)
