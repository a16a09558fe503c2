"""Spec 000 section 3, the worked example by hand, written once; and the sampling
example of spec 002 section 3.

The pattern ``(cat|car|dog)s?`` has a 7-state canonical DFA (numbered breadth first
with bytes ascending); ``HAND_EDGES`` is the spec's table in one shape, state ->
{character: next state}, with every live edge and nothing else (DEAD = -1 elsewhere).
The converters give the other shapes the tests use: ``hand_trans()`` (an int32
[7, 256] table), ``hand_edge_triples()`` ((state, character, target) triples).

The vocabulary is the spec's ``c a t r d o g s ca cat dog ts x <eos> ""`` (ids 0 to
14): EOS is 13 and is a special token (None: it has no bytes); 14 is the empty token.
``HAND_MASKS`` is the spec's mask table (states 0, 3, 5, 6 only, as printed there).

Guarantees: plain data (tuples, dicts of ints, bytes); the converters return fresh
objects, so a caller may change what it gets.

Example::

    >>> hand_trans()[3, ord("t")], HAND_EDGES[3]
    (5, {'r': 5, 't': 5})
    >>> sorted(HAND_MASKS[3]), [HAND_VOCAB[t] for t in sorted(HAND_MASKS[3])]
    ([2, 3, 11], [b't', b'r', b'ts'])
"""

from __future__ import annotations

import numpy as np

HAND_PATTERN = "(cat|car|dog)s?"
HAND_N_STATES = 7
# state -> {character: next state}; every live edge of the spec's table ("c to 1, d to 2", ...)
HAND_EDGES: dict[int, dict[str, int]] = {
    0: {"c": 1, "d": 2}, 1: {"a": 3}, 2: {"o": 4}, 3: {"r": 5, "t": 5}, 4: {"g": 5}, 5: {"s": 6}, 6: {},
}
HAND_ACCEPT: tuple[bool, ...] = (False, False, False, False, False, True, True)  # accepting: 5 and 6
# the spec's "Meaning (text so far)" column: one text reaching each state (5 and 6 have three)
HAND_TEXT: dict[int, bytes] = {0: b"", 1: b"c", 2: b"d", 3: b"ca", 4: b"do", 5: b"cat", 6: b"cats"}

# ids 0..14: c a t r d o g s ca cat dog ts x <eos> ""; EOS is 13 (a special: no bytes), 14 is empty
HAND_VOCAB: tuple[bytes | None, ...] = (
    b"c", b"a", b"t", b"r", b"d", b"o", b"g", b"s", b"ca", b"cat", b"dog", b"ts", b"x", None, b"",
)
HAND_EOS = 13
# the spec's mask table: state -> allowed ids ("ts reads t (to 5) then s (to 6)": 11 in state 3)
HAND_MASKS: dict[int, frozenset[int]] = {
    0: frozenset({0, 4, 8, 9, 10}), 3: frozenset({2, 3, 11}), 5: frozenset({7, 13}), 6: frozenset({13}),
}

# spec 002 section 3, "A mask": ab?, vocabulary [a, b, c, EOS], logits [0, 1, 5, 2], greedy
SAMPLE_PATTERN = "ab?"
SAMPLE_VOCAB: tuple[bytes | None, ...] = (b"a", b"b", b"c", None)
SAMPLE_EOS = 3
SAMPLE_LOGITS: tuple[int, ...] = (0, 1, 5, 2)  # integers: exact in f32 and f64


def hand_trans() -> np.ndarray:
    """The spec's table as a fresh int32 [7, 256] array, DEAD (-1) where no edge is."""
    trans = np.full((HAND_N_STATES, 256), -1, dtype=np.int32)
    for state, edges in HAND_EDGES.items():
        for char, target in edges.items():
            trans[state, ord(char)] = target
    return trans


def hand_accept() -> np.ndarray:
    """The accepting states as a fresh bool [7] array (True at 5 and 6)."""
    return np.array(HAND_ACCEPT, dtype=np.bool_)


def hand_edge_triples() -> set[tuple[int, str, int]]:
    """Every live edge as (state, character, target), e.g. (0, "c", 1): eight of them."""
    return {(state, char, target) for state, edges in HAND_EDGES.items() for char, target in edges.items()}


def hand_vocab() -> list[bytes | None]:
    """The spec's vocabulary as a fresh list (ids 0..14, None at EOS 13)."""
    return list(HAND_VOCAB)
