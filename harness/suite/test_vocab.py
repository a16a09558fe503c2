"""Catalogue: token bytes (seed test 16).

Oracle: the GPT-2 byte map as GPT-2's ``encoder.py`` defines it (``bytes_to_unicode``,
written out here), the seed's rule (a string made only of map characters is decoded
through the map, any other string is UTF-8, specials are None), a real byte-level BPE
trained in memory with ``tokenizers`` (optional: skipped when absent), and a
tiktoken-style encoding whose ``decode_single_token_bytes`` is the answer.
"""

from __future__ import annotations

import pytest

from harness.suite.explain import fail


def gpt2_byte_map() -> dict[int, str]:
    """GPT-2's ``bytes_to_unicode``: printable bytes map to themselves, the others to
    256, 257, ... in byte order (so byte 32, the space, is 'Ġ' = chr(288))."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\u00a1"), ord("\u00ac") + 1)) \
        + list(range(ord("\u00ae"), ord("\u00ff") + 1))
    mapping, extra = {}, 0
    for byte in range(256):
        if byte in printable:
            mapping[byte] = chr(byte)
        else:
            mapping[byte] = chr(256 + extra)
            extra += 1
    return mapping


def expected_bytes(token: str, inverse: dict[str, int]) -> bytes:
    if all(ch in inverse for ch in token):
        return bytes(inverse[ch] for ch in token)
    return token.encode("utf-8")


class TiktokenLike:
    """The tiktoken surface the contract names: ``n_vocab``, ``decode_single_token_bytes``
    (KeyError for an id no token has), special tokens by name."""

    def __init__(self, ranks: dict[bytes, int], special: dict[str, int]):
        self._by_id = {i: b for b, i in ranks.items()}
        self._special_tokens = dict(special)
        self.special_tokens_set = set(special)
        self.n_vocab = max([*ranks.values(), *special.values()]) + 1
        self.max_token_value = self.n_vocab - 1

    def decode_single_token_bytes(self, token: int) -> bytes:
        if token in self._special_tokens.values():
            name = next(k for k, v in self._special_tokens.items() if v == token)
            return name.encode()
        return self._by_id[token]

    def encode_single_token(self, text) -> int:
        if isinstance(text, str) and text in self._special_tokens:
            return self._special_tokens[text]
        key = text if isinstance(text, bytes) else text.encode()
        return next(i for i, b in self._by_id.items() if b == key)


@pytest.mark.unit
def test_vocab_bytes(impl):
    byte_map = gpt2_byte_map()
    inverse = {ch: b for b, ch in byte_map.items()}
    got_map = impl.bytes_to_unicode()
    if dict(got_map) != byte_map:
        wrong = next(b for b in range(256) if got_map.get(b) != byte_map[b])
        fail("bytes_to_unicode differs from GPT-2's byte map", byte=wrong, expected=byte_map[wrong],
             got=got_map.get(wrong))
    if dict(impl.unicode_to_bytes()) != inverse:
        fail("unicode_to_bytes is not the inverse of the byte map")
    _check_strings(impl, inverse)
    _check_tiktoken_like(impl)
    _check_tokenizers(impl, inverse)


def _check_strings(impl, inverse) -> None:
    tokens = ["\u0120hello", "a", "\u010a", "<|endoftext|>", "\u00e9", "\u4e2d", "\u0120\u4e2d", "hello world",
              "\u00c3\u00a9", "\u0100", "Ġ", "caf\u00e9!", "<pad>", "\u0121\u0122\u0143"]
    specials = {3, 12}
    want = [None if i in specials else expected_bytes(t, inverse) for i, t in enumerate(tokens)]
    assert want[0] == b" hello" and want[5] == "\u4e2d".encode() and want[8] == "\u00e9".encode(), "catalogue bug"
    got = impl.vocab_bytes(tokens, special_ids=specials)
    _compare("token strings", tokens, want, got)


def _check_tiktoken_like(impl) -> None:
    ranks = {bytes([b]): b for b in range(256)}
    ranks.update({b" the": 256, b"\xe4\xb8": 257, b"\xad\xe6\x96\x87": 258, b"<|x|>": 261})  # 259, 260: holes
    enc = TiktokenLike(ranks, {"<|endoftext|>": 262})
    want = [ranks_inv for ranks_inv in (enc._by_id.get(i) for i in range(263))]
    want[262] = None
    got = impl.vocab_bytes(enc)
    _compare("a tiktoken-style encoding", list(range(263)), want, got)


def _check_tokenizers(impl, inverse) -> None:
    try:
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    except ImportError:
        return  # optional (the dev extra): the two checks above still ran
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
    got = list(got)
    if len(got) != len(want):
        fail(f"vocab_bytes({what}) has the wrong length", expected=len(want), got=len(got))
    for i, (w, g) in enumerate(zip(want, got)):
        if w != g:
            fail(f"vocab_bytes({what}) differs for a token", token_id=i, token=tokens[i], expected=w, got=g)
