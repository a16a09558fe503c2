"""Constraint, apply_mask, sample and constrained_sample (spec sections 2.4 and 4).

Oracles: the spec's hand example (section 3) and the Rust port's sampling example
(``ab?``, logits ``[0, 1, 5, 2]``), log-softmax computed here with ``math.fsum``,
empirical frequencies against softmax probabilities, and for generation
``json.loads`` plus ``jsonschema``.
"""

from __future__ import annotations

import json
import math
import re

import jsonschema
import numpy as np
import pytest
import regex

from oracles.automaton import (
    DEAD,
    Constraint,
    SamplingParams,
    TokenIndex,
    apply_mask,
    constrained_sample,
    json_schema_to_regex,
    regex_to_dfa,
    sample,
)
from tests.oracles.test_token_index import HAND_EOS, HAND_MASKS, HAND_VOCAB, TOOL_SCHEMA, hand_dfa

GREEDY = SamplingParams(temperature=0)


def log_softmax_at(logits, allowed, token) -> float:
    """The log-softmax over the allowed ids at ``token``, with an exact sum."""
    top = max(logits[i] for i in allowed)
    return logits[token] - top - math.log(math.fsum(math.exp(logits[i] - top) for i in allowed))


# --- Constraint ------------------------------------------------------------------

@pytest.mark.unit
def test_constraint_lifecycle():
    index = TokenIndex(hand_dfa(), HAND_VOCAB, HAND_EOS)
    c = Constraint(index)
    assert c.state == 0 and not c.done and not c.is_complete()
    assert set(np.flatnonzero(c.mask()).tolist()) == HAND_MASKS[0]
    c.advance(8)                                    # "ca"
    assert c.state == 3 and not c.is_complete()
    with pytest.raises(ValueError, match=r"token 12 .*state 3"):
        c.advance(12)                               # "x": outside the mask
    with pytest.raises(ValueError, match=r"token 13 .*state 3"):
        c.advance(HAND_EOS)                         # EOS only when complete
    assert c.state == 3 and not c.done               # a refused token changes nothing
    c.advance(11)                                   # "ts": "cats"
    assert c.state == 6 and c.is_complete()
    assert set(np.flatnonzero(c.mask()).tolist()) == {HAND_EOS}
    c.advance(HAND_EOS)
    assert c.done and c.state == 6 and c.is_complete()
    assert not c.mask().any() and c.mask().shape == (len(HAND_VOCAB),)
    for token in (HAND_EOS, 7, 0):                 # nothing after EOS, EOS included
        with pytest.raises(ValueError, match=f"token {token}"):
            c.advance(token)


@pytest.mark.boundary
def test_constraint_bad_arguments():
    index = TokenIndex(hand_dfa(), HAND_VOCAB, HAND_EOS)
    with pytest.raises(ValueError, match="state 7"):
        Constraint(index, 7)
    with pytest.raises(ValueError, match="state -1"):
        Constraint(index, DEAD)
    with pytest.raises(TypeError):
        Constraint(hand_dfa())
    c = Constraint(index, 5)
    assert c.is_complete()
    with pytest.raises(ValueError, match="token id 99"):
        c.advance(99)


@pytest.mark.property
@pytest.mark.parametrize("pattern", [r"(cat|car|dog)s?", r'\{"a":[0-9]{1,3}(,"b":"[a-z\xc3\xa9]*")?\}',
                                     r"(ab|a)*b?c"])
def test_the_constraint_follows_the_text(pattern):
    """Random allowed tokens: the state is always the DFA's state of the text so far
    (``dfa.step`` on the joined bytes), and ``is_complete`` is ``re.fullmatch``."""
    dfa = regex_to_dfa(pattern)
    vocab = [bytes([b]) for b in b'abcdgorst{}":,0123456789z\xc3\xa9'] + \
        [b'{"a":', b',"b":"', b'"}', b"ca", b"cat", b"dog", b"ts", b"\xc3\xa9", b"ab", b"bab", None, b"<eos>"]
    eos_id = len(vocab) - 1
    index = TokenIndex(dfa, vocab, eos_id)
    rng = np.random.default_rng(4)
    for _ in range(60):
        c, text = Constraint(index), b""
        while not c.done:
            allowed = np.flatnonzero(c.mask())
            assert allowed.size, f"stuck after {text!r}"
            token = int(rng.choice(allowed))
            c.advance(token)
            if token != eos_id:
                text += vocab[token]
            assert c.state == dfa.step(0, text)
            assert c.is_complete() == (re.fullmatch(pattern.encode(), text) is not None)
        assert re.fullmatch(pattern.encode(), text), text


# --- apply_mask -------------------------------------------------------------------

@pytest.mark.boundary
@pytest.mark.parametrize("density", [0.05, 0.9])  # the sparse and the dense paths
def test_apply_mask(density):
    rng = np.random.default_rng(1)
    logits = rng.normal(size=200).astype(np.float32)
    mask = rng.random(200) < density
    mask[17] = True
    before = logits.copy()
    out = apply_mask(logits, mask)
    assert out.dtype == np.float64 and out.shape == (200,) and out is not logits
    assert np.array_equal(logits, before)           # the input is untouched
    assert np.all(out[~mask] == -np.inf)
    assert np.array_equal(out[mask], logits[mask].astype(np.float64))
    listed = apply_mask(logits.tolist(), mask.tolist())
    assert np.array_equal(listed, out)


@pytest.mark.boundary
def test_apply_mask_errors():
    with pytest.raises(ValueError, match="allows no token"):
        apply_mask([1.0, 2.0], [False, False])
    with pytest.raises(ValueError, match="shape"):
        apply_mask([1.0, 2.0, 3.0], [True, False])
    with pytest.raises(ValueError, match="shape"):
        apply_mask([[1.0, 2.0]], [[True, False]])
    with pytest.raises(TypeError, match="bool"):
        apply_mask([1.0, 2.0], [1, 0])


# --- sample and greedy ------------------------------------------------------------

@pytest.mark.unit
def test_greedy_takes_the_best_allowed_token():
    # the Rust port's hand example: ab?, vocabulary a b c EOS, logits [0, 1, 5, 2]
    index = TokenIndex(regex_to_dfa("ab?"), [b"a", b"b", b"c", b"<eos>"], 3)
    c = Constraint(index)
    rng = np.random.default_rng(0)
    token, logprob = constrained_sample([0.0, 1.0, 5.0, 2.0], c, GREEDY, [], rng)
    assert (token, logprob) == (0, 0.0)               # only "a" is allowed: ln 1
    token, logprob = constrained_sample([0.0, 1.0, 5.0, 2.0], c, GREEDY, [0], rng)
    assert token == 3 and c.done                       # EOS (2) beats b (1); c (5) is masked
    assert logprob == pytest.approx(2 - math.log(math.e + math.e ** 2), abs=1e-12)
    with pytest.raises(ValueError, match="done"):
        constrained_sample([0.0, 1.0, 5.0, 2.0], c, GREEDY, [0, 3], rng)


@pytest.mark.unit
def test_greedy_ties_go_to_the_lowest_id_and_logprob_is_renormalized():
    rng = np.random.default_rng(0)
    logits = np.array([3.0, 7.0, 1.0, 7.0, 9.0, 7.0])
    mask = np.array([True, True, True, True, False, True])
    token, logprob = sample(apply_mask(logits, mask), GREEDY, [], rng)
    allowed = np.flatnonzero(mask).tolist()
    assert token == 1
    assert logprob == pytest.approx(log_softmax_at(logits.tolist(), allowed, 1), abs=1e-12)
    token, logprob = sample(logits, GREEDY, [], rng)  # unmasked: 9 wins
    assert token == 4
    assert logprob == pytest.approx(log_softmax_at(logits.tolist(), range(6), 4), abs=1e-12)


@pytest.mark.property
@pytest.mark.parametrize("params", [SamplingParams(), SamplingParams(temperature=0.7, top_k=3),
                                    SamplingParams(temperature=1.5, top_p=0.5),
                                    SamplingParams(temperature=1.0, top_k=2, top_p=0.9,
                                                   repetition_penalty=1.3)])
def test_minus_infinity_is_never_drawn(params):
    rng = np.random.default_rng(11)
    for _ in range(300):
        logits = rng.normal(scale=3.0, size=12)
        mask = rng.random(12) < 0.3
        mask[rng.integers(12)] = True
        history = rng.integers(0, 12, size=3).tolist()
        token, logprob = sample(apply_mask(logits, mask), params, history, rng)
        assert mask[token]
        assert logprob <= 0.0 and math.isfinite(logprob)


@pytest.mark.property
def test_sampling_frequencies_follow_the_softmax():
    rng = np.random.default_rng(5)
    logits = np.log(np.array([0.5, 0.3, 0.2, 0.0 + 1e-300]))
    counts = np.zeros(4)
    for _ in range(4000):
        counts[sample(logits, SamplingParams(), [], rng)[0]] += 1
    # each count within 5 standard deviations of its binomial mean
    for p, n in zip([0.5, 0.3, 0.2], counts[:3]):
        assert abs(n - 4000 * p) < 5 * math.sqrt(4000 * p * (1 - p))
    # temperature 0.5 squares the odds: 25:9:4
    counts = np.zeros(4)
    for _ in range(4000):
        counts[sample(logits, SamplingParams(temperature=0.5), [], rng)[0]] += 1
    for p, n in zip([25 / 38, 9 / 38, 4 / 38], counts[:3]):
        assert abs(n - 4000 * p) < 5 * math.sqrt(4000 * p * (1 - p))


@pytest.mark.unit
def test_top_k_top_p_and_repetition_penalty():
    rng = np.random.default_rng(2)
    logits = np.array([1.0, 4.0, 4.0, 3.0, -2.0])
    for _ in range(50):  # top_k 1 keeps the first of the tied maxima; top_p tiny the same
        assert sample(logits, SamplingParams(top_k=1), [], rng)[0] == 1
        assert sample(logits, SamplingParams(top_p=1e-9), [], rng)[0] == 1
        assert sample(logits, SamplingParams(top_k=3), [], rng)[0] in (1, 2, 3)
    # penalty 2: 4 -> 2 for the seen id 1, so 2 (4) wins; a negative logit is multiplied
    token, logprob = sample(logits, SamplingParams(temperature=0, repetition_penalty=2.0), [1], rng)
    penalized = [1.0, 2.0, 4.0, 3.0, -2.0]
    assert token == 2
    assert logprob == pytest.approx(log_softmax_at(penalized, range(5), 2), abs=1e-12)
    token, _ = sample([-1.0, -1.5], SamplingParams(temperature=0, repetition_penalty=2.0), [], rng,
                      prompt=[0])
    assert token == 1  # -1 -> -2 for the prompt's id 0
    # the logprob is taken before temperature, top-k and top-p
    token, logprob = sample(logits, SamplingParams(temperature=0.3, top_k=2), [], rng)
    assert logprob == pytest.approx(log_softmax_at(logits.tolist(), range(5), token), abs=1e-12)


@pytest.mark.boundary
def test_sampling_errors():
    rng = np.random.default_rng(0)
    for kwargs in ({"temperature": -0.1}, {"top_k": -1}, {"top_p": 0.0}, {"top_p": 1.5},
                   {"repetition_penalty": 0.0}, {"temperature": float("nan")}):
        with pytest.raises(ValueError):
            SamplingParams(**kwargs)
    with pytest.raises(TypeError):
        SamplingParams(top_k=1.5)
    with pytest.raises(ValueError, match="-inf"):
        sample([-np.inf, -np.inf], SamplingParams(), [], rng)
    with pytest.raises(ValueError, match="NaN"):
        sample([0.0, np.nan], SamplingParams(), [], rng)
    with pytest.raises(ValueError, match="1-D"):
        sample([], SamplingParams(), [], rng)
    with pytest.raises(ValueError, match="out of range"):
        sample([0.0, 1.0], SamplingParams(repetition_penalty=1.2), [5], rng)
    logits = np.array([0.0, 1.0])
    sample(logits, SamplingParams(repetition_penalty=3.0), [1], rng)
    assert logits.tolist() == [0.0, 1.0]  # never modified


@pytest.mark.unit
def test_constrained_sample_refuses_a_token_outside_the_mask():
    # a sampler that returned a masked token would be a bug: advance surfaces it
    index = TokenIndex(hand_dfa(), HAND_VOCAB, HAND_EOS)
    c = Constraint(index)
    with pytest.raises(ValueError, match="token 7 .*state 0"):
        c.advance(7)
    rng = np.random.default_rng(0)
    logits = np.zeros(len(HAND_VOCAB))
    logits[12] = 50.0  # "x" is by far the likeliest, and never allowed
    for _ in range(3):
        token, _ = constrained_sample(logits, c, SamplingParams(), [], rng)
        assert token != 12


# --- generation under the tool schema ------------------------------------------------

def byte_level_vocabulary() -> tuple[list[bytes | None], int]:
    """All 256 single bytes, multi-byte tokens a JSON tool call uses, UTF-8 words and
    fragments, a special token, and EOS last."""
    words = [b'{"', b'":', b'","', b'",', b'"}', b'city', b'days', b'units', b'"c"', b'"f"',
             b'Oslo', b'Paris', b'Z\xc3\xbcrich', b'\xc3\xa9', b'\xe6\x97\xa5', b'\xe6', b' the',
             b'12', b'3', b'0', b'-', b'\\"', b'\\n', b'\\u00', b'}', b'{"city":"', b'","days":',
             b',"units":"', b'ab', b'xyz']
    vocab = [bytes([b]) for b in range(256)] + words + [None, b"<eos>"]
    return vocab, len(vocab) - 1


@pytest.mark.property
def test_constrained_generation_parses():
    pattern = json_schema_to_regex(TOOL_SCHEMA)
    dfa = regex_to_dfa(pattern)
    vocab, eos_id = byte_level_vocabulary()
    index = TokenIndex(dfa, vocab, eos_id)
    validator = jsonschema.Draft202012Validator(TOOL_SCHEMA)
    compiled = regex.compile(pattern.encode())
    finished = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        c, history, text = Constraint(index), [], b""
        for _ in range(600):
            logits = rng.normal(scale=2.0, size=len(vocab))
            token, logprob = constrained_sample(logits, c, SamplingParams(), history, rng)
            assert logprob <= 0.0
            history.append(token)
            if c.done:
                break
            text += vocab[token]
        if c.done:
            finished += 1
            document = json.loads(text.decode("utf-8"))
            assert not list(validator.iter_errors(document)), text
            assert text == json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode() \
                or b"\\" in text  # compact JSON (escapes may be spelled differently)
        else:  # still a prefix of some valid document
            assert compiled.fullmatch(text, partial=True), text
    assert finished >= 30, f"only {finished} of 40 generations finished"
