"""A correct candidate whose internals differ from the reference's: it must pass.

``regex_to_dfa`` here shares no code with ``oracles.automaton``'s pipeline:

- front end: Python's own parser (``re._parser``), its tree mapped to byte sets with the
  spec's bytes meanings (``\\d`` = [0-9], ``\\w`` = [A-Za-z0-9_], ``.`` = all but ``\\n``,
  negation over all 256 bytes), refusing what the contract refuses;
- Thompson NFA, then the subset construction over all 256 bytes (no byte classes);
- minimization by Brzozowski's double reversal, ``det(rev(det(rev(N))))`` (Brzozowski
  1962), instead of Moore's partition refinement; dead sets become DEAD;
- breadth-first numbering with bytes ascending.

Everything downstream of the DFA (``TokenIndex``, ``Constraint``, sampling, the schema
subset, ``vocab_bytes``) is the reference's: it reads only ``trans`` and ``accept``.
"""

from __future__ import annotations

try:  # Python 3.11+; the same modules were top-level before
    import re._constants as C  # noqa: N812
    import re._parser as sre
except ImportError:  # Python 3.10
    import sre_constants as C  # noqa: N812
    import sre_parse as sre
from collections import deque

import numpy as np

from oracles.automaton import (  # noqa: F401
    DEAD,
    DFA,
    Constraint,
    SamplingParams,
    TokenIndex,
    apply_mask,
    bytes_to_unicode,
    constrained_sample,
    json_schema_to_regex,
    sample,
    unicode_to_bytes,
    vocab_bytes,
)

MAX_REPEAT = 1000
MAX_STATES = 20000
ALL = frozenset(range(256))
CATEGORIES = {
    C.CATEGORY_DIGIT: frozenset(range(48, 58)),
    C.CATEGORY_WORD: frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"),
    C.CATEGORY_SPACE: frozenset(b" \t\n\r\f\v"),
}
CATEGORIES[C.CATEGORY_NOT_DIGIT] = ALL - CATEGORIES[C.CATEGORY_DIGIT]
CATEGORIES[C.CATEGORY_NOT_WORD] = ALL - CATEGORIES[C.CATEGORY_WORD]
CATEGORIES[C.CATEGORY_NOT_SPACE] = ALL - CATEGORIES[C.CATEGORY_SPACE]


# ----------------------------------------------------------------------------- front end


def _parse(pattern: str):
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a str, not {type(pattern).__name__}")
    for i, ch in enumerate(pattern):
        if ord(ch) > 127:
            raise ValueError(f"non-ASCII character {ch!r} at offset {i}")
    if "(?#" in pattern:
        raise ValueError("comments are not supported")
    try:
        tree = sre.parse(pattern, 0)
    except (sre.error, OverflowError, RecursionError) as exc:
        raise ValueError(f"bad pattern: {exc}") from None
    if tree.state.flags & ~C.SRE_FLAG_UNICODE or tree.state.groupdict:
        raise ValueError("inline flags and named groups are not supported")
    return tree


def _byteset(op, av) -> frozenset | None:
    if op is C.LITERAL:
        return frozenset([av])
    if op is C.NOT_LITERAL:
        return ALL - {av}
    if op is C.ANY:
        return ALL - {10}
    if op is C.IN:
        chosen, negate = set(), False
        for item_op, item in av:
            if item_op is C.NEGATE:
                negate = True
            elif item_op is C.LITERAL:
                chosen.add(item)
            elif item_op is C.RANGE:
                chosen.update(range(item[0], item[1] + 1))
            elif item_op is C.CATEGORY:
                chosen |= CATEGORIES[item]
            else:
                raise ValueError(f"unsupported class item {item_op}")
        return ALL - chosen if negate else frozenset(chosen)
    return None


# ----------------------------------------------------------------------------- Thompson NFA


class NFA:
    """States 0..n-1: ``eps[s]`` epsilon targets, ``edges[s]`` (byteset, target) pairs."""

    def __init__(self):
        self.eps: list[list[int]] = []
        self.edges: list[list[tuple[frozenset, int]]] = []

    def new(self) -> int:
        if len(self.eps) > 200_000:
            raise ValueError("pattern too large (NFA over 200000 states)")
        self.eps.append([])
        self.edges.append([])
        return len(self.eps) - 1


def _fragment(nfa: NFA, tree) -> tuple[int, int]:
    """Entry and exit of the fragment for a sequence of sre items."""
    start = end = nfa.new()
    for op, av in tree:
        s, e = _item(nfa, op, av)
        nfa.eps[end].append(s)
        end = e
    return start, end


def _item(nfa: NFA, op, av) -> tuple[int, int]:
    chars = _byteset(op, av)
    if chars is not None:
        s, e = nfa.new(), nfa.new()
        nfa.edges[s].append((chars, e))
        return s, e
    if op is C.SUBPATTERN:
        _group, add, delete, sub = av
        if add or delete:
            raise ValueError("inline flags are not supported")
        return _fragment(nfa, sub)
    if op is C.BRANCH:
        s, e = nfa.new(), nfa.new()
        for branch in av[1]:
            bs, be = _fragment(nfa, branch)
            nfa.eps[s].append(bs)
            nfa.eps[be].append(e)
        return s, e
    if op is C.MAX_REPEAT:
        return _repeat(nfa, *av)
    raise ValueError(f"unsupported construct: {op}")  # AT, GROUPREF, ASSERT, MIN_REPEAT, ...


def _repeat(nfa: NFA, low: int, high, sub) -> tuple[int, int]:
    unbounded = high is C.MAXREPEAT
    if low > MAX_REPEAT or (not unbounded and high > MAX_REPEAT):
        raise ValueError(f"repeat bound over {MAX_REPEAT}")
    s = end = nfa.new()
    for _ in range(low):
        fs, fe = _fragment(nfa, sub)
        nfa.eps[end].append(fs)
        end = fe
    if unbounded:
        loop = nfa.new()
        fs, fe = _fragment(nfa, sub)
        nfa.eps[end].append(loop)
        nfa.eps[loop].append(fs)
        nfa.eps[fe].append(loop)
        return s, loop
    exit_ = nfa.new()
    for _ in range(high - low):
        fs, fe = _fragment(nfa, sub)
        nfa.eps[end].append(fs)
        nfa.eps[end].append(exit_)
        end = fe
    nfa.eps[end].append(exit_)
    return s, exit_


# ----------------------------------------------------------------------------- determinize


def _determinize(starts, moves, closure, is_final):
    """Subset construction from the set ``starts`` over all 256 bytes; the empty set is
    DEAD. ``moves(state)`` is a 256-list of target lists. Returns (rows, finals)."""
    first = closure(frozenset(starts))
    index = {first: 0}
    order = [first]
    rows, finals = [], []
    queue = deque([first])
    while queue:
        current = queue.popleft()
        row = [DEAD] * 256
        targets: list[set] = [set() for _ in range(256)]
        for q in current:
            for byte, dests in moves(q):
                targets[byte].update(dests)
        for byte in range(256):
            if targets[byte]:
                key = closure(frozenset(targets[byte]))
                if key not in index:
                    if len(index) >= MAX_STATES:
                        raise ValueError(f"DFA over {MAX_STATES} states")
                    index[key] = len(order)
                    order.append(key)
                    queue.append(key)
                row[byte] = index[key]
        rows.append(row)
        finals.append(is_final(current))
    return rows, finals


def _nfa_to_dfa(nfa: NFA, start: int, final: int):
    closures: dict[frozenset, frozenset] = {}

    def closure(states: frozenset) -> frozenset:
        if states not in closures:
            seen, stack = set(states), list(states)
            while stack:
                for t in nfa.eps[stack.pop()]:
                    if t not in seen:
                        seen.add(t)
                        stack.append(t)
            closures[states] = frozenset(seen)
        return closures[states]

    def moves(q):
        out = {}
        for chars, target in nfa.edges[q]:
            for byte in chars:
                out.setdefault(byte, []).append(target)
        return out.items()

    return _determinize({start}, moves, closure, lambda states: final in states)


def _reverse_determinize(rows, finals):
    """det(rev(D)): the DFA of the reversed language, reachable part only."""
    back: list[dict[int, list[int]]] = [dict() for _ in rows]
    for s, row in enumerate(rows):
        for byte, t in enumerate(row):
            if t != DEAD:
                back[t].setdefault(byte, []).append(s)
    starts = {s for s, f in enumerate(finals) if f}
    if not starts:
        raise ValueError("the pattern matches nothing (empty language)")
    return _determinize(starts, lambda q: back[q].items(), lambda s: s, lambda states: 0 in states)


def _bfs_numbering(rows, finals):
    order, index = [0], {0: 0}
    queue = deque([0])
    while queue:
        s = queue.popleft()
        for t in rows[s]:
            if t != DEAD and t not in index:
                index[t] = len(order)
                order.append(t)
                queue.append(t)
    trans = np.array([[index[t] if t != DEAD else DEAD for t in rows[s]] for s in order], dtype=np.int32)
    return trans, np.array([finals[s] for s in order], dtype=bool)


def regex_to_dfa(pattern: str) -> DFA:
    tree = _parse(pattern)
    nfa = NFA()
    start, final = _fragment(nfa, tree)
    rows, finals = _nfa_to_dfa(nfa, start, final)
    rows, finals = _reverse_determinize(*_reverse_determinize(rows, finals))
    return DFA(*_bfs_numbering(rows, finals))
