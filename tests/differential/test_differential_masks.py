"""Differential: token masks four ways.

After a prefix, the mask of a vocabulary is computed by

1. the reference ``TokenIndex`` (a byte trie walked over the canonical DFA);
2. brute force: each token's bytes stepped through the same DFA (the definition);
3. the derivative oracle's ``mask`` (derivatives by the prefix, then by each token);
4. the ``regex`` module's partial matching: token t is allowed iff ``prefix + t`` is
   a prefix of a member; EOS iff ``prefix`` is a member (``re.fullmatch``).

``regex`` partial matching is only right on patterns with no sub-pattern of empty
language (see ``oracles/stdlib.py``); ``patterns()`` never draws one by default.
Prefixes are mostly viable (prefixes of walks), sometimes arbitrary (then the
reference has no state to ask, and every other side must allow nothing).

The same holds over the regex of a generated JSON schema (UTF-8 ranges, escapes),
with prefixes of valid documents and vocabularies of JSON-ish tokens.

A generation is a walk of masks: drawing any allowed token at every step (through
``Constraint``), the text stays viable for the derivative oracle and for ``regex``
partial matching, and a text ended by EOS is a member for ``re``.

Python is asked within a CPU budget (``oracles.stdlib.within_cpu``): both engines
backtrack, exponentially on some generated patterns; past the budget Python has no
opinion on that example (a Hypothesis event says so), and the other sides still agree.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import event, example, given
from hypothesis import strategies as st

from facts.hand import HAND_EOS, HAND_PATTERN, hand_vocab
from oracles import derivatives
from oracles.automaton import DEAD, Constraint, TokenIndex, json_schema_to_regex, regex_to_dfa
from oracles.stdlib import fullmatch, partial_match, within_cpu
from strategies.patterns import patterns
from strategies.schemas import documents, schemas
from strategies.strings import members, prefixes, strings_for
from strategies.vocabularies import vocabularies
from tests.support.helpers import PYTHON_OVER_BUDGET, python_says

pytestmark = pytest.mark.property

HAND_VOCAB = hand_vocab()  # the spec's section 3 (facts.hand)


def brute_force_mask(dfa, state: int, vocab, eos_id) -> np.ndarray:
    """The definition, token by token (spec section 2.3)."""
    out = np.zeros(len(vocab), dtype=bool)
    if state == DEAD:
        return out
    for t, tok in enumerate(vocab):
        if t == eos_id:
            out[t] = bool(dfa.accept[state])
        elif tok:
            out[t] = dfa.step(state, tok) != DEAD
    return out


def regex_partial_mask(pattern: str, prefix: bytes, vocab, eos_id) -> np.ndarray:
    return np.array([fullmatch(pattern, prefix) if t == eos_id else bool(tok) and partial_match(pattern, prefix + tok)
                     for t, tok in enumerate(vocab)], dtype=bool)


@st.composite
def mask_cases(draw):
    pattern = draw(patterns(max_leaves=6))
    dfa = regex_to_dfa(pattern)
    alphabet = bytes(sorted(set(pattern.encode()) | set(b"abc")))
    vocab, eos_id = draw(vocabularies(alphabet=alphabet))
    prefix = draw(st.one_of(prefixes(members(dfa, max_size=6)), strings_for(pattern, max_size=6)))
    return pattern, vocab, eos_id, prefix


@given(mask_cases())
@example((HAND_PATTERN, HAND_VOCAB, HAND_EOS, b"ca"))
@example((HAND_PATTERN, HAND_VOCAB, HAND_EOS, b"cat"))
@example((HAND_PATTERN, HAND_VOCAB, HAND_EOS, b"x"))
@example(("a|", [b"", None, b"a", b"aa"], None, b""))
def test_trie_masks_equal_brute_force_derivatives_and_regex_partial(case):
    check_masks_four_ways(*case)


def check_masks_four_ways(pattern: str, vocab, eos_id, prefix: bytes) -> None:
    dfa = regex_to_dfa(pattern)
    state = dfa.step(0, prefix)
    expected = brute_force_mask(dfa, state, vocab, eos_id)
    if state != DEAD:
        index = TokenIndex(dfa, vocab, eos_id)
        got = index.mask(state)
        assert np.array_equal(got, expected), (pattern, prefix, np.flatnonzero(got != expected))
        for t in np.flatnonzero(expected).tolist():
            want = state if t == eos_id else dfa.step(state, vocab[t])
            assert index.next_state(state, t) == want, (pattern, prefix, t)
    oracle = derivatives.mask(pattern, vocab, eos_id, prefix)
    assert np.array_equal(oracle, expected), (pattern, prefix, np.flatnonzero(oracle != expected))
    partial = within_cpu(regex_partial_mask, pattern, prefix, vocab, eos_id)
    if partial is None:
        event(PYTHON_OVER_BUDGET)
    else:
        assert np.array_equal(partial, expected), (pattern, prefix, np.flatnonzero(partial != expected))



JSON_ALPHABET = b'{}[]",:0123456789-.eEtrufalsn\\ab'


@st.composite
def schema_mask_cases(draw):
    schema = draw(schemas(max_leaves=4))
    pattern = json_schema_to_regex(schema)
    vocab, eos_id = draw(vocabularies(alphabet=JSON_ALPHABET, max_size=40))
    prefix = draw(prefixes(documents(schema).map(str.encode)))
    return pattern, vocab, eos_id, prefix


@given(schema_mask_cases())
@example(('\\{"a":(?:true|false)\\}', [b'{"', b"a", b'":', b"t", b"rue", b"\xc3", None, b""], 5, b'{"a":'))
def test_schema_masks_equal_brute_force_derivatives_and_regex_partial(case):
    check_masks_four_ways(*case)


@st.composite
def generations(draw):
    pattern = draw(patterns(max_leaves=6))
    alphabet = bytes(sorted(set(pattern.encode()) | set(b"abc")))
    vocab, eos_id = draw(vocabularies(alphabet=alphabet))
    return pattern, vocab, eos_id


@given(generations(), st.data())
@example((HAND_PATTERN, HAND_VOCAB, HAND_EOS), None)
def test_any_walk_of_masks_stays_viable_and_ends_in_a_member(case, data):
    pattern, vocab, eos_id = case
    c = Constraint(TokenIndex(regex_to_dfa(pattern), vocab, eos_id))
    text = b""
    for _ in range(8):
        allowed = np.flatnonzero(c.mask()).tolist()
        if not allowed:  # only when no single token continues; never after a member with EOS
            if eos_id is not None:
                assert not derivatives.matches(pattern, text), (pattern, text)
                python_says(fullmatch, pattern, text, False)
            break
        token = allowed[0] if data is None else data.draw(st.sampled_from(allowed), label="token")
        c.advance(token)
        if token == eos_id:
            assert c.done and derivatives.matches(pattern, text), (pattern, text)
            python_says(fullmatch, pattern, text, True)
            break
        text += vocab[token]
        assert derivatives.viable(pattern, text), (pattern, text)
        python_says(partial_match, pattern, text, True)
        assert c.is_complete() == derivatives.matches(pattern, text), (pattern, text)
        python_says(fullmatch, pattern, text, c.is_complete())
