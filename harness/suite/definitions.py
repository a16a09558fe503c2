"""The catalogue's own oracles written out, outside any test module: the brute-force masks (the
spec's definition of a mask) and the check that an equivalent pair really has one language.

They live here, not in the test modules that call them, so that the mutant runner's warm grader
can compute them before it forks (``harness.suite.oracle_memo``) without importing a test module
(pytest rewrites a test module's asserts when it imports it). Both are pure functions of their
arguments; ``harness.suite.test_masks.brute_force`` is this module's ``brute_force``.
"""

from __future__ import annotations

import itertools
import re

import numpy as np

DEAD = -1


def brute_force(trans: np.ndarray, accept: np.ndarray, vocab, eos_id) -> tuple[np.ndarray, np.ndarray]:
    """(masks bool [S, V], ends int [S, V]): every state's mask by walking every token's
    bytes (the definition), and where each walk ends (DEAD for refused tokens; for EOS,
    the state itself where it accepts: the contract's decision, see ``test_masks.check_next_state``)."""
    n, size = len(accept), len(vocab)
    ends = np.full((n, size), DEAD, dtype=np.int64)
    # every token at once, longest first: at byte j the tokens longer than j are a prefix of the order
    ids = sorted((t for t, token in enumerate(vocab) if t != eos_id and token), key=lambda t: -len(vocab[t]))
    if ids:  # specials (None) and the empty token are never allowed
        lengths = np.array([len(vocab[t]) for t in ids])
        data = np.zeros((len(ids), int(lengths[0])), dtype=np.int64)
        for row, t in enumerate(ids):
            data[row, :lengths[row]] = np.frombuffer(vocab[t], dtype=np.uint8)
        states = np.repeat(np.arange(n)[:, None], len(ids), axis=1)
        for j in range(int(lengths[0])):
            live = int(np.count_nonzero(lengths > j))
            now = states[:, :live]
            states[:, :live] = np.where(now >= 0, trans[np.maximum(now, 0), data[:live, j]], DEAD)
        ends[:, ids] = states
    masks = ends != DEAD
    if eos_id is not None:
        masks[:, eos_id] = accept
        ends[:, eos_id] = np.where(accept, np.arange(n), DEAD)
    return masks, ends


def same_language_counterexample(left: str, right: str) -> bytes | None:
    """The first string (by length, then the alphabet's order) of length under 5 over the pair's
    own letters and ``z`` that ``re.fullmatch`` accepts under one pattern and not the other, or
    None: ``test_canonical_form``'s check that its equivalent pairs really are equivalent."""
    alphabet = sorted(set((left + right).encode()) - set(b"()|[]*+?^") | {ord("z")})
    left_re, right_re = re.compile(left.encode()), re.compile(right.encode())  # once: not per string
    for n in range(5):
        for letters in itertools.product(alphabet, repeat=n):
            data = bytes(letters)
            if (left_re.fullmatch(data) is None) != (right_re.fullmatch(data) is None):
                return data
    return None
