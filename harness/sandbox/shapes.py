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

The deep tier's checks of ``vocab_bytes`` (``harness/suite/test_deep.py``) hand three more, each
holding data a real tokenizer of its kind may hold but ``SpecTokenizer`` cannot (holes, bytes
entries, specials past the length) or that no well-formed one holds (a negative id, two tokens
with one id, a lone surrogate), kept as given:

- ``TiktokenPublic``: ``TiktokenLike`` with tiktoken's public API only (specials through
  ``special_tokens_set`` and ``encode_single_token``, no private ``_special_tokens`` table);
- ``TokenizersLike``: the ``tokenizers.Tokenizer`` surface over (token, id) pairs and added tokens;
- ``TransformersLike``: the ``transformers`` surface over a list of entries by id (a str, bytes as
  tiktoken-based tokenizers give, None for a hole as fast tokenizers give), ``all_special_ids``
  as given, and optionally a fixed answer of ``convert_ids_to_tokens``.

Crossing the wall: the grader never sends objects, only data. Each class here has
``describe() -> dict`` (data the channel carries: JSON's values and bytes, with a ``"kind"``)
and ``rebuild(description)`` makes an equal object on the other side, so the candidate sees the object a
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

__all__ = ["AddedToken", "SpecTokenizer", "TiktokenLike", "TiktokenPublic", "TokenizersLike", "TransformersLike",
           "describe", "rebuild"]


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

    def _table(self) -> dict[str, int]:
        return self._special_tokens

    def decode_single_token_bytes(self, token: int) -> bytes:
        if token in self._table().values():
            name = next(k for k, v in self._table().items() if v == token)
            return name.encode()
        return self._by_id[token]

    def encode_single_token(self, text) -> int:
        if isinstance(text, str) and text in self._table():
            return self._table()[text]
        key = text if isinstance(text, bytes) else text.encode()
        return next(i for i, b in self._by_id.items() if b == key)

    def describe(self) -> dict:
        return {"kind": "TiktokenLike", "ranks": [[b.hex(), i] for i, b in sorted(self._by_id.items())],
                "special": dict(self._special_tokens)}


class TiktokenPublic(TiktokenLike):
    """``TiktokenLike`` without the private table: its specials only through tiktoken's public
    API (``special_tokens_set``, ``encode_single_token``), as a reader that uses no private
    attribute of ``tiktoken.Encoding`` sees any encoding. A token of ``ranks`` may be a str
    (a malformed encoding: ``decode_single_token_bytes`` answers that str)."""

    def __init__(self, ranks: dict, special: dict[str, int]):
        super().__init__(ranks, special)
        self._named = self.__dict__.pop("_special_tokens")

    def _table(self) -> dict[str, int]:
        return self._named

    def describe(self) -> dict:
        return {"kind": "TiktokenPublic", "ranks": [[b, i] for i, b in sorted(self._by_id.items())],
                "special": dict(self._named)}


class TokenizersLike:
    """The ``tokenizers.Tokenizer`` surface over ``pairs`` ((token, id) as given: ``get_vocab``,
    which may hold two tokens with one id or a token that is no str) and ``added``
    ((id, content, special): ``get_added_tokens_decoder``)."""

    def __init__(self, pairs: list, added: list = ()):
        self.pairs = [(token, i) for token, i in pairs]
        self.added = [(i, content, bool(special)) for i, content, special in added]

    def get_vocab(self, with_added_tokens: bool = True) -> dict:
        added = {i for i, _, _ in self.added}
        return {token: i for token, i in self.pairs if with_added_tokens or i not in added}

    def get_vocab_size(self, with_added_tokens: bool = True) -> int:
        return len(self.get_vocab(with_added_tokens))

    def id_to_token(self, i: int):
        return next((token for token, j in self.pairs if j == i), None)

    def token_to_id(self, token):
        return next((i for t, i in self.pairs if t == token), None)

    def get_added_tokens_decoder(self) -> dict:
        return {i: AddedToken(content, special) for i, content, special in self.added}

    def describe(self) -> dict:
        return {"kind": "TokenizersLike", "pairs": [[t, i] for t, i in self.pairs],
                "added": [[i, c, s] for i, c, s in self.added]}


_ASKED = object()


class TransformersLike:
    """The ``transformers`` surface over ``entries`` by id (``len`` is their number; an entry is
    what ``convert_ids_to_tokens`` answers for its id: a str, bytes, None for a hole) and
    ``special_ids`` (``all_special_ids``, as given: none is checked). ``answer``, when given, is
    what ``convert_ids_to_tokens`` answers for any list of ids (a malformed tokenizer's)."""

    def __init__(self, entries: list, special_ids: list = (), answer=_ASKED):
        self.entries = list(entries)
        self.special_ids = list(special_ids)
        self.answer = answer

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def vocab_size(self) -> int:
        return len(self.entries)

    def get_vocab(self) -> dict:
        return {t: i for i, t in enumerate(self.entries) if isinstance(t, (str, bytes))}

    @property
    def all_special_ids(self) -> list:
        return list(self.special_ids)

    @property
    def all_special_tokens(self) -> list:
        return [self.entries[i] for i in self.special_ids if isinstance(i, int) and 0 <= i < len(self.entries)]

    @property
    def added_tokens_decoder(self) -> dict:
        return {i: AddedToken(t, True) for i, t in zip(self.special_ids, self.all_special_tokens)}

    def convert_ids_to_tokens(self, ids):
        if isinstance(ids, int):
            return self.entries[ids]
        if self.answer is not _ASKED:
            return self.answer
        return [self.entries[i] for i in ids]

    def describe(self) -> dict:
        data = {"kind": "TransformersLike", "entries": list(self.entries),
                "special_ids": list(self.special_ids)}
        if self.answer is not _ASKED:
            data["answer"] = list(self.answer) if isinstance(self.answer, list) else self.answer
        return data


def describe(obj: Any) -> dict:
    """The data that rebuilds ``obj`` (TypeError for an object of no known kind)."""
    if isinstance(obj, (SpecTokenizer, TiktokenLike, TokenizersLike, TransformersLike)):
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
    if kind == "TiktokenPublic":
        ranks = {t: int(i) for t, i in description["ranks"]}
        return TiktokenPublic(ranks, {str(k): int(v) for k, v in description["special"].items()})
    if kind == "TokenizersLike":
        return TokenizersLike([(t, i) for t, i in description["pairs"]],
                              [(i, c, s) for i, c, s in description["added"]])
    if kind == "TransformersLike":
        answer = description.get("answer", _ASKED)
        return TransformersLike(description["entries"], description["special_ids"], answer)
    raise ValueError(f"unknown description kind {kind!r}")
