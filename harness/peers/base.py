"""One interface for every engine we compare against: compile, accept, mask.

A *peer* is a production engine (outlines-core, llguidance, interegular, xgrammar) or
our own pipeline, seen through the same three questions:

- ``peer.compile_regex(pattern)`` / ``peer.compile_schema(schema)`` -> ``Compiled``;
  ``PeerRefused`` (a ``ValueError``) when the input is outside the peer's subset,
  so the comparison can skip it instead of calling it a disagreement;
- ``compiled.accepts(doc: bytes) -> bool``: is the whole document in the language?
  ``compiled.viable(prefix: bytes) -> bool``: can the bytes still be completed?
- ``compiled.masker(vocab, eos_id).allowed(prefix_ids) -> bool[V]``: the token ids
  allowed after the token ids ``prefix_ids`` (never containing EOS), over the
  vocabulary ``vocab`` (``vocab[t]`` is bytes, or None for a special token). A
  prefix the peer itself refuses gives an all-False mask.

Peers that cannot answer a question say so in their capability flags
(``can_schema``, ``can_mask``); asking anyway raises ``NotImplementedError``.

Example::

    peer = load_peer("outlines-core")
    c = peer.compile_regex("(cat|car|dog)s?")
    c.accepts(b"cats")                                   # True
    c.masker([b"c", b"a", b"t", None], eos_id=3).allowed([0])  # [F, T, F, F]
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

import numpy as np


class PeerUnavailable(RuntimeError):
    """The peer cannot be used here (package or a dependency missing); ``reason``
    says which and how to get it."""

    def __init__(self, name: str, reason: str):
        self.name = name
        self.reason = reason
        super().__init__(f"peer {name!r} unavailable: {reason}")


class PeerRefused(ValueError):
    """The peer refused an input (outside its subset, or it failed to compile it)."""


@dataclasses.dataclass(frozen=True)
class Source:
    """What was compiled: ``kind`` is "regex" or "schema"; ``text`` the pattern or
    the schema's compact JSON (keys in the given order)."""

    kind: str
    text: str

    @classmethod
    def regex(cls, pattern: str) -> "Source":
        return cls("regex", pattern)

    @classmethod
    def schema(cls, schema: dict[str, Any]) -> "Source":
        return cls("schema", json.dumps(schema, separators=(",", ":"), ensure_ascii=False))

    def as_schema(self) -> dict[str, Any]:
        return json.loads(self.text)


class Masker:
    """Token masks of one compiled grammar over one vocabulary."""

    vocab_size: int

    def allowed(self, prefix_ids: Sequence[int]) -> np.ndarray:
        """bool[V]: the token ids allowed after ``prefix_ids``."""
        raise NotImplementedError


class Compiled:
    """A compiled pattern or schema of one peer."""

    source: Source

    def accepts(self, doc: bytes) -> bool:
        raise NotImplementedError

    def viable(self, prefix: bytes) -> bool:
        raise NotImplementedError

    def accepts_all(self, docs: Sequence[bytes]) -> list[bool]:
        """``accepts`` of each document (an isolated peer asks its child once for all)."""
        return [bool(self.accepts(d)) for d in docs]

    def masker(self, vocab: Sequence[bytes | None], eos_id: int | None) -> Masker:
        raise NotImplementedError


class Peer:
    """An engine seen through the common interface (subclasses fill it in)."""

    name: str = "?"
    version: str = "?"
    can_schema: bool = False
    can_mask: bool = False
    notes: str = ""  # one line: what this adapter does to ask the peer
    api: str = ""    # one line: which of the engine's API spellings this release answered to

    def compile(self, source: Source) -> Compiled:
        if source.kind == "regex":
            return self.compile_regex(source.text)
        if source.kind == "schema":
            return self.compile_schema(source.as_schema())
        raise ValueError(f"unknown source kind {source.kind!r}: expected 'regex' or 'schema'")

    def compile_regex(self, pattern: str) -> Compiled:
        raise NotImplementedError

    def compile_schema(self, schema: dict[str, Any]) -> Compiled:
        raise NotImplementedError(f"peer {self.name} does not compile JSON schemas")

    def __repr__(self) -> str:
        return f"<peer {self.name} {self.version}>"


def package_version(distribution: str, module=None) -> str:
    """The installed release of ``distribution`` (``importlib.metadata``: every release has
    it, where a ``__version__`` attribute comes and goes), else the module's ``__version__``,
    else "?"."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:
        return str(getattr(module, "__version__", "?"))


def find_feature(spellings: Sequence[str]):
    """``(object, spelling)`` for the first of ``spellings`` (``"module:attribute.path"``) that
    this release of an engine has, e.g. ``["outlines_core:json_schema.build_regex_from_schema",
    "outlines_core.fsm.json_schema:build_regex_from_schema"]``: newer spelling first. None
    when no spelling answers (an import error of an optional submodule counts as absent)."""
    import importlib

    for spelling in spellings:
        module_name, _, path = spelling.partition(":")
        try:
            obj = importlib.import_module(module_name)
            for part in path.split(".") if path else ():
                obj = getattr(obj, part)
        except (ImportError, AttributeError):
            continue
        return obj, spelling
    return None


def check_prefix(prefix_ids: Sequence[int], vocab_size: int, eos_id: int | None) -> list[int]:
    """The prefix as a list of ints; ValueError for an id out of range or EOS."""
    ids = [int(t) for t in prefix_ids]
    for pos, t in enumerate(ids):
        if not 0 <= t < vocab_size:
            raise ValueError(f"prefix token {t} at position {pos} out of range 0..{vocab_size - 1}")
        if t == eos_id:
            raise ValueError(f"prefix holds EOS ({t}) at position {pos}: prefixes never contain EOS")
    return ids


def check_vocab(vocab: Sequence[bytes | None], eos_id: int | None) -> list[bytes | None]:
    """The vocabulary as a list; TypeError/ValueError naming a bad entry or EOS id."""
    if isinstance(vocab, (str, bytes)) or not isinstance(vocab, Sequence):
        raise TypeError(f"vocab must be a sequence of bytes or None, not {type(vocab).__name__}")
    out = list(vocab)
    for t, tok in enumerate(out):
        if tok is not None and not isinstance(tok, bytes):
            raise ValueError(f"vocab[{t}] is {type(tok).__name__}: expected bytes or None")
    if eos_id is not None and not 0 <= eos_id < len(out):
        raise ValueError(f"eos_id {eos_id} out of range 0..{len(out) - 1}")
    return out


def ids_to_mask(ids, vocab_size: int) -> np.ndarray:
    """bool[V] with True at every id in ``ids`` below ``vocab_size`` (extra ids,
    such as an EOS id added for a peer that needs one, are dropped)."""
    mask = np.zeros(vocab_size, dtype=bool)
    arr = np.fromiter((i for i in ids if 0 <= i < vocab_size), dtype=np.int64)
    mask[arr] = True
    return mask


def bits_to_mask(bitmask: bytes, vocab_size: int) -> np.ndarray:
    """bool[V] from a little-endian bitmask (bit t of the buffer is token t)."""
    bits = np.unpackbits(np.frombuffer(bitmask, dtype=np.uint8), bitorder="little")
    return bits[:vocab_size].astype(bool)
