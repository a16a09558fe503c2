"""The canonical byte DFA: the data type every later stage reads.

A ``DFA`` is two numpy arrays and nothing else:

- ``trans``: ``int32[S, 256]``; ``trans[s, b]`` is the state after byte ``b`` from
  state ``s``, or ``DEAD`` (-1) when no string of the language continues that way.
- ``accept``: ``bool[S]``; ``accept[s]`` is True iff the text read so far is in the
  language.

Guarantees of a DFA built by ``regex_to_dfa`` (checked by the project's own tests,
``tests/support/helpers.assert_canonical``):

- state 0 is the start state and ``S >= 1``;
- every state is live: an accepting state is reachable from it (so DEAD is the
  only dead end, and it is not a state);
- the DFA is minimal, and states are numbered breadth first from 0 taking bytes
  0..255 in ascending order, so two patterns with the same language have equal
  ``trans`` and ``accept`` arrays.

Example, the spec's section 3: ``(cat|car|dog)s?`` has 7 states; 0 -c-> 1, 0 -d-> 2,
1 -a-> 3, 2 -o-> 4, 3 -r,t-> 5, 4 -g-> 5, 5 -s-> 6, accepting {5, 6}.
"""

from __future__ import annotations

import numpy as np

from .errors import InvalidArgument

DEAD = -1  # the dead "state": not a state, the absence of one; step keeps it


class DFA:
    """A byte DFA: ``trans`` int32 [S, 256], ``accept`` bool [S], start state 0."""

    __slots__ = ("trans", "accept", "_trans_list")

    def __init__(self, trans, accept, *, validate: bool = True):
        """``validate`` (the default for callers): check shapes, dtypes and target range
        on the caller's values *before* any conversion (an int64 target of 2**32 is
        refused, not wrapped to 0), and keep copies, so the caller's arrays stay
        writable. ``validate=False`` is for the pipeline's own fresh arrays."""
        if validate:
            trans, accept = _validated_copies(trans, accept)
        else:
            trans = np.ascontiguousarray(trans, dtype=np.int32)
            accept = np.ascontiguousarray(accept, dtype=np.bool_)
        trans.setflags(write=False)
        accept.setflags(write=False)
        self.trans = trans
        self.accept = accept
        self._trans_list = None

    @property
    def n_states(self) -> int:
        return int(self.accept.shape[0])

    def step(self, state: int, data: bytes) -> int:
        """The state after reading ``data`` from ``state``; DEAD stays DEAD.

        Raises ``ValueError`` for a state that is neither DEAD nor in ``range(S)``,
        ``TypeError`` when ``data`` is not bytes-like.
        """
        state = self._check_state(state)
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"DFA.step: data must be bytes, not {type(data).__name__}")
        rows = self._rows()
        for byte in bytes(data):
            if state == DEAD:
                return DEAD
            state = rows[state][byte]
        return state

    def matches(self, data: bytes) -> bool:
        """Return True if and only if ``data`` is in the language."""
        state = self.step(0, data)
        return state != DEAD and bool(self.accept[state])

    def _rows(self) -> list[list[int]]:
        # Python lists index ~10x faster than numpy scalars in a byte loop.
        if self._trans_list is None:
            self._trans_list = self.trans.tolist()
        return self._trans_list

    def _check_state(self, state) -> int:
        if isinstance(state, bool) or not isinstance(state, (int, np.integer)):
            raise TypeError(f"DFA state must be an int, not {type(state).__name__}")
        state = int(state)
        if state != DEAD and not 0 <= state < self.n_states:
            raise InvalidArgument(f"DFA state {state} out of range: expected DEAD (-1) or 0..{self.n_states - 1}")
        return state

    def __eq__(self, other) -> bool:
        if not isinstance(other, DFA):
            return NotImplemented
        return np.array_equal(self.trans, other.trans) and np.array_equal(self.accept, other.accept)

    __hash__ = None  # mutable-looking container semantics: compare, don't hash

    def __repr__(self) -> str:
        accepting = np.flatnonzero(self.accept).tolist()
        shown = accepting if len(accepting) <= 8 else f"[{len(accepting)} states]"
        return f"DFA(n_states={self.n_states}, accepting={shown})"


def _table(value, name: str) -> np.ndarray:
    """``np.asarray(value)``, a ragged nested list (rows of different lengths) refused
    as the contract's ValueError naming the table, not numpy's."""
    try:
        return np.asarray(value)
    except ValueError as exc:  # "inhomogeneous shape"
        raise InvalidArgument(f"DFA {name} must be a rectangular table (every row 256 entries): {exc}") from None


def _validated_copies(trans, accept) -> tuple[np.ndarray, np.ndarray]:
    """int32 and bool copies of the tables, after checking the originals: TypeError
    for a non-integer ``trans`` or a non-boolean ``accept``; ValueError for a shape or
    a target outside ``DEAD..S-1`` (named with its row and byte)."""
    trans = _table(trans, "trans")
    accept = _table(accept, "accept")
    if trans.dtype.kind not in "iu":
        raise TypeError(f"DFA trans must hold integers, not {trans.dtype}")
    if accept.dtype.kind not in "biu":
        raise TypeError(f"DFA accept must be a bool array, not {accept.dtype}")
    if accept.dtype != np.bool_ and accept.size and not np.isin(accept, (0, 1)).all():
        raise InvalidArgument("DFA accept holds integers other than 0 and 1")
    if accept.ndim != 1 or accept.shape[0] < 1:
        raise InvalidArgument(f"DFA accept must be a non-empty 1-D bool array, got shape {accept.shape}")
    n = accept.shape[0]
    if trans.shape != (n, 256):
        raise InvalidArgument(f"DFA trans must have shape ({n}, 256), got {trans.shape}")
    bad = (trans < DEAD) | (trans >= n)
    if bad.any():
        row, byte = (int(i) for i in np.argwhere(bad)[0])
        raise InvalidArgument(f"DFA trans[{row}, {byte}] = {int(trans[row, byte])} is outside DEAD..{n - 1}")
    return np.array(trans, dtype=np.int32, order="C", copy=True), np.array(accept, dtype=np.bool_, order="C", copy=True)


def live_states(trans: np.ndarray, accept: np.ndarray) -> np.ndarray:
    """bool[S]: True for states from which an accepting state is reachable
    (a backward search from the accepting states). ``trans`` may be over bytes
    ``[S, 256]`` or over byte classes ``[S, C]``; DEAD entries lead nowhere."""
    n = accept.shape[0]
    preds: list[set[int]] = [set() for _ in range(n)]
    for s, row in enumerate(trans.tolist()):
        for t in set(row):
            if t != DEAD:
                preds[t].add(s)
    live = accept.copy()
    stack = list(np.flatnonzero(accept))
    while stack:
        t = stack.pop()
        for s in preds[t]:
            if not live[s]:
                live[s] = True
                stack.append(s)
    return live
