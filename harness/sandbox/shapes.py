"""Objects the catalogue hands a candidate that are not plain data, and how they cross the wall.

The spec's ``vocab_bytes(tok)`` takes "a tokenizer" without fixing its interface, so the
default tier hands ``SpecTokenizer``: one object that answers every interface a
reasonable implementation may use to read token strings and specials, the way real
tokenizers carry them (never an extra argument):

- Hugging Face ``tokenizers.Tokenizer``: ``get_vocab(with_added_tokens=True)``,
  ``get_vocab_size(with_added_tokens=True)``, ``id_to_token``, ``token_to_id``,
  ``get_added_tokens_decoder()`` (``AddedToken``-like values with ``content`` and
  ``special``);
- ``transformers`` tokenizers: ``len()``, ``vocab_size``, ``get_vocab()``,
  ``convert_ids_to_tokens``, ``all_special_ids``, ``all_special_tokens``,
  ``added_tokens_decoder``;
- a plain token list: ``tokens`` / ``id_to_token`` by index, ``special_ids``.

``TiktokenLike`` is the tiktoken surface (bytes per id: no token strings), which the spec
does not name (strict tier).

Crossing the wall: the grader never sends objects, only data. Each class here has
``describe() -> dict`` (JSON-able, with a ``"kind"``) and ``rebuild(description)``
makes an equal object on the other side, so the candidate sees the object a
same-process test would hand it.

Example::

    >>> tok = SpecTokenizer(["a", "\\u0120b", "<s>"], special_ids=[2])
    >>> tok.all_special_ids, tok.convert_ids_to_tokens([1])
    ([2], ['Ġb'])
    >>> rebuild(tok.describe()).get_vocab() == tok.get_vocab()
    True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["AddedToken", "SpecTokenizer", "TiktokenLike", "describe", "rebuild"]


@dataclass(frozen=True)
class AddedToken:
    """The fields of ``tokenizers.AddedToken`` a reader of specials looks at."""

    content: str
    special: bool = True


class SpecTokenizer:
    """Token strings by id plus the ids of its special tokens (see the module doc).

    Invariant: ids are ``range(len(tokens))``; every special id is in that range.
    """

    def __init__(self, tokens: list[str], special_ids: list[int] = ()):
        self.tokens = list(tokens)
        self.special_ids = sorted(set(int(i) for i in special_ids))
        if any(not 0 <= i < len(self.tokens) for i in self.special_ids):
            raise ValueError(f"SpecTokenizer: special ids {self.special_ids} outside 0..{len(self.tokens) - 1}")

    # a token list
    def __len__(self) -> int:
        return len(self.tokens)

    def __getitem__(self, i: int) -> str:
        return self.tokens[i]

    def __iter__(self):
        return iter(self.tokens)

    # tokenizers.Tokenizer
    def get_vocab(self, with_added_tokens: bool = True) -> dict[str, int]:
        return {t: i for i, t in enumerate(self.tokens)}

    def get_vocab_size(self, with_added_tokens: bool = True) -> int:
        return len(self.tokens)

    def id_to_token(self, i: int) -> str | None:
        return self.tokens[i] if 0 <= i < len(self.tokens) else None

    def token_to_id(self, token: str) -> int | None:
        return self.get_vocab().get(token)

    def get_added_tokens_decoder(self) -> dict[int, AddedToken]:
        return {i: AddedToken(self.tokens[i], True) for i in self.special_ids}

    # transformers
    @property
    def vocab_size(self) -> int:
        return len(self.tokens)

    @property
    def added_tokens_decoder(self) -> dict[int, AddedToken]:
        return self.get_added_tokens_decoder()

    @property
    def all_special_ids(self) -> list[int]:
        return list(self.special_ids)

    @property
    def all_special_tokens(self) -> list[str]:
        return [self.tokens[i] for i in self.special_ids]

    def convert_ids_to_tokens(self, ids):
        if isinstance(ids, int):
            return self.tokens[ids]
        return [self.tokens[i] for i in ids]

    def describe(self) -> dict:
        return {"kind": "SpecTokenizer", "tokens": list(self.tokens), "special_ids": list(self.special_ids)}


SeedTokenizer = SpecTokenizer  # words: the old name, kept: student suites written before 2026-12-06 import it


class TiktokenLike:
    """The tiktoken surface: ``n_vocab``, ``decode_single_token_bytes`` (KeyError for an
    id no token has), special tokens by name (``special_tokens_set``,
    ``encode_single_token``)."""

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

    def describe(self) -> dict:
        return {"kind": "TiktokenLike", "ranks": [[b.hex(), i] for i, b in sorted(self._by_id.items())],
                "special": dict(self._special_tokens)}


def describe(obj: Any) -> dict:
    """The data that rebuilds ``obj`` (TypeError for an object of no known kind)."""
    if isinstance(obj, (SpecTokenizer, TiktokenLike)):
        return obj.describe()
    raise TypeError(f"cannot describe a {type(obj).__name__} for the candidate")


def rebuild(description: dict) -> Any:
    """The object ``description`` (from ``describe``) stands for."""
    kind = description.get("kind")
    if kind == "SpecTokenizer":
        return SpecTokenizer(description["tokens"], description["special_ids"])
    if kind == "TiktokenLike":
        ranks = {bytes.fromhex(h): int(i) for h, i in description["ranks"]}
        return TiktokenLike(ranks, {str(k): int(v) for k, v in description["special"].items()})
    raise ValueError(f"unknown description kind {kind!r}")
