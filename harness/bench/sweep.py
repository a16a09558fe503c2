"""Benchmark: the exhaustive sweep, end to end, and its two oracles per pattern.

Subjects:

- ``sweep patterns``: ``run_sweep`` of every pattern of size <= 5 over {a,b}, strings up
  to 5 (one thread: the figure is CPU-bound work per pattern); the note gives patterns/s;
- ``sweep per pattern``: the reference ``regex_to_dfa`` against the derivative oracle's
  ``canonical_dfa`` over the size-4 patterns (cold: the oracle's caches cleared), the
  ratio saying which oracle the sweep waits on;
- ``sweep schemas``: ``run_sweep --schemas`` to depth 1.

    constrain-harness bench sweep [--quick]
"""

from __future__ import annotations

from harness.bench.timing import Row, measure
from harness.differential.sweep.enumerate import Grammar, patterns_by_size
from harness.differential.sweep.runner import SweepOptions, run_sweep
from oracles import derivatives
from oracles.automaton import regex_to_dfa


def run(report, quick: bool = False) -> None:
    repeat = 1 if quick else 5
    size = 4 if quick else 5
    options = SweepOptions(max_size=size, max_len=5)
    count = sum(len(v) for v in patterns_by_size(Grammar(), size).values())
    timing = measure(lambda: run_sweep(options), repeat=repeat, warmup=0)
    report.add(Row("sweep patterns", f"size <= {size}, len <= 5", timing,
                   note=f"{count} patterns, {count / timing.median_s:.0f} patterns/s"))
    fours = patterns_by_size(Grammar(), 4)[4]

    def derivative_tables():
        derivatives.clear_caches()
        for p in fours:
            derivatives.canonical_dfa(p)

    report.add(Row("sweep per pattern", "derivatives canonical_dfa", measure(derivative_tables, repeat=repeat),
                   note=f"{len(fours)} patterns of size 4"))
    report.add(Row("sweep per pattern", "reference regex_to_dfa",
                   measure(lambda: [regex_to_dfa(p) for p in fours], repeat=repeat),
                   peer_of="derivatives canonical_dfa"))
    timing = measure(lambda: run_sweep(SweepOptions(schemas=True, max_depth=1)), repeat=repeat, warmup=0)
    report.add(Row("sweep schemas", "depth <= 1", timing, note="81 schemas"))
