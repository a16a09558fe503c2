"""Seeded random walks through a language, token by token, recording the masks.

A *walker* answers, for a position in the text, the mask (``bool[V]``), whether the
text so far is complete, the position after a token, its canonical state, and the
distance (the fewest tokens that complete the text). Two walkers answer the same
questions:

- ``DerivativeWalker``: the derivative oracle (``oracles.derivatives``); the
  position is the text itself; no automaton of ``oracles.automaton`` is involved.
- ``ReferenceWalker``: the reference pipeline (``regex_to_dfa`` and
  ``TokenIndex``); the position is a DFA state.

``walk(walker, eos_id, seed, budget=..., limit=...)`` draws one path with numpy
``default_rng(seed)``. At each step the candidates are, while fewer than ``budget``
tokens were taken, the allowed tokens that neither end the text (EOS), nor finish it
(lead to an accepting state with no way on), nor lead where the vocabulary cannot
complete it, unless there are no others; afterwards the tokens that leave the
shortest completion (EOS alone when allowed), so a path ends with EOS.
The candidates are grouped by the state they lead to (EOS is a group of its own;
groups ordered by their smallest id), and two integers from the generator's raw
64-bit stream (``_draw``: stable across numpy versions) pick a group, then a token: a
string's rare transitions (a quote, a backslash, a UTF-8 lead byte) are as likely as its
hundred printable characters. States are those of the canonical DFA, so the choice depends only on the language and both
walkers draw the same path from the same seed (``build`` checks it).

Guarantees of a ``Path``: ``len(allowed) == len(complete) == len(tokens) + 1``;
``allowed[i]`` and ``complete[i]`` describe the text before ``tokens[i]``; after
EOS the last entry is ``[]`` (nothing is allowed after EOS) with ``complete`` True.
Without an EOS id (``eos_id=None``) a walk through a finite language ends
``"stop"``: the text is complete and its last mask is ``[]`` (nothing left to allow).

Example: ``(cat|car|dog)s?`` with budget 0 steers from the start: ``cat`` and ``dog``
complete the text in one token, so it takes one of them, then EOS.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

DEAD = -1
UNREACHABLE = 1 << 30  # the distance of a position with no completion


@dataclass
class Path:
    """One recorded walk (see the module docstring for the invariants)."""

    seed: list[int]
    tokens: list[int] = field(default_factory=list)
    allowed: list[list[int]] = field(default_factory=list)
    complete: list[bool] = field(default_factory=list)
    text: bytes = b""
    ended: str = ""  # "eos", "stop" (complete, nothing allowed), "stuck" (incomplete, nothing allowed), "limit"


def distances(trans: np.ndarray, accept: np.ndarray, vocab, eos_id) -> list[int]:
    """The fewest tokens of ``vocab`` (EOS, specials and empty tokens excepted) that
    take each state of a byte DFA to an accepting state (a backward breadth-first
    search); ``UNREACHABLE`` when the vocabulary cannot complete the text from there.

    Counting tokens, not bytes, keeps a walk from steering into a state the
    vocabulary cannot leave (e.g. after ``tr`` when no token holds ``u``)."""
    n = accept.shape[0]
    rows = trans.tolist()
    tokens = [tok for t, tok in enumerate(vocab) if tok and t != eos_id]
    preds: list[set[int]] = [set() for _ in range(n)]
    for s in range(n):
        for tok in tokens:
            t = _step(rows, s, tok)
            if t != DEAD:
                preds[t].add(s)
    dist = [UNREACHABLE] * n
    queue = deque(int(s) for s in np.flatnonzero(accept))
    for s in queue:
        dist[s] = 0
    while queue:
        t = queue.popleft()
        for s in sorted(preds[t]):
            if dist[s] == UNREACHABLE:
                dist[s] = dist[t] + 1
                queue.append(s)
    return dist


def _step(rows: list[list[int]], state: int, data: bytes) -> int:
    for byte in data:
        state = rows[state][byte]
        if state == DEAD:
            return DEAD
    return state


class ReferenceWalker:
    """Positions are states of ``impl.regex_to_dfa(pattern)``; masks from ``impl.TokenIndex``.

    ``advance`` asks ``index.next_state(state, token)`` once per state and token for the
    walker's life and answers a repeated question from that (an integer state only: any
    other answer is asked again): a step asks it for the same tokens up to three times
    (``_unfinished``, ``_groups``), and a walk behind the wall (``golden replay --impl``)
    made a round trip for each, some 116,000 in a replay of constrain_golden.json."""

    def __init__(self, impl, pattern: str, vocab, eos_id):
        self.vocab = vocab
        self.dfa = impl.regex_to_dfa(pattern)
        self.index = impl.TokenIndex(self.dfa, vocab, eos_id)
        self._next: dict[tuple[int, int], int] = {}  # (state, token) -> next_state's integer answer
        self._dist = distances(np.asarray(self.dfa.trans), np.asarray(self.dfa.accept), vocab, eos_id)
        self.final = _final_states(np.asarray(self.dfa.trans), np.asarray(self.dfa.accept))

    def start(self):
        return 0

    def mask(self, pos) -> np.ndarray:
        return np.asarray(self.index.mask(pos), dtype=bool)

    def complete(self, pos) -> bool:
        return bool(self.dfa.accept[pos])

    def advance(self, pos, token: int):
        key = (pos, token) if type(pos) is int and type(token) is int else None
        if key is not None and key in self._next:
            return self._next[key]
        answer = self.index.next_state(pos, token)
        if key is not None and isinstance(answer, (int, np.integer)) and not isinstance(answer, bool):
            self._next[key] = answer
        return answer

    def distance(self, pos) -> int:
        return UNREACHABLE if pos == DEAD else self._dist[pos]

    def state(self, pos) -> int:
        return pos


class DerivativeWalker:
    """Positions are the text so far; masks, completeness and distances from the
    derivative oracle (``oracles.derivatives.Oracle``)."""

    def __init__(self, pattern: str, vocab, eos_id):
        from oracles import derivatives

        self.vocab = list(vocab)
        self.eos_id = eos_id
        self.oracle = derivatives.Oracle(pattern)
        trans, accept = self.oracle.canonical_dfa()
        self._trans = np.asarray(trans)
        self._dist = distances(self._trans, np.asarray(accept), self.vocab, eos_id)
        self.final = _final_states(self._trans, np.asarray(accept))

    def start(self):
        return b""

    def mask(self, pos: bytes) -> np.ndarray:
        return np.asarray(self.oracle.mask(self.vocab, self.eos_id, pos), dtype=bool)

    def complete(self, pos: bytes) -> bool:
        return bool(self.oracle.matches(pos))

    def advance(self, pos: bytes, token: int):
        return pos if token == self.eos_id else pos + self.vocab[token]

    def distance(self, pos: bytes) -> int:
        state = self.state(pos)
        return UNREACHABLE if state == DEAD else self._dist[state]

    def state(self, pos: bytes) -> int:
        """The canonical state of the text (a derivative-built DFA: steering only)."""
        state = 0
        for byte in pos:
            state = int(self._trans[state, byte])
            if state == DEAD:
                return DEAD
        return state


def _final_states(trans: np.ndarray, accept: np.ndarray) -> list[bool]:
    """True for accepting states with no transition: the text is finished."""
    return [bool(a) and bool((row == DEAD).all()) for a, row in zip(accept, trans)]


def _unfinished(walker, pos, tokens: list[int], eos_id) -> list[int]:
    """The tokens that neither end nor finish the text, nor lead where the vocabulary
    cannot complete it; if none, those that can still complete (EOS counts)."""
    live = [t for t in tokens if t == eos_id or walker.distance(walker.advance(pos, t)) < UNREACHABLE]
    keep = [t for t in live if t != eos_id and not walker.final[walker.state(walker.advance(pos, t))]]
    return keep or live or tokens


def walk(walker, eos_id: int | None, seed: list[int], *, budget: int, limit: int) -> Path:
    """One seeded path through the walker's language (see the module docstring)."""
    rng = np.random.default_rng(seed)
    path = Path(seed=list(seed))
    pos = walker.start()
    while True:
        allowed = np.flatnonzero(walker.mask(pos)).tolist()
        path.allowed.append(allowed)
        path.complete.append(walker.complete(pos))
        if not allowed or len(path.tokens) >= limit:
            path.ended = _ending(allowed, path.complete[-1])
            return path
        if len(path.tokens) >= budget:
            allowed = _closest(walker, pos, allowed, eos_id)
        else:
            allowed = _unfinished(walker, pos, allowed, eos_id)
        groups = _groups(walker, pos, allowed, eos_id)
        group = groups[_draw(rng, len(groups))]
        token = group[_draw(rng, len(group))]
        path.tokens.append(token)
        if token == eos_id:
            path.allowed.append([])  # nothing after EOS
            path.complete.append(path.complete[-1])
            path.ended = "eos"
            return path
        pos = walker.advance(pos, token)
        path.text += walker.vocab[token]


def _ending(allowed: list[int], complete: bool) -> str:
    """Why a walk stopped before EOS: "limit" (tokens still allowed), "stop" (the text
    is complete and nothing is left to allow: a vocabulary without EOS) or "stuck"
    (nothing allowed and the text incomplete)."""
    if allowed:
        return "limit"
    return "stop" if complete else "stuck"


def _draw(rng: np.random.Generator, n: int) -> int:
    """An integer in ``range(n)`` from the raw 64-bit PCG64 stream (``raw % n``).

    The raw stream of a seeded PCG64 is fixed by its definition, while the
    algorithms of ``Generator.integers`` may change between numpy versions; drawing
    from the raw stream keeps the golden files identical whatever numpy CI installs.
    (The modulo bias, below 2**-50 here, does not matter for choosing a path.)"""
    return int(rng.bit_generator.random_raw()) % n


def _groups(walker, pos, tokens: list[int], eos_id) -> list[list[int]]:
    """``tokens`` grouped by the state each leads to, groups in order of first id."""
    groups: dict[object, list[int]] = {}
    for t in tokens:
        key = "eos" if t == eos_id else walker.state(walker.advance(pos, t))
        groups.setdefault(key, []).append(t)
    return list(groups.values())


def _closest(walker, pos, allowed: list[int], eos_id) -> list[int]:
    """The allowed tokens that leave the shortest completion; EOS alone if allowed."""
    if eos_id in allowed:
        return [eos_id]
    dist = [walker.distance(walker.advance(pos, t)) for t in allowed]
    best = min(dist)
    return [t for t, d in zip(allowed, dist) if d == best]


def follow(walker, eos_id: int | None, tokens: list[int]) -> tuple[list[list[int]], list[bool]]:
    """The masks and completeness a walker gives along recorded tokens (a replay).

    Stops after the first step whose mask refuses the recorded token (the lists are
    then shorter than the path's): the walker disagrees there, and has no next
    position to go on from."""
    allowed: list[list[int]] = []
    complete: list[bool] = []
    pos = walker.start()
    for token in tokens:
        mask = walker.mask(pos)
        allowed.append(np.flatnonzero(mask).tolist())
        complete.append(walker.complete(pos))
        if not mask[token]:
            return allowed, complete
        if token == eos_id:
            allowed.append([])
            complete.append(complete[-1])
            return allowed, complete
        pos = walker.advance(pos, token)
    allowed.append(np.flatnonzero(walker.mask(pos)).tolist())
    complete.append(walker.complete(pos))
    return allowed, complete
