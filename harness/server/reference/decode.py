"""One answer of the reference server: tokens drawn from the model under the request's grammar.

``Engine(vocabulary)`` holds what every request shares: the vocabulary, the
``RandomLogitModel``, the free-text mask, an ``IndexCache`` (one ``BoundedTokenIndex``
per grammar pattern over this vocabulary, built on first use; at most ``CACHE_BYTES``
in all, each index charged its DFA tables and its ``ROWS_BYTES`` of per-state rows,
least recently used dropped first) and a ``CompileBudget`` (the CPU seconds each tool
pattern cost to compile, remembered, so a request's tools are charged before they are
compiled again; issue 25).

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
import time
from typing import Iterator

import numpy as np

from harness.server.reference.model import RandomLogitModel, Vocabulary
from oracles.automaton import (
    Constraint,
    SamplingParams,
    TokenIndex,
    apply_mask,
    constrained_sample,
    regex_to_dfa,
    sample,
)

MAX_TOKENS_DEFAULT = 256
"""max_tokens of a request that does not say."""
MAX_TOKENS_CAP = 4096
"""The largest max_tokens a request may ask for (a larger one is refused with 400)."""
ROWS_BYTES = 32 << 20
"""Bytes of per-state rows (masks, their (token, target) pairs, dense target rows) one
grammar's index keeps; the oldest states' rows are dropped beyond (they are recomputed
when visited again). Without it a grammar with many states (``minItems`` 1000) keeps
~1 MB per visited state: 4,096 tokens of one answer held 1.2 GB (issue 25)."""
CACHE_BYTES = 256 << 20
"""Bytes the index cache may hold: each index is charged its DFA tables plus its
``ROWS_BYTES``, so the cache holds at most ``CACHE_BYTES`` whatever the grammars."""
COMPILE_BUDGET_SECONDS = 4.0
"""CPU seconds one request's tool schemas may cost to compile (measured once per
pattern and remembered); a request over it is refused with 400 before its grammar
is built."""
COMPILE_MEMO_BYTES = 4 << 20
"""Bytes of pattern text the compile-cost memo keeps (the oldest patterns go first)."""


class RowStore(dict):
    """A dict of per-state rows whose values' bytes, added over every store of one
    ``Meter``, stay within the meter's budget: inserting past it drops whole states
    (the oldest first) from every store of the meter, never the state being inserted.

    Invariant kept for ``TokenIndex``: a state has its mask row exactly when it has its
    (token, target) pairs, and a target row only when it has both (a state is dropped
    from all three stores at once)."""

    def __init__(self, meter: "Meter") -> None:
        super().__init__()
        self.meter = meter
        meter.stores.append(self)

    def __setitem__(self, state, value) -> None:
        if state in self:
            self.meter.bytes -= _nbytes(dict.__getitem__(self, state))
        dict.__setitem__(self, state, value)
        self.meter.bytes += _nbytes(value)
        self.meter.trim(keep=state)

    def __delitem__(self, state) -> None:
        self.meter.bytes -= _nbytes(dict.__getitem__(self, state))
        dict.__delitem__(self, state)


def _nbytes(value) -> int:
    if isinstance(value, tuple):
        return sum(part.nbytes for part in value)
    return value.nbytes


class Meter:
    """The bytes of one index's row stores and their budget (see RowStore)."""

    def __init__(self, budget: int) -> None:
        self.budget, self.bytes, self.stores = budget, 0, []
        self.dropped = 0

    def trim(self, keep) -> None:
        if self.bytes <= self.budget:
            return
        first = self.stores[0]  # the mask rows: every cached state has one
        for state in list(first):
            if self.bytes <= self.budget:
                break
            if state == keep:
                continue
            for store in self.stores:
                if state in store:
                    del store[state]
            self.dropped += 1


class BoundedTokenIndex(TokenIndex):
    """``TokenIndex`` whose per-state caches hold at most ``rows_bytes`` bytes in all.

    The oracle's index caches every visited state's mask and pairs without bound
    (its dense target rows by count); here the three caches share one byte budget
    (``RowStore``). The rows are the same, so the masks are the oracle's."""

    def __init__(self, dfa, vocab, eos_id, rows_bytes: int = ROWS_BYTES) -> None:
        super().__init__(dfa, vocab, eos_id)
        self.meter = Meter(rows_bytes)
        self._masks, self._pairs, self._targets = RowStore(self.meter), RowStore(self.meter), RowStore(self.meter)
        self.rows_bytes = rows_bytes

    @property
    def table_bytes(self) -> int:
        return self.dfa.trans.nbytes + self.dfa.accept.nbytes

    @property
    def charge(self) -> int:
        """What the index may come to hold: its DFA tables and its row budget."""
        return self.table_bytes + self.rows_bytes


class IndexCache:
    """``get(pattern) -> TokenIndex`` over one vocabulary, bounded in bytes and thread-safe.

    Each index is charged ``BoundedTokenIndex.charge``; past ``max_bytes`` the least
    recently used indexes are dropped (an index whose charge alone is over the bound is
    refused with ValueError). Builds run outside the lock, so a slow build never blocks
    a request whose index is cached (two requests for one new grammar may both build it;
    one is kept)."""

    def __init__(self, tokens, eos_id: int, max_bytes: int = CACHE_BYTES, rows_bytes: int = ROWS_BYTES) -> None:
        self.tokens, self.eos_id = list(tokens), eos_id
        self.max_bytes, self.rows_bytes = max_bytes, rows_bytes
        self._indexes: collections.OrderedDict[str, BoundedTokenIndex] = collections.OrderedDict()
        self._lock = threading.Lock()
        self.builds = 0

    @property
    def bytes(self) -> int:
        """The cache's charge: every kept index's DFA tables and row budget."""
        with self._lock:
            return sum(index.charge for index in self._indexes.values())

    def get(self, pattern: str) -> BoundedTokenIndex:
        with self._lock:
            index = self._indexes.get(pattern)
            if index is not None:
                self._indexes.move_to_end(pattern)
                return index
        built = BoundedTokenIndex(regex_to_dfa(pattern), self.tokens, self.eos_id, self.rows_bytes)
        if built.charge > self.max_bytes:
            raise ValueError(f"the grammar's token index needs {built.charge >> 20} MiB, more than the cache's "
                             f"CACHE_BYTES={self.max_bytes >> 20} MiB")
        with self._lock:
            index = self._indexes.setdefault(pattern, built)
            self.builds += index is built
            self._indexes.move_to_end(pattern)
            total = sum(i.charge for i in self._indexes.values())
            while total > self.max_bytes and len(self._indexes) > 1:
                _, dropped = self._indexes.popitem(last=False)
                total -= dropped.charge
            return index


class CompileBudget:
    """What compiling a tool's arguments pattern costs, remembered per pattern.

    ``charge(patterns, budget, compiled)`` adds up the CPU seconds each pattern's
    ``regex_to_dfa`` took (measured with ``time.thread_time`` the first time the pattern
    is seen, in the order given, stopping at the first pattern past the budget) and
    returns the total, or raises ``OverBudget(total, seconds_so_far)`` once the total is
    over ``budget``. Patterns count once per occurrence: the request's validation
    compiles each tool, except the patterns charged that compiled without error, now or
    when first seen: ``charge`` adds them to the set ``compiled`` and the validation skips
    them (``regex_to_dfa`` is a function of the pattern, as ``IndexCache`` assumes too). A
    pattern that fails to compile costs what the failure took (the validation compiles it
    again and names the error). The memo keeps at most ``COMPILE_MEMO_BYTES`` of pattern
    text."""

    def __init__(self, memo_bytes: int = COMPILE_MEMO_BYTES) -> None:
        self.memo_bytes = memo_bytes
        self._costs: collections.OrderedDict[str, tuple[float, bool]] = collections.OrderedDict()  # seconds, ok
        self._text_bytes = 0
        self._lock = threading.Lock()

    def cost(self, pattern: str, compiled: set | None = None) -> float:
        with self._lock:
            known = self._costs.get(pattern)
            if known is not None:
                self._costs.move_to_end(pattern)
        if known is None:
            start = time.thread_time()
            try:
                regex_to_dfa(pattern)
                ok = True
            except ValueError:
                ok = False  # the request's validation reports it
            known = (time.thread_time() - start, ok)
        seconds, ok = known
        if ok and compiled is not None:
            compiled.add(pattern)
        with self._lock:
            if pattern not in self._costs:
                self._costs[pattern] = known
                self._text_bytes += len(pattern)
            while self._text_bytes > self.memo_bytes and len(self._costs) > 1:
                old, _ = self._costs.popitem(last=False)
                self._text_bytes -= len(old)
        return seconds

    def charge(self, patterns, budget: float, compiled: set | None = None) -> float:
        total = 0.0
        for pattern in patterns:
            total += self.cost(pattern, compiled)
            if total > budget:
                raise OverBudget(total)
        return total


class OverBudget(Exception):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"{seconds:.2f} CPU seconds")
        self.seconds = seconds


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
        self.compile_budget = CompileBudget()
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
