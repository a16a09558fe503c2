"""A one-line-per-state text dump of a DFA, and Graphviz DOT: the ``dfa`` verb's printer.

Tooling, not the reference: the spec's module has no dump (its contract is ``regex_to_dfa``,
``DFA``, ``TokenIndex``, ...), so this lives beside the verb, outside ``oracles/automaton``,
and the generated mutants of the reference are the spec's module only. It reads a DFA
through its two tables (``trans``, ``accept``) alone.

Format (used by ``constrain-harness dfa`` and debugging)::

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

from oracles.automaton.dfa import DEAD, DFA


def transition_groups(row) -> list[tuple[int, int]]:
    """(target, byte set as 256-bit int) for each live target of a row, ordered by
    the target's first byte. E.g. a row with r,t -> 5 gives ``[(5, mask(rt))]``."""
    groups: dict[int, int] = {}
    for b, t in enumerate(row):
        if t != DEAD:
            groups[t] = groups.get(t, 0) | (1 << b)
    return list(groups.items())


def byte_ranges(mask: int) -> list[tuple[int, int]]:
    """Maximal runs of set bits of a 256-bit byte set, e.g. ``byte_ranges(0b1110) == [(1, 3)]``."""
    out = []
    b = 0
    while b < 256:
        if mask >> b & 1:
            start = b
            while b < 256 and mask >> b & 1:
                b += 1
            out.append((start, b - 1))
        else:
            b += 1
    return out


def format_byte(b: int) -> str:
    """A printable ASCII byte as itself, any other (and ``[ ] - \\`` and space) as ``\\xNN``."""
    ch = chr(b)
    if 0x21 <= b < 0x7F and ch not in "[]-\\ ":
        return ch
    return f"\\x{b:02x}"


def format_set(mask: int) -> str:
    """A byte set as the dump writes it: ranges of three or more with ``-``, pairs and singles
    spaced, e.g. ``0-9 a b``."""
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
