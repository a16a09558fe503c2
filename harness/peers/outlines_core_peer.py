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

Releases: the calls above are 0.2's. A 0.1 release (``outlines_core.fsm``) has no
regex-built ``Index``: compile is its byte-level FSM (``fsm.regex.make_byte_level_fsm`` of
interegular's FSM, then ``make_deterministic_fsm``), walked byte by byte for accepts and
viable (no masks: ``can_mask`` False); its schemas come from
``fsm.json_schema.build_regex_from_schema``. Which spelling answered is ``api``.
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
    find_feature,
    ids_to_mask,
    package_version,
)

INDEX_SPELLINGS = ["outlines_core:Index"]  # 0.2: Index(regex, Vocabulary(eos, {token bytes: [ids]}))
SCHEMA_SPELLINGS = ["outlines_core.json_schema:build_regex_from_schema",        # 0.2
                    "outlines_core.fsm.json_schema:build_regex_from_schema"]    # 0.1
BYTE_FSM_SPELLINGS = ["outlines_core.fsm.regex:make_byte_level_fsm"]           # 0.1


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


class OutlinesFsmCompiled(Compiled):
    """A 0.1 release's byte-level FSM (symbols: ASCII characters, ``\\x00HH`` for bytes >= 0x80)."""

    def __init__(self, source: Source, regex: str):
        self.source = source
        make_byte_level_fsm = find_feature(BYTE_FSM_SPELLINGS)[0]
        import interegular
        from outlines_core.fsm.regex import make_deterministic_fsm
        try:
            fsm = make_byte_level_fsm(interegular.parse_pattern(regex).to_fsm().reduce(), keep_utf8=False)
            self.fsm = make_deterministic_fsm(fsm)[0]
        except Exception as exc:
            raise PeerRefused(f"outlines-core refused {regex[:80]!r}: {type(exc).__name__}: {exc}") from exc

    def _walk(self, data: bytes):
        from interegular.fsm import anything_else

        fsm, state = self.fsm, self.fsm.initial
        for b in data:
            symbol = chr(b) if b < 0x80 else f"\x00{b:02X}"
            key = fsm.alphabet[symbol] if symbol in fsm.alphabet else fsm.alphabet.get(anything_else)
            state = fsm.map.get(state, {}).get(key) if key is not None else None
            if state is None:
                return None
        return state

    def accepts(self, doc: bytes) -> bool:
        state = self._walk(doc)
        return state is not None and state in self.fsm.finals

    def viable(self, prefix: bytes) -> bool:
        return self._walk(prefix) is not None


def schema_regex(schema: dict[str, Any]) -> str:
    build_regex_from_schema = find_feature(SCHEMA_SPELLINGS)[0]
    try:
        return build_regex_from_schema(json.dumps(schema))
    except Exception as exc:
        raise PeerRefused(f"outlines-core refused the schema: {exc}") from exc


class OutlinesCore(Peer):
    name = "outlines-core"
    can_schema = True
    can_mask = True
    notes = "Index over 256 byte tokens for accepts; Index over the vocabulary for masks"

    def __init__(self):
        module = _import()
        self.version = package_version("outlines-core", module)
        index, schema = find_feature(INDEX_SPELLINGS), find_feature(SCHEMA_SPELLINGS)
        fsm = None if index else find_feature(BYTE_FSM_SPELLINGS)
        if schema is None or (index or fsm) is None:
            raise PeerUnavailable("outlines-core", f"release {self.version} has none of the known APIs "
                                                   f"({', '.join(INDEX_SPELLINGS + BYTE_FSM_SPELLINGS)})")
        self.byte_fsm = index is None
        self.can_mask = not self.byte_fsm
        if self.byte_fsm:
            self.notes = "0.1: its byte-level FSM walked for accepts; no masks"
        self.api = f"{(index or fsm)[1]}; {schema[1]}"

    def _compiled(self, source: Source, regex: str) -> Compiled:
        return OutlinesFsmCompiled(source, regex) if self.byte_fsm else OutlinesCompiled(source, regex)

    def compile_regex(self, pattern: str) -> Compiled:
        return self._compiled(Source.regex(pattern), pattern)

    def compile_schema(self, schema: dict[str, Any]) -> Compiled:
        return self._compiled(Source.schema(schema), schema_regex(schema))
