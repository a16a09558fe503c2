"""The GPT-2 byte map: how byte-level BPE vocabularies write bytes as printable text.

Byte-level BPE (GPT-2, RoBERTa, Llama 3, Qwen, ...) stores each token as a string in
which every byte is one printable character: the 188 bytes that are already
printable and not whitespace (``!`` .. ``~``, ``¡`` .. ``¬``, ``®`` .. ``ÿ``) stand for
themselves, and the other 68 are moved to ``chr(256 + n)`` in ascending byte order.

Guarantees:

- ``bytes_to_unicode()`` is a bijection from ``range(256)`` to 256 distinct
  one-character strings, none of them whitespace or a control character;
- ``unicode_to_bytes()`` is its exact inverse.

Example: byte 32 (space) is ``'Ġ'`` (U+0120), byte 10 (newline) is ``'Ċ'``
(U+010A), so the token string ``'Ġhello'`` is the bytes ``b' hello'``.

Lineage: ``bytes_to_unicode`` in OpenAI's GPT-2 ``encoder.py``; the same table is
built by Hugging Face ``tokenizers``' ``ByteLevel`` pre-tokenizer.
"""

from __future__ import annotations

import functools

__all__ = ["bytes_to_unicode", "unicode_to_bytes", "decode_byte_level"]


@functools.lru_cache(maxsize=1)
def _table() -> tuple[tuple[int, str], ...]:
    printable = (list(range(ord("!"), ord("~") + 1))
                 + list(range(ord("¡"), ord("¬") + 1))
                 + list(range(ord("®"), ord("ÿ") + 1)))
    chars = list(printable)
    moved = 0
    byte_values = list(printable)
    for b in range(256):
        if b not in printable:
            byte_values.append(b)
            chars.append(256 + moved)  # e.g. byte 0 -> U+0100, byte 32 -> U+0120 'Ġ'
            moved += 1
    return tuple(sorted(zip(byte_values, map(chr, chars))))


def bytes_to_unicode() -> dict[int, str]:
    """The GPT-2 byte map: byte value -> printable character (byte 32 -> 'Ġ').

    Returns a new dict on each call (callers may modify it).
    """
    return dict(_table())


def unicode_to_bytes() -> dict[str, int]:
    """The inverse of ``bytes_to_unicode``: printable character -> byte value
    (``'Ġ'`` -> 32). Returns a new dict on each call."""
    return {c: b for b, c in _table()}


@functools.lru_cache(maxsize=1)
def _decode_map() -> dict[str, int]:
    return unicode_to_bytes()


def decode_byte_level(token: str) -> bytes | None:
    """The bytes of a byte-level token string, or None when some character of
    ``token`` is outside the byte map (then the string is not byte-level text).

    >>> decode_byte_level('Ġhello')
    b' hello'
    >>> decode_byte_level('hello world') is None  # ' ' itself is not a map character
    True
    """
    table = _decode_map()
    try:
        return bytes([table[c] for c in token])
    except KeyError:
        return None
