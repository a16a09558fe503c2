"""Byte strings for a language: DFA walks, Hypothesis's own regex strings, prefixes, edits.

Main access points: ``members(dfa)`` (random accepting walks of a DFA) and
``strings_for(pattern)`` (a mix of members, non-members and near-members of a
pattern, drawn without any of the project's automata).

``members`` reads only two arrays, ``trans`` int32 [S, 256] (DEAD = -1) and
``accept`` bool [S], so it walks a reference ``DFA``, the derivative oracle's
``canonical_dfa`` tuple, or a hand-built table alike. It never steps onto a state
from which no accepting state is reachable, so every walk ends accepted.

Example: on the spec's ``(cat|car|dog)s?`` table, ``members`` draws ``b"cat"``,
``b"dogs"``, ...; ``prefixes(members(dfa))`` draws ``b""``, ``b"ca"``, ...;
``one_byte_edits(st.just(b"cat"))`` draws ``b"at"``, ``b"cxat"``, ``b"cbt"``, ...
"""

from __future__ import annotations

from collections import deque

import numpy as np
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from strategies.reuse import reused

__all__ = ["members", "one_byte_edits", "prefixes", "regex_strings", "strings_for"]

DEAD = -1  # the contract's DEAD; restated here so strategies need no automaton import


def _tables(dfa) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(dfa, tuple) and len(dfa) == 2:
        trans, accept = dfa
    elif hasattr(dfa, "trans") and hasattr(dfa, "accept"):
        trans, accept = dfa.trans, dfa.accept
    else:
        raise InvalidArgument(f"members: expected a DFA or a (trans, accept) tuple, got {dfa!r}")
    trans = np.asarray(trans)
    accept = np.asarray(accept, dtype=bool)
    if trans.ndim != 2 or trans.shape != (accept.shape[0], 256) or accept.shape[0] < 1:
        raise InvalidArgument(f"members: trans must be [S, 256] and accept [S], got {trans.shape} and {accept.shape}")
    return trans, accept


def _distances(trans: np.ndarray, accept: np.ndarray) -> list[int | None]:
    """For each state, the length of a shortest walk to an accepting state (None: dead)."""
    n = accept.shape[0]
    preds: list[set[int]] = [set() for _ in range(n)]
    for s, row in enumerate(trans.tolist()):
        for t in set(row):
            if t != DEAD:
                preds[t].add(s)
    dist: list[int | None] = [0 if a else None for a in accept.tolist()]
    queue = deque(s for s in range(n) if accept[s])
    while queue:  # backward breadth-first search from the accepting states
        t = queue.popleft()
        for s in preds[t]:
            if dist[s] is None:
                dist[s] = dist[t] + 1
                queue.append(s)
    return dist


def members(dfa, *, max_size: int = 16) -> st.SearchStrategy[bytes]:
    """Accepted byte strings: random walks from state 0 of ``dfa`` that stay on live
    states and stop on an accepting one.

    ``dfa`` is anything with ``trans`` and ``accept`` arrays, or a ``(trans, accept)``
    tuple. After ``max_size`` free steps a walk takes a shortest way to acceptance,
    so a string is at most ``max_size`` plus the longest such way. Raises
    ``InvalidArgument`` when state 0 cannot reach acceptance (the language is empty).

    Shrinks toward short members (a walk stops as soon as it may), smaller bytes
    first.
    """
    trans, accept = _tables(dfa)
    if not isinstance(max_size, int) or max_size < 0:
        raise InvalidArgument(f"members: max_size={max_size!r} must be an int >= 0")
    dist = _distances(trans, accept)
    if dist[0] is None:
        raise InvalidArgument("members: the DFA's language is empty (state 0 is dead)")
    rows = trans.tolist()
    # moves[s]: (byte, target) with a live target; closer[s]: those one step nearer.
    moves = [[(b, t) for b, t in enumerate(row) if t != DEAD and dist[t] is not None] for row in rows]
    closer = [[(b, t) for b, t in ms if dist[t] == dist[s] - 1] for s, ms in enumerate(moves)]
    accepting = accept.tolist()
    return _walks(moves, closer, accepting, max_size)


@st.composite
def _walks(draw, moves, closer, accepting, max_size) -> bytes:
    state, out = 0, bytearray()
    while True:
        free = len(out) < max_size
        if accepting[state] and (not moves[state] or not free or not draw(st.booleans())):
            return bytes(out)  # shrinks toward stopping as soon as accepted
        byte, state = draw(st.sampled_from(moves[state] if free else closer[state]))
        out.append(byte)


@reused
def regex_strings(pattern: str, *, max_size: int = 16) -> st.SearchStrategy[bytes]:
    """Members of ``pattern`` drawn by Hypothesis's own ``st.from_regex`` on the bytes
    pattern with ``fullmatch=True`` (independent of every automaton here), at most
    ``max_size`` bytes long (longer draws are rejected).

    Shrinks toward Hypothesis's simplest match of the pattern.
    """
    return st.from_regex(pattern.encode("ascii"), fullmatch=True).filter(lambda s: len(s) <= max_size)


@st.composite
def prefixes(draw, strings: st.SearchStrategy[bytes]) -> bytes:
    """A prefix of a string drawn from ``strings`` (possibly empty or the whole).

    Shrinks toward the empty prefix of a simple string.
    """
    data = draw(strings)
    return data[: draw(st.integers(0, len(data)))]


@st.composite
def one_byte_edits(draw, strings: st.SearchStrategy[bytes], *, alphabet: bytes | None = None) -> bytes:
    """A string from ``strings`` with exactly one byte deleted, inserted or replaced
    (a replacement always changes the byte). New bytes come from ``alphabet`` when
    given (a pattern's own bytes make near-misses likelier), else from all 256.

    Shrinks toward deleting the first byte, or inserting ``\\x00`` at the start.
    """
    data = draw(strings)
    new_bytes = st.sampled_from(sorted(set(alphabet))) if alphabet else st.integers(0, 255)
    kinds = ["delete", "insert", "replace"] if data else ["insert"]
    kind = draw(st.sampled_from(kinds))
    if kind == "insert":
        i = draw(st.integers(0, len(data)))
        return data[:i] + bytes((draw(new_bytes),)) + data[i:]
    i = draw(st.integers(0, len(data) - 1))
    if kind == "delete":
        return data[:i] + data[i + 1:]
    byte = draw(new_bytes.filter(lambda b: b != data[i]))
    return data[:i] + bytes((byte,)) + data[i + 1:]


def _alphabet(pattern: str) -> bytes:
    # The bytes a pattern spells plainly, plus a few separators, e.g. "a(b|\\n)" -> ab()|\\n...
    return bytes(sorted(set(pattern.encode("ascii")) | set(b"abc0_ \n\x00\xff")))


@reused
def strings_for(pattern: str, *, max_size: int = 12) -> st.SearchStrategy[bytes]:
    """Byte strings worth matching against ``pattern``: members (``regex_strings``),
    their prefixes and one-byte edits, and short arbitrary strings over the
    pattern's own bytes; all at most ``max_size + 1`` bytes long. Draws nothing from
    the project's automata, so it can test them.

    Shrinks toward the simplest member, then toward ``b""``.
    """
    matching = regex_strings(pattern, max_size=max_size)
    alphabet = _alphabet(pattern)
    return st.one_of(
        matching,
        prefixes(matching),
        one_byte_edits(matching, alphabet=alphabet),
        st.lists(st.sampled_from(alphabet), max_size=max_size).map(bytes),
    )
