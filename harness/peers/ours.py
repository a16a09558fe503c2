"""Our reference pipeline (``oracles.automaton``) behind the peer interface.

compile: ``regex_to_dfa(pattern)``, or ``regex_to_dfa(json_schema_to_regex(schema))``;
accepts: ``dfa.matches``; viable: ``dfa.step(0, prefix) != DEAD``; masks:
``TokenIndex(dfa, vocab, eos_id)`` walked along the prefix with ``next_state``.
Any ``ValueError`` of the pipeline (outside the subset) becomes ``PeerRefused``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from harness.peers.base import Compiled, Masker, Peer, PeerRefused, Source, check_prefix, check_vocab


class OursMasker(Masker):
    def __init__(self, dfa, vocab, eos_id):
        from oracles.automaton import TokenIndex

        self.index = TokenIndex(dfa, vocab, eos_id)
        self.vocab_size = len(vocab)
        self.eos_id = eos_id

    def state_after(self, prefix_ids: Sequence[int]) -> int:
        """The DFA state after the prefix, or DEAD (-1)."""
        state = 0
        for t in check_prefix(prefix_ids, self.vocab_size, self.eos_id):
            state = self.index.next_state(state, t)
            if state < 0:
                return state
        return state

    def allowed(self, prefix_ids: Sequence[int]) -> np.ndarray:
        state = self.state_after(prefix_ids)
        if state < 0:
            return np.zeros(self.vocab_size, dtype=bool)
        return np.array(self.index.mask(state), dtype=bool)


class OursCompiled(Compiled):
    def __init__(self, source: Source, pattern: str, dfa):
        self.source = source
        self.pattern = pattern  # the regex (for a schema: json_schema_to_regex's output)
        self.dfa = dfa

    def accepts(self, doc: bytes) -> bool:
        return bool(self.dfa.matches(doc))

    def viable(self, prefix: bytes) -> bool:
        return self.dfa.step(0, prefix) >= 0

    def masker(self, vocab, eos_id) -> OursMasker:
        return OursMasker(self.dfa, check_vocab(vocab, eos_id), eos_id)

    def shortest_completion(self, prefix: bytes) -> bytes | None:
        """The shortlex-smallest ``c`` with ``prefix + c`` accepted, None if the
        prefix is dead (breadth first over states, bytes ascending)."""
        start = self.dfa.step(0, prefix)
        if start < 0:
            return None
        rows = self.dfa.trans.tolist()
        seen = {start: b""}
        frontier = [start]
        while frontier:
            nxt = []
            for s in frontier:
                if self.dfa.accept[s]:
                    return seen[s]
                for b, t in enumerate(rows[s]):
                    if t >= 0 and t not in seen:
                        seen[t] = seen[s] + bytes([b])
                        nxt.append(t)
            frontier = nxt
        return None  # unreachable for a live DFA: every state reaches an accepting one


class Ours(Peer):
    name = "ours"
    can_schema = True
    can_mask = True
    notes = "oracles.automaton: regex_to_dfa, json_schema_to_regex, TokenIndex"
    api = "oracles.automaton"

    def __init__(self):
        from harness import __version__

        self.version = __version__

    def compile_regex(self, pattern: str) -> OursCompiled:
        from oracles.automaton import regex_to_dfa

        try:
            return OursCompiled(Source.regex(pattern), pattern, regex_to_dfa(pattern))
        except ValueError as exc:
            raise PeerRefused(f"ours refused {pattern!r}: {exc}") from exc

    def compile_schema(self, schema: dict[str, Any]) -> OursCompiled:
        from oracles.automaton import json_schema_to_regex, regex_to_dfa

        try:
            pattern = json_schema_to_regex(schema)
            return OursCompiled(Source.schema(schema), pattern, regex_to_dfa(pattern))
        except ValueError as exc:
            raise PeerRefused(f"ours refused the schema: {exc}") from exc
