"""outlines-core (Rust ``Index``: regex -> token-level DFA) behind the peer interface.

- compile a regex: ``Index(regex, Vocabulary(256, {bytes([b]): [b]}))``, an index
  over the 256 single-byte tokens (EOS is id 256). That byte index is the peer's
  automaton: ``accepts`` walks the document's bytes through ``get_next_state`` and
  asks ``is_final_state``; ``viable`` only walks.
- compile a schema: ``json_schema.build_regex_from_schema(json.dumps(schema))``
  with outlines-core's default whitespace, then as a regex.
- masks: ``Index(regex, Vocabulary(eos, {token bytes: [ids]}))`` over the given
  vocabulary. Special (None) tokens are left out of the map; the vocabulary's EOS
  entry is left out too (outlines-core refuses EOS inside the map); when
  ``eos_id`` is None a spare id ``V`` plays EOS and is dropped from the masks.
  Empty tokens are passed through as they are (outlines-core allows them
  everywhere: the "empty-token" difference).

Any exception while building an index becomes ``PeerRefused``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from harness.peers.base import (
    Compiled,
    Masker,
    Peer,
    PeerRefused,
    PeerUnavailable,
    Source,
    check_prefix,
    check_vocab,
    ids_to_mask,
)


def _import():
    try:
        import outlines_core
    except ImportError as exc:  # pragma: no cover
        raise PeerUnavailable("outlines-core", "not installed: pip install 'constrain-harness[peers]'") from exc
    return outlines_core


def vocabulary(vocab: Sequence[bytes | None], eos_id: int | None):
    """(outlines_core.Vocabulary, the EOS id it uses) for our vocabulary."""
    oc = _import()
    eos = len(vocab) if eos_id is None else eos_id
    mapping: dict[bytes, list[int]] = {}
    for t, tok in enumerate(vocab):
        if tok is not None and t != eos:
            mapping.setdefault(tok, []).append(t)
    return oc.Vocabulary(eos, mapping), eos


_BYTE_VOCAB = None


def byte_vocabulary():
    """The 256 single-byte tokens, EOS 256 (built once)."""
    global _BYTE_VOCAB
    if _BYTE_VOCAB is None:
        _BYTE_VOCAB = vocabulary([bytes([b]) for b in range(256)], None)[0]
    return _BYTE_VOCAB


def build_index(regex: str, vocab_obj):
    try:
        return _import().Index(regex, vocab_obj)
    except Exception as exc:  # outlines-core raises ValueError and others from Rust
        raise PeerRefused(f"outlines-core refused {regex[:80]!r}: {exc}") from exc


class OutlinesMasker(Masker):
    def __init__(self, regex: str, vocab, eos_id):
        self.vocab_size = len(vocab)
        self.eos_id = eos_id
        vocab_obj, self._eos = vocabulary(vocab, eos_id)
        self.index = build_index(regex, vocab_obj)

    def allowed(self, prefix_ids: Sequence[int]) -> np.ndarray:
        state = self.index.get_initial_state()
        for t in check_prefix(prefix_ids, self.vocab_size, self.eos_id):
            state = self.index.get_next_state(state, t)
            if state is None:
                return np.zeros(self.vocab_size, dtype=bool)
        return ids_to_mask(self.index.get_allowed_tokens(state) or (), self.vocab_size)


class OutlinesCompiled(Compiled):
    def __init__(self, source: Source, regex: str):
        self.source = source
        self.regex = regex
        self.byte_index = build_index(regex, byte_vocabulary())

    def _walk(self, data: bytes):
        index = self.byte_index
        state = index.get_initial_state()
        for b in data:
            state = index.get_next_state(state, b)
            if state is None:
                return None
        return state

    def accepts(self, doc: bytes) -> bool:
        state = self._walk(doc)
        return state is not None and bool(self.byte_index.is_final_state(state))

    def viable(self, prefix: bytes) -> bool:
        return self._walk(prefix) is not None

    def masker(self, vocab, eos_id) -> OutlinesMasker:
        return OutlinesMasker(self.regex, check_vocab(vocab, eos_id), eos_id)


def schema_regex(schema: dict[str, Any]) -> str:
    oc = _import()
    try:
        return oc.json_schema.build_regex_from_schema(json.dumps(schema))
    except Exception as exc:
        raise PeerRefused(f"outlines-core refused the schema: {exc}") from exc


class OutlinesCore(Peer):
    name = "outlines-core"
    can_schema = True
    can_mask = True
    notes = "Index over 256 byte tokens for accepts; Index over the vocabulary for masks"

    def __init__(self):
        _import()
        from importlib.metadata import version

        self.version = version("outlines-core")

    def compile_regex(self, pattern: str) -> OutlinesCompiled:
        return OutlinesCompiled(Source.regex(pattern), pattern)

    def compile_schema(self, schema: dict[str, Any]) -> OutlinesCompiled:
        return OutlinesCompiled(Source.schema(schema), schema_regex(schema))
