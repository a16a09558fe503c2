"""Benchmarks: medians (and ratios against a peer measured in the same run), never
timed tests. Run them with ``constrain-harness bench [NAME ...]``.

Each benchmark module in this package provides ``run(report: Report, quick: bool)``
and registers itself in ``BENCHMARKS`` (name -> module path, one line each).
"""

BENCHMARKS: dict[str, str] = {
    "batch": "harness.bench.batch",
    "check": "harness.bench.check",
    "compile": "harness.bench.compile",
    "corpus": "harness.bench.corpus",
    "derivatives": "harness.bench.derivatives",
    "golden": "harness.bench.golden",
    "grade-tests": "harness.bench.grade_tests",
    "masks": "harness.bench.masks",
    "mutants": "harness.bench.mutants",
    "peers": "harness.bench.peers",
    "serve": "harness.bench.serve",
    "tools": "harness.bench.tools",
    "stress": "harness.bench.stress",
    "sweep": "harness.bench.sweep",
}
