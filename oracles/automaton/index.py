"""Token masks over a canonical DFA: a byte trie of the vocabulary, walked from each state.

Input: a ``DFA`` and a vocabulary ``vocab[t] = bytes | None`` (None: a special token),
optionally an EOS id. Output: per DFA state ``s``, the mask ``m_s`` (bool [V],
``TokenIndex.mask``) and the state each allowed token leads to (``next_state``);
``build_all`` gives every state's at once (``Transitions``: the pairs by state).

Rules (spec section 2.3), for V = len(vocab):

- ``m_s[t]`` is True iff t is not EOS, ``vocab[t]`` is non-empty bytes and
  ``dfa.step(s, vocab[t]) != DEAD``: the token keeps the text a prefix of some
  string of the language (it need not complete one);
- ``m_s[eos_id]`` is True iff ``dfa.accept[s]``;
- a special (None) or empty token is never allowed.

The walk (``walk_trie``). Tokens sharing a prefix share the DFA steps over it: the
trie has one node per distinct non-empty prefix of a token. From a state ``s`` the
walk steps the DFA along every edge; when a byte leads to DEAD, the whole subtree
under that edge is skipped (every token there starts with a dead prefix), and the
walk goes on with the siblings. Every token ending at a live node is allowed, and
leads to the DFA state reached at that node.

It is made fast with numpy: the trie is flattened, nodes numbered breadth first
(depth, then bytes ascending), so the children of a node are one contiguous id
range; the walk goes level by level over all live (node, state) pairs at once, and
``build_all`` starts it from every state together.

Example, the spec's section 3: ``(cat|car|dog)s?`` with vocabulary
``c a t r d o g s ca cat dog ts x <eos> ""`` (EOS 13): from state 3 (after "ca") the
walk reaches ``t`` (to 5), ``r`` (to 5) and ``ts`` (t to 5, s to 6), so
``mask(3)`` allows ids 2, 3 and 11; ``mask(5)`` allows ``s`` and EOS.

Caches: the trie depends on the vocabulary (and EOS) only, so it is built once and
shared by every DFA (the last 4 vocabularies are kept); masks are cached per state
(at most ``n_states`` rows); ``next_state`` reads a dense target row per state,
built on first use (at most ``MAX_TABLE_CELLS`` cells, the oldest rows dropped).

Bounds (``LimitExceeded``): ``MAX_VOCAB_SIZE`` ids; ``MAX_TRIE_BYTES`` bytes over all
tokens; ``build_all`` holds at most ``MAX_TABLE_CELLS`` state x token cells.

Cost: each visited (node, state) pair costs about 20 vectorized numpy operations,
plus a fixed cost per trie level (cl100k_base is 128 levels deep). A state in
which almost every byte continues (inside a JSON string) visits nearly the whole
trie: 217k nodes for cl100k_base, 422k for o200k_base. ``constrain-harness bench
masks`` prints the figures.

Lineage: the per-state token index of Willard and Louf (2023) and outlines-core
``Index::new``, computed here by a trie walk (spec section 2.3) instead of one
walk per token.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Sequence

import numpy as np

from .dfa import DEAD, DFA
from .errors import InvalidArgument, LimitExceeded
from .vocab import MAX_VOCAB_SIZE

__all__ = ["TokenIndex", "Transitions", "VocabTrie", "walk_trie", "MAX_TRIE_BYTES", "MAX_TABLE_CELLS"]

MAX_TRIE_BYTES = 1 << 26   # 64 MiB of distinct token bytes (cl100k_base: 0.64 MiB)
MAX_TABLE_CELLS = 1 << 26  # build_all: states x vocabulary (o200k_base: 335 states)


@dataclasses.dataclass(frozen=True, eq=False)
class VocabTrie:
    """A byte trie of a vocabulary, flattened into arrays and numbered breadth first
    (made by ``TokenIndex``, one per recent vocabulary: ``_cached_trie``).

    Node 0 is the root (the empty prefix); every other node is a distinct non-empty
    prefix of some allowed token. Guarantees:

    - ``edge_byte[n]`` is the last byte of node n's prefix (unused for the root);
    - the children of node n are the nodes ``first_child[n] .. first_child[n] +
      n_children[n] - 1``, in ascending byte order;
    - ``node_token[n]`` is the id of a token whose bytes are node n's prefix, or -1;
      when several ids share those bytes, the others are in ``aliases`` as
      ``(alias_id, node_token id)`` rows;
    - EOS, specials (None) and empty tokens are in no node.
    """

    vocab_size: int
    edge_byte: np.ndarray    # int64 [n_nodes]
    first_child: np.ndarray  # int64 [n_nodes]
    n_children: np.ndarray   # int64 [n_nodes]
    node_token: np.ndarray   # int32 [n_nodes], -1 for no token
    aliases: np.ndarray      # int64 [k, 2]: (duplicate id, representative id)

    @property
    def n_nodes(self) -> int:
        return int(self.edge_byte.shape[0])


def _check_vocab(vocab) -> Sequence[bytes | None]:
    if isinstance(vocab, (str, bytes, bytearray)) or not isinstance(vocab, Sequence):
        raise TypeError(f"TokenIndex: vocab must be a sequence of bytes or None, "
                        f"not {type(vocab).__name__}")
    if len(vocab) > MAX_VOCAB_SIZE:
        raise LimitExceeded(f"TokenIndex: vocabulary of {len(vocab)} ids exceeds "
                            f"MAX_VOCAB_SIZE={MAX_VOCAB_SIZE}")
    if not set(map(type, vocab)) <= {bytes, type(None)}:
        t = next(t for t, entry in enumerate(vocab) if entry is not None and type(entry) is not bytes)
        raise InvalidArgument(f"TokenIndex: vocab[{t}] is a {type(vocab[t]).__name__}, "
                              "expected bytes or None")
    return vocab


@functools.lru_cache(maxsize=4)  # one trie per recent vocabulary: built once, shared by DFAs
def _cached_trie(vocab: tuple[bytes | None, ...], eos_id: int | None) -> VocabTrie:
    # None (special), b"" (empty) and EOS are never in the trie
    kept = list(itertools.compress(range(len(vocab)), vocab))
    if eos_id is not None and vocab[eos_id]:
        kept.remove(eos_id)
    order = sorted(kept, key=vocab.__getitem__)  # stable: equal bytes keep ascending ids
    tokens = list(map(vocab.__getitem__, order))
    total = sum(map(len, tokens))
    if total > MAX_TRIE_BYTES:
        raise LimitExceeded(f"TokenIndex: {total} token bytes exceed MAX_TRIE_BYTES={MAX_TRIE_BYTES}")
    return _flatten(tokens, np.array(order, dtype=np.int64), len(vocab))


def _flatten(tokens: list[bytes], ids: np.ndarray, vocab_size: int) -> VocabTrie:
    """Number the distinct prefixes of sorted ``tokens`` (ids ``ids``) breadth first.

    In sorted order, token i shares its first ``lcp[i]`` bytes with token i-1, so
    it creates exactly the nodes at depths ``lcp[i]+1 .. len(i)`` (e.g. after
    ``ca``, ``cat`` creates only the node ``cat``); ``lcp[i] == len(i)`` means token i
    repeats token i-1, and becomes an alias of the first of its run. Nodes at one
    depth, ordered by the token creating them, are in ascending byte order.
    """
    lengths = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
    starts = np.cumsum(lengths) - lengths
    flat = np.frombuffer(b"".join(tokens), dtype=np.uint8).astype(np.int64)
    lcp = _lcp_with_previous(flat, starts, lengths)
    repeat = lcp == lengths
    repeat[:1] = False
    first_of_run = np.maximum.accumulate(np.where(repeat, 0, np.arange(lengths.size)))
    aliases = np.stack([ids[repeat], ids[first_of_run[repeat]]], axis=1).reshape(-1, 2)
    keep = ~repeat
    lengths, starts, lcp, ids = lengths[keep], starts[keep], lcp[keep], ids[keep]
    edge, parent, node_token = [np.zeros(1, np.int64)], [np.zeros(1, np.int64)], [np.full(1, -1, np.int64)]
    base, prev_creators, prev_base = 1, None, 0
    for depth in range(1, int(lengths.max(initial=0)) + 1):
        creators = np.flatnonzero((lcp < depth) & (lengths >= depth))
        edge.append(flat[starts[creators] + depth - 1])
        if prev_creators is None:
            parent.append(np.zeros(creators.size, np.int64))
        else:  # the parent is the node the latest creator at depth - 1 made
            parent.append(prev_base + np.searchsorted(prev_creators, creators, side="right") - 1)
        node_token.append(np.where(lengths[creators] == depth, ids[creators], -1))
        prev_creators, prev_base, base = creators, base, base + creators.size
    parents = np.concatenate(parent)
    n_nodes = parents.size
    n_children = np.bincount(parents[1:], minlength=n_nodes).astype(np.int64)
    first_child = 1 + np.searchsorted(parents[1:], np.arange(n_nodes), side="left")
    return VocabTrie(vocab_size, np.concatenate(edge), first_child.astype(np.int64),
                     n_children, np.concatenate(node_token).astype(np.int32), aliases)


def _lcp_with_previous(flat: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``lcp[i]``: the length of the common prefix of tokens i-1 and i (0 for i = 0)."""
    n = lengths.size
    lcp = np.zeros(n, np.int64)
    if n < 2:
        return lcp
    shorter = np.minimum(lengths[1:], lengths[:-1])
    rows = np.arange(1, n)
    k = 0
    while rows.size:  # rows whose first k bytes agree with their predecessor's
        rows = rows[shorter[rows - 1] > k]
        same = flat[starts[rows] + k] == flat[starts[rows - 1] + k]
        rows = rows[same]
        k += 1
        lcp[rows] = k
    return lcp


def walk_trie(trie: VocabTrie, trans: np.ndarray, start_states: np.ndarray):
    """The spec's trie walk, from every state in ``start_states`` at once.

    Returns three int32 arrays ``(origin, token, target)``, one entry per allowed
    (start state, token) pair: the token is allowed from ``origin`` and leads to
    ``target``. Aliases, EOS and the mask layout are the caller's business.
    """
    flat_trans = trans.reshape(-1)
    origin = np.asarray(start_states, dtype=np.int32)
    state = origin.copy()                     # the DFA state at each pair's node
    node = np.zeros(origin.size, np.intp)     # every walk starts at the root
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    while node.size:
        # 1. expand each live (node, state) pair to the node's children
        counts = trie.n_children[node]
        ends_at = np.cumsum(counts)
        total = int(ends_at[-1])
        if total == 0:
            break
        child = np.repeat(trie.first_child[node] - ends_at + counts, counts)
        child += np.arange(total)
        state = np.repeat(state, counts)
        origin = np.repeat(origin, counts)
        # 2. step the DFA by the byte on the edge into the child
        target = flat_trans[state * 256 + trie.edge_byte[child]]
        # 3. skip dead subtrees: a pair whose byte is dead is dropped, so nothing
        #    under that child is visited from this state; its siblings still are
        live = target != DEAD
        child, state, origin = child[live], target[live], origin[live]
        # 4. record every token ending at a live child: allowed from its origin,
        #    leading to the state reached at the child
        token = trie.node_token[child]
        ends = token >= 0
        found.append((origin[ends], token[ends], state[ends]))
        node = child
    if not found:
        empty = np.zeros(0, np.int32)
        return empty, empty, empty
    return tuple(np.concatenate(parts) for parts in zip(*found))


@dataclasses.dataclass(frozen=True)
class Transitions:
    """Every allowed (state, token) pair of a DFA, grouped by state (CSR layout).

    For state s, ``token[indptr[s]:indptr[s+1]]`` are the ids allowed in s (EOS
    and ids sharing another id's bytes included; in no particular order) and
    ``target[...]`` the states they lead to, so ``target[k] ==
    index.next_state(s, token[k])``.
    """

    indptr: np.ndarray  # int64 [S + 1]
    token: np.ndarray   # int32 [nnz]
    target: np.ndarray  # int32 [nnz]


class TokenIndex:
    """Token masks over ``dfa`` for one vocabulary (see the module doc for the rules).

    ``mask(state)`` is computed the first time a state is asked for and cached;
    ``build_all()`` computes every state at once (for serving). Raises ValueError
    for an out-of-range ``eos_id`` or a vocabulary entry that is neither bytes nor
    None, TypeError when ``vocab`` is not a sequence.

    Caches: one read-only mask row and its (token, target) pairs per state asked
    for; a dense target row per state for ``next_state``, at most
    ``MAX_TABLE_CELLS`` cells in all (the oldest rows are dropped beyond).
    """

    def __init__(self, dfa: DFA, vocab: Sequence[bytes | None], eos_id: int | None = None) -> None:
        if not isinstance(dfa, DFA):
            raise TypeError(f"TokenIndex: dfa must be a DFA, not {type(dfa).__name__}")
        vocab = _check_vocab(vocab)
        if eos_id is not None:
            if isinstance(eos_id, bool) or not isinstance(eos_id, (int, np.integer)):
                raise TypeError(f"TokenIndex: eos_id must be an int or None, not {type(eos_id).__name__}")
            eos_id = int(eos_id)
            if not 0 <= eos_id < len(vocab):
                raise InvalidArgument(f"TokenIndex: eos_id {eos_id} out of range 0..{len(vocab) - 1}")
        self.dfa = dfa
        self.vocab_size = len(vocab)
        self.eos_id = eos_id
        self.trie = _cached_trie(tuple(vocab), eos_id)
        self._masks: dict[int, np.ndarray] = {}    # state -> read-only bool [V]
        self._pairs: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # state -> (tokens, targets)
        self._targets: dict[int, np.ndarray] = {}  # state -> int32 [V], DEAD if disallowed

    def mask(self, state: int) -> np.ndarray:
        """bool [V], read-only: the tokens allowed in ``state`` (cached)."""
        row = self._masks.get(state) if type(state) is int else None
        if row is None:
            state = self._check_state(state)  # e.g. np.int64(3) -> 3
            if state not in self._masks:
                self._compute(np.array([state]))
            row = self._masks[state]
        return row

    def next_state(self, state: int, token_id: int) -> int:
        """The state after ``token_id`` from ``state``; DEAD for a disallowed token.
        For EOS: ``state`` itself when it is accepting, else DEAD."""
        state = self._check_state(state)
        token_id = self._check_token(token_id)
        row = self._targets.get(state)
        if row is None:
            row = self._target_row(state)
        return int(row[token_id])

    def build_all(self) -> tuple[np.ndarray, Transitions]:
        """Every state's mask and transitions at once: ``(masks bool [S, V],
        Transitions)``; fills the per-state caches (the mask rows are read-only
        views of ``masks``). Raises LimitExceeded beyond ``MAX_TABLE_CELLS``."""
        n = self.dfa.n_states
        if n * self.vocab_size > MAX_TABLE_CELLS:
            raise LimitExceeded(f"TokenIndex.build_all: {n} states x {self.vocab_size} tokens "
                                f"exceed MAX_TABLE_CELLS={MAX_TABLE_CELLS}; use mask(state)")
        return self._compute(np.arange(n))

    def _compute(self, states: np.ndarray) -> tuple[np.ndarray, Transitions]:
        """Walk from ``states`` (ascending); cache and return their masks and transitions."""
        masks, origin, token, target = self._tables(states)
        order = np.argsort(origin, kind="stable")  # group the pairs by state, states ascending
        counts = np.bincount(origin, minlength=self.dfa.n_states)[states]
        indptr = np.concatenate([[0], np.cumsum(counts)])
        table = Transitions(indptr, token[order], target[order])
        masks.setflags(write=False)
        for row, state in enumerate(states.tolist()):
            self._masks[state] = masks[row]
            lo, hi = indptr[row], indptr[row + 1]
            self._pairs[state] = (table.token[lo:hi], table.target[lo:hi])
        return masks, table

    def _tables(self, states: np.ndarray):
        """Masks of ``states`` (rows in that order) and every allowed (origin, token,
        target) pair, from one walk plus the aliases and EOS rules."""
        rows = np.full(self.dfa.n_states, -1, np.int64)
        rows[states] = np.arange(states.size)
        origin, token, target = self._with_aliases(*walk_trie(self.trie, self.dfa.trans, states))
        masks = np.zeros((states.size, self.vocab_size), np.bool_)
        masks.reshape(-1)[rows[origin] * self.vocab_size + token] = True
        if self.eos_id is not None:  # EOS exactly in accepting states, text unchanged
            accepting = self.dfa.accept[states]
            masks[:, self.eos_id] = accepting
            stay = states[accepting].astype(np.int32)
            origin = np.concatenate([origin, stay])
            token = np.concatenate([token, np.full(stay.size, self.eos_id, np.int32)])
            target = np.concatenate([target, stay])
        return masks, origin, token, target

    def _with_aliases(self, origin, token, target):
        """Add a pair for every id whose bytes repeat a lower id's (its representative)."""
        aliases = self.trie.aliases
        if not aliases.size:
            return origin, token, target
        by_rep = aliases[np.argsort(aliases[:, 1], kind="stable")]
        lo = np.searchsorted(by_rep[:, 1], token, side="left")
        count = np.searchsorted(by_rep[:, 1], token, side="right") - lo
        pick = np.repeat(np.arange(token.size), count)
        which = np.repeat(lo - np.cumsum(count) + count, count) + np.arange(pick.size)
        return (np.concatenate([origin, origin[pick]]),
                np.concatenate([token, by_rep[which, 0].astype(np.int32)]),
                np.concatenate([target, target[pick]]))

    def _target_row(self, state: int) -> np.ndarray:
        if state not in self._pairs:
            self.mask(state)
        tokens, targets = self._pairs[state]
        row = np.full(self.vocab_size, DEAD, np.int32)
        row[tokens] = targets
        while self._targets and (len(self._targets) + 1) * self.vocab_size > MAX_TABLE_CELLS:
            del self._targets[next(iter(self._targets))]  # drop the oldest row
        self._targets[state] = row
        return row

    def _check_state(self, state) -> int:
        if isinstance(state, bool) or not isinstance(state, (int, np.integer)):
            raise TypeError(f"TokenIndex: state must be an int, not {type(state).__name__}")
        if not 0 <= state < self.dfa.n_states:
            raise InvalidArgument(f"TokenIndex: state {state} out of range 0..{self.dfa.n_states - 1}")
        return int(state)

    def _check_token(self, token_id) -> int:
        if isinstance(token_id, bool) or not isinstance(token_id, (int, np.integer)):
            raise TypeError(f"TokenIndex: token id must be an int, not {type(token_id).__name__}")
        if not 0 <= token_id < self.vocab_size:
            raise InvalidArgument(f"TokenIndex: token id {token_id} out of range 0..{self.vocab_size - 1}")
        return int(token_id)

    def __repr__(self) -> str:
        return (f"TokenIndex(n_states={self.dfa.n_states}, vocab_size={self.vocab_size}, "
                f"eos_id={self.eos_id}, trie_nodes={self.trie.n_nodes}, cached={len(self._masks)})")
