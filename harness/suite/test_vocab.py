"""Catalogue: token bytes (spec test 16).

Oracle: the GPT-2 byte map as GPT-2's ``encoder.py`` defines it (``bytes_to_unicode``,
written out here), the spec's rule (a string made only of map characters is decoded
through the map, any other string is UTF-8, specials are None), a real byte-level BPE
trained in memory with ``tokenizers``, and a tiktoken-style encoding whose
``decode_single_token_bytes`` is the answer.

The default tier hands ``vocab_bytes(tok)`` one ``SpecTokenizer`` (``shapes.py``): token
strings plus specials marked the way real tokenizers carry them, never an extra
argument. The tiktoken-like encoding, the real ``tokenizers.Tokenizer`` and the exported
byte-map functions are contract decisions (the spec: "vocab_bytes gets them back from
token strings"; the byte map comes from M05.2).
"""

from __future__ import annotations

import pytest

from harness.sandbox.shapes import SpecTokenizer, TiktokenLike
from harness.suite import strength
from harness.suite.explain import fail
from harness.suite.inputs import expected_bytes, gpt2_byte_map
from harness.suite.tiers import decision


@pytest.mark.unit
def test_vocab_bytes(impl):
    byte_map = gpt2_byte_map()
    inverse = {ch: b for b, ch in byte_map.items()}
    _check_strings(impl, inverse)
    _decided("byte_map_functions", lambda: _check_byte_map(impl, byte_map, inverse))
    _decided("vocab_bytes_tiktoken", lambda: _check_tiktoken_like(impl))
    _decided("vocab_bytes_tokenizers", lambda: _check_tokenizers(impl, inverse))
    strength.run_for("test_vocab_bytes", impl)


def _decided(key: str, check) -> None:
    """Run a check of a contract decision: its failure (or exception) is the departure."""
    try:
        check()
    except Exception as exc:  # noqa: BLE001 - any failure of a decided check is a departure from it
        decision(key, False, (getattr(exc, "reason", None) or f"{type(exc).__name__}: {exc}").splitlines()[0])


def _check_byte_map(impl, byte_map, inverse) -> None:
    got_map = impl.bytes_to_unicode()
    if dict(got_map) != byte_map:
        wrong = next(b for b in range(256) if got_map.get(b) != byte_map[b])
        fail("bytes_to_unicode differs from GPT-2's byte map", byte=wrong, expected=byte_map[wrong],
             got=got_map.get(wrong))
    if dict(impl.unicode_to_bytes()) != inverse:
        fail("unicode_to_bytes is not the inverse of the byte map")


def _check_strings(impl, inverse) -> None:
    tokens = ["\u0120hello", "a", "\u010a", "<|endoftext|>", "\u00e9", "\u4e2d", "\u0120\u4e2d", "hello world",
              "\u00c3\u00a9", "\u0100", "\u0120", "caf\u00e9!", "<pad>", "\u0121\u0122\u0143"]
    # every byte, as byte-level BPE has them (token strings are unique in a tokenizer)
    tokens += [ch for b, ch in sorted(gpt2_byte_map().items()) if ch not in tokens]
    specials = {3, 12}
    want = [None if i in specials else expected_bytes(t, inverse) for i, t in enumerate(tokens)]
    assert want[0] == b" hello" and want[5] == "\u4e2d".encode() and want[8] == "\u00e9".encode(), "catalogue bug"
    assert {w for w in want if w is not None and len(w) == 1} == {bytes([b]) for b in range(256)}, "catalogue bug"
    got = impl.vocab_bytes(SpecTokenizer(tokens, special_ids=sorted(specials)))
    _compare("a tokenizer's token strings (specials marked by the tokenizer)", tokens, want, got)


def _check_tiktoken_like(impl) -> None:
    ranks = {bytes([b]): b for b in range(256)}
    ranks.update({b" the": 256, b"\xe4\xb8": 257, b"\xad\xe6\x96\x87": 258, b"<|x|>": 261})  # 259, 260: holes
    enc = TiktokenLike(ranks, {"<|endoftext|>": 262})
    by_id = {i: b for b, i in ranks.items()}
    want = [by_id.get(i) for i in range(263)]
    want[262] = None
    got = impl.vocab_bytes(enc)
    _compare("a tiktoken-style encoding", list(range(263)), want, got)


def _check_tokenizers(impl, inverse) -> None:
    try:
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    except ImportError:
        return  # optional (the dev extra): nothing to hand the candidate, so no departure to note
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=320, special_tokens=["<|endoftext|>"], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    corpus = ["the cat sat on the mat", "caf\u00e9 na\u00efve \u65e5\u672c\u8a9e", '{"city": "Oslo", "days": 3}'] * 20
    tok.train_from_iterator(corpus, trainer)
    size = tok.get_vocab_size()
    special = tok.token_to_id("<|endoftext|>")
    want = [None if i == special else expected_bytes(tok.id_to_token(i), inverse) for i in range(size)]
    got = impl.vocab_bytes(tok)
    _compare("a tokenizers byte-level BPE", [tok.id_to_token(i) for i in range(size)], want, got)


def _compare(what: str, tokens, want, got) -> None:
    got = [bytes(g) if isinstance(g, (bytes, bytearray)) else g for g in got]
    if len(got) != len(want):
        fail(f"vocab_bytes({what}) has the wrong length", expected=len(want), got=len(got))
    for i, (w, g) in enumerate(zip(want, got)):
        if w != g:
            fail(f"vocab_bytes({what}) differs for a token", token_id=i, token=tokens[i], expected=w, got=g)
