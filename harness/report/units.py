"""Quantities as a person reads them in a printed table or a chart.

``format_seconds(s)``: microseconds below 1 ms, milliseconds below 1 s, seconds above
(``format_seconds(2.5e-4) == '250.0 us'``). Shared by the benchmarks' tables
(``harness.bench.timing``) and the peers' chart (``harness.peers.plot``), which the
benchmarks import: it lives in the report layer, under both.
"""

from __future__ import annotations


def format_seconds(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"
