"""One answer of the reference server: tokens drawn from the model under the request's grammar.

``Engine(vocabulary)`` holds what every request shares: the vocabulary, the
``RandomLogitModel``, the free-text mask and an ``IndexCache`` (one ``TokenIndex``
per grammar pattern over this vocabulary, built on first use, at most
``INDEX_CACHE_SIZE`` kept, least recently used dropped first).

``Engine.generate(grammar, params, max_tokens, seed)`` is a ``Generation``: iterate it
for the text pieces (one per token, UTF-8 decoded incrementally, so a character split
across tokens comes out whole), then read ``finish`` (``"stop"`` or ``"length"``) and
``tokens``. The grammar (``oracles.tools.Grammar`` or None) decides the mask:

- ``None``: free text; every token but the specials, and EOS;
- no trigger: ``constrained_sample`` under ``Constraint(index)`` from the first token;
- a trigger (``"auto"``): free text until the output ends with the trigger, then
  ``Constraint(index)`` for the rest of one call. A token that carries the trigger
  and more (e.g. ``<tool_call>{``) is free text: only an output ending exactly in
  the trigger starts the call;
- a grammar complete with no token left to allow (a vocabulary without EOS) ends
  the answer with ``stop``.

Guarantees: at most ``max_tokens`` tokens (``1 <= max_tokens <= MAX_TOKENS_CAP``); a
constrained answer that ends with ``stop`` is a whole string of the grammar's
language (the constraint refuses every other token); the same seed gives the same
tokens (the model's logits and the sampler's draws come from one generator seeded
with the request's seed and the prompt).

Example::

    engine = Engine(load_vocabulary("cl100k_base"))
    generation = engine.generate(Grammar(call_pattern), SamplingParams(), 256, seed=7)
    text = "".join(generation)     # '<tool_call>{"name":"get_weather",...}</tool_call>'
    generation.finish              # 'stop'
"""

from __future__ import annotations

import codecs
import collections
import hashlib
import threading
from typing import Iterator

import numpy as np

from harness.serve.model import RandomLogitModel, Vocabulary
from oracles.automaton import (Constraint, SamplingParams, TokenIndex, apply_mask, constrained_sample,
                               regex_to_dfa, sample)

MAX_TOKENS_DEFAULT = 256
"""max_tokens of a request that does not say."""
MAX_TOKENS_CAP = 4096
"""The largest max_tokens a request may ask for (a larger one is refused with 400)."""
INDEX_CACHE_SIZE = 16
"""Token indexes kept (one per grammar pattern); the least recently used goes first."""


class IndexCache:
    """``get(pattern) -> TokenIndex`` over one vocabulary, bounded and thread-safe."""

    def __init__(self, tokens, eos_id: int, maxsize: int = INDEX_CACHE_SIZE) -> None:
        self.tokens, self.eos_id, self.maxsize = list(tokens), eos_id, maxsize
        self._indexes: collections.OrderedDict[str, TokenIndex] = collections.OrderedDict()
        self._lock = threading.Lock()
        self.builds = 0

    def get(self, pattern: str) -> TokenIndex:
        with self._lock:  # one build at a time: two requests for one grammar share it
            index = self._indexes.get(pattern)
            if index is None:
                index = TokenIndex(regex_to_dfa(pattern), self.tokens, self.eos_id)
                self.builds += 1
                self._indexes[pattern] = index
                while len(self._indexes) > self.maxsize:
                    self._indexes.popitem(last=False)
            self._indexes.move_to_end(pattern)
            return index


def request_rng(seed: int, prompt: str) -> np.random.Generator:
    """The generation's one generator: seeded by the request's seed and its prompt."""
    digest = int.from_bytes(hashlib.sha256(prompt.encode("utf-8")).digest()[:8], "big")
    return np.random.default_rng([seed % 2**64, digest])


class Engine:
    """What every request shares (see the module docstring)."""

    def __init__(self, vocabulary: Vocabulary) -> None:
        self.vocabulary = vocabulary
        self.model = RandomLogitModel(vocabulary.tokens, vocabulary.eos_id)
        self.indexes = IndexCache(vocabulary.tokens, vocabulary.eos_id)
        free = np.array([bool(t) for t in vocabulary.tokens], np.bool_)
        free[vocabulary.eos_id] = True
        free.setflags(write=False)
        self.free_mask = free
        self.step_lock = threading.Lock()  # TokenIndex fills its per-state cache lazily

    def generate(self, grammar, params: SamplingParams, max_tokens: int, seed: int, prompt: str = "") -> "Generation":
        if not 1 <= max_tokens <= MAX_TOKENS_CAP:
            raise ValueError(f"max_tokens must be in 1..{MAX_TOKENS_CAP}, got {max_tokens}")
        index = self.indexes.get(grammar.pattern) if grammar is not None else None
        return Generation(self, index, grammar.trigger if grammar is not None else None, params, max_tokens,
                          request_rng(seed, prompt))


class Generation:
    """The pieces of one answer (iterate once); then ``finish`` and ``tokens``."""

    def __init__(self, engine: Engine, index: TokenIndex | None, trigger: str | None, params: SamplingParams,
                 max_tokens: int, rng: np.random.Generator) -> None:
        self.engine, self.index, self.params, self.max_tokens, self.rng = engine, index, params, max_tokens, rng
        self.trigger = trigger.encode("utf-8") if trigger else None
        self.constraint = Constraint(index) if index is not None and trigger is None else None
        self.finish: str | None = None
        self.tokens = 0
        self._tail = b""  # the last len(trigger) bytes of the output (auto mode)

    def __iter__(self) -> Iterator[str]:
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        tokens, eos_id = self.engine.vocabulary.tokens, self.engine.vocabulary.eos_id
        while self.tokens < self.max_tokens:
            token = self._next_token()
            if token is None or token == eos_id:
                self.finish = "stop"
                break
            self.tokens += 1
            text = decoder.decode(tokens[token])
            if text:
                yield text
            self._watch_trigger(tokens[token])
        else:
            self.finish = "length"
        rest = decoder.decode(b"", final=True)
        if rest:
            yield rest

    def _next_token(self) -> int | None:
        """The next token id, or None when a complete grammar allows nothing more."""
        logits = self.engine.model.logits(self.rng)
        if self.constraint is None:
            token, _ = sample(apply_mask(logits, self.engine.free_mask), self.params, (), self.rng)
            return token
        with self.engine.step_lock:
            if not self.constraint.mask().any():
                if self.constraint.is_complete():
                    return None
                raise RuntimeError(f"internal: state {self.constraint.state} is incomplete and allows nothing")
            token, _ = constrained_sample(logits, self.constraint, self.params, (), self.rng)
        return token

    def _watch_trigger(self, token_bytes: bytes) -> None:
        if self.trigger is None or self.constraint is not None:
            return
        self._tail = (self._tail + token_bytes)[-len(self.trigger):]
        if self._tail == self.trigger:
            self.constraint = Constraint(self.index)
