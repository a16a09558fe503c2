"""Benchmark: the corpus verb on a collection (default ``tests/corpus``), and the peers on it.

    constrain-harness bench corpus [PATH] [--quick]

Subjects: the whole run (``run_corpus``, 10 walks per schema, one thread), its median over
the repeats; then, from one run with ``--peers`` (where installed), the median over the
schemas of each engine's compile time and time to first mask and of its per-mask times
(MaskBench's TTFM and TBM, on the golden files' 123-token vocabulary; a peer's mask call
replays its prefix, so its per-mask figure is an upper bound), ours first, the peers as
ratios against ours, all over the schemas that every installed engine compiled.
"""

from __future__ import annotations

import statistics
from pathlib import Path

from harness.bench.timing import Row, Timing, measure
from harness.differential.corpus.runner import run_corpus

DEFAULT = Path(__file__).resolve().parents[2] / "tests" / "corpus"
PEERS = ("ours", "llguidance", "outlines-core")


def run(report, quick: bool = False, path: Path | None = None) -> None:
    path = Path(path or DEFAULT)
    repeat = 1 if quick else 3
    result = None

    def once():
        nonlocal result
        result = run_corpus(path, walks=10)

    timing = measure(once, repeat=repeat, warmup=0)
    o = result.outcomes()
    n = len(result.records)
    report.add(Row("corpus run", path.name, timing,
                   note=f"{n} schemas, {o['compiled']} compiled, {n / timing.median_s:.1f} schemas/s"))
    records = run_corpus(path, walks=0, peers=PEERS).records
    engines = [name for name in PEERS if any(r["peers"].get(name, {}).get("available") for r in records)]
    common = [r for r in records if all(r["peers"].get(name, {}).get("compiled") for name in engines)]
    for name in PEERS:
        if name not in engines:
            print(f"  {name}: not installed: no row", file=report.out)
            continue
        first = [r["peers"][name]["first_mask_seconds"] for r in common]
        masks = [t for r in common for t in r["peers"][name]["mask_seconds"]]
        for label, values in (("first mask", first), ("mask", masks)):
            if not values:
                continue
            values.sort()
            report.add(Row(f"corpus {label}", name, Timing(statistics.median(values), values[0], len(values)),
                           note=f"p75 {values[int(0.75 * (len(values) - 1))] * 1e3:.3f} ms over the {len(common)} "
                                f"schemas every engine compiled",
                           peer_of=None if name == "ours" else "ours"))
