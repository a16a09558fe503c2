"""Seeded random walks of a canonical DFA: members of its language, drawn without Hypothesis.

``random_members(trans, accept, rng, count, max_len)`` draws ``count`` strings of the
language: from state 0, at an accepting state stop with probability ``STOP``, else take
a byte chosen uniformly among those that stay in the language (a canonical table keeps
only live states, so every non-DEAD target can still reach an accepting state). Past
``max_len`` bytes the walk takes the shortest way to an accepting state (breadth first
distances, precomputed), so every walk ends, and is at most ``max_len`` plus the
longest shortest completion.

Example::

    >>> rng = np.random.default_rng(0)
    >>> random_members(dfa.trans, dfa.accept, rng, 3, 40)
    [b'{"a":0}', b'{"a":-7}', b'{"a":150}']
"""

from __future__ import annotations

import numpy as np

__all__ = ["STOP", "random_members", "distances_to_accept"]

STOP = 0.25


def distances_to_accept(trans: np.ndarray, accept: np.ndarray) -> np.ndarray:
    """int [S]: the fewest bytes from each state to an accepting one (-1: none)."""
    n = len(accept)
    reverse: list[list[int]] = [[] for _ in range(n)]
    for state in range(n):
        for target in set(trans[state].tolist()) - {-1}:
            reverse[target].append(state)
    dist = np.full(n, -1, dtype=np.int64)
    queue = [int(s) for s in np.flatnonzero(accept)]
    dist[queue] = 0
    for state in queue:
        for source in reverse[state]:
            if dist[source] < 0:
                dist[source] = dist[state] + 1
                queue.append(source)
    return dist


def random_members(trans: np.ndarray, accept: np.ndarray, rng: np.random.Generator, count: int,
                   max_len: int) -> list[bytes]:
    """``count`` seeded random members of the table's language (module docstring)."""
    dist = distances_to_accept(trans, accept).tolist()
    rows = trans.tolist()
    accepting = accept.tolist()
    live = [[b for b, t in enumerate(row) if t >= 0] for row in rows]
    out = []
    for _ in range(count):
        state, data = 0, bytearray()
        while True:
            if accepting[state] and (not live[state] or rng.random() < STOP or len(data) >= max_len):
                break
            if len(data) >= max_len:  # the shortest way home
                byte = next(b for b in live[state] if dist[rows[state][b]] == dist[state] - 1)
            else:
                choices = live[state]
                byte = choices[int(rng.random() * len(choices))]
            data.append(byte)
            state = rows[state][byte]
        out.append(bytes(data))
    return out
