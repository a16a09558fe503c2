"""xgrammar (pushdown automaton with adaptive token-mask caches) behind the peer
interface, used only where torch is already installed.

xgrammar's Python package depends on torch, so it is not part of the ``peers`` extra but an
extra of its own, ``[xgrammar]``, which pins ``torch==2.13.0`` (the CPU build this project's
machines keep on disk; an open range would pull a CUDA build of several GB).
Without torch or xgrammar this peer reports ``PeerUnavailable`` with the reason.

Calls (xgrammar's documented Python API): ``TokenizerInfo(encoded_vocab,
vocab_type=VocabType.RAW, vocab_size=..., stop_token_ids=[eos])``;
``GrammarCompiler(info).compile_regex(p)`` / ``.compile_json_schema(s)``;
``GrammarMatcher(compiled)`` with ``accept_token``, ``is_terminated``,
``fill_next_token_bitmask(bitmask)`` over ``allocate_token_bitmask(1, V)``.
accepts/viable use the 256 single-byte tokens (EOS 256), like the other peers.

Caveat: written against the documentation and not exercised on this machine
(torch absent); its tests skip here.
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
    package_version,
)


def _import():
    try:
        import torch  # noqa: F401  (xgrammar's bitmasks are torch tensors)
    except ImportError as exc:
        raise PeerUnavailable("xgrammar", "needs torch, which is not installed here "
                              "(xgrammar is only used where torch is already present)") from exc
    try:
        import xgrammar
    except ImportError as exc:
        raise PeerUnavailable("xgrammar", "not installed (torch is present): "
                              "pip install 'constrain-harness[xgrammar]'") from exc
    return xgrammar


def compiler(vocab: Sequence[bytes | None], eos_id: int | None):
    """(GrammarCompiler, n_vocab) for our vocabulary; specials become placeholders,
    a spare EOS ``V`` is added when ``eos_id`` is None."""
    xgr = _import()
    tokens = [tok if tok is not None else f"<|special {t}|>".encode() for t, tok in enumerate(vocab)]
    if eos_id is None:
        eos_id = len(tokens)
        tokens.append(b"<|spare eos|>")
    info = xgr.TokenizerInfo(tokens, vocab_type=xgr.VocabType.RAW, vocab_size=len(tokens),
                             stop_token_ids=[eos_id])
    return xgr.GrammarCompiler(info), len(tokens)


def compile_source(comp, source: Source):
    try:
        if source.kind == "regex":
            return comp.compile_regex(source.text)
        return comp.compile_json_schema(source.text)
    except Exception as exc:
        raise PeerRefused(f"xgrammar refused {source.text[:80]!r}: {exc}") from exc


class XgrammarMasker(Masker):
    def __init__(self, source: Source, vocab, eos_id):
        self.vocab_size = len(vocab)
        self.eos_id = eos_id
        comp, self.n_vocab = compiler(vocab, eos_id)
        self.compiled = compile_source(comp, source)

    def allowed(self, prefix_ids: Sequence[int]) -> np.ndarray:
        xgr = _import()
        m = xgr.GrammarMatcher(self.compiled)
        for t in check_prefix(prefix_ids, self.vocab_size, self.eos_id):
            if not m.accept_token(t):
                return np.zeros(self.vocab_size, dtype=bool)
        bitmask = xgr.allocate_token_bitmask(1, self.n_vocab)
        m.fill_next_token_bitmask(bitmask)
        words = bitmask[0].numpy().astype(np.uint32).view(np.uint8).tobytes()
        bits = np.unpackbits(np.frombuffer(words, dtype=np.uint8), bitorder="little")
        return bits[:self.vocab_size].astype(bool)


class XgrammarCompiled(Compiled):
    def __init__(self, source: Source):
        self.source = source
        comp, _ = compiler([bytes([b]) for b in range(256)], None)
        self.compiled = compile_source(comp, source)

    def _consume(self, data: bytes):
        m = _import().GrammarMatcher(self.compiled)
        for b in data:
            if not m.accept_token(b):
                return None
        return m

    def accepts(self, doc: bytes) -> bool:
        m = self._consume(doc)
        return m is not None and bool(m.accept_token(256)) and bool(m.is_terminated())

    def viable(self, prefix: bytes) -> bool:
        return self._consume(prefix) is not None

    def masker(self, vocab, eos_id) -> XgrammarMasker:
        return XgrammarMasker(self.source, check_vocab(vocab, eos_id), eos_id)


class Xgrammar(Peer):
    name = "xgrammar"
    can_schema = True
    can_mask = True
    notes = "GrammarMatcher over 256 byte tokens for accepts; over the vocabulary for masks"

    def __init__(self):
        self.version = package_version("xgrammar", _import())
        self.api = "xgrammar:TokenizerInfo(VocabType.RAW), GrammarCompiler, GrammarMatcher, allocate_token_bitmask"

    def compile_regex(self, pattern: str) -> XgrammarCompiled:
        return XgrammarCompiled(Source.regex(pattern))

    def compile_schema(self, schema: dict[str, Any]) -> XgrammarCompiled:
        return XgrammarCompiled(Source(kind="schema", text=json.dumps(schema)))
