"""Benchmark: the derivative oracle, cold, against the reference in the same run.

Subjects (issue 4's performance targets; the golden generator depends on both):

- ``derivatives dfa tool schema``: ``canonical_dfa`` of the tool schema's regex
  (``facts.tools.FORECAST_PARAMETERS``) and of a larger tool-call schema; target
  <= 2 s median. Peer: the reference ``regex_to_dfa`` on the same regex.
- ``derivatives masks path``: the masks of the golden files' 123-token vocabulary
  at each of the 61 prefixes of a 60-byte document of the tool schema; target <= 1 s
  median. Peer: the reference ``TokenIndex`` (compile + masks along the same path).

Every repetition starts cold: the oracle's caches are cleared and its terms
collected before the clock starts, so memoization from an earlier repetition never
flatters the median.

    constrain-harness bench derivatives [--quick]
"""

from __future__ import annotations

import gc
import statistics
import time
from typing import Callable

from facts.tools import FORECAST_PARAMETERS as TOOL_SCHEMA
from harness.bench.timing import Row, Timing
from oracles import derivatives

CALL_SCHEMA = {  # a tool call as the engine writes it: name, then arguments
    "type": "object",
    "properties": {
        "name": {"const": "get_weather"},
        "arguments": {"type": "object", "properties": {
            "city": {"type": "string"}, "days": {"type": "integer"},
            "unit": {"enum": ["celsius", "fahrenheit"]}, "hourly": {"type": "boolean"},
            "lat": {"type": "number"},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3}},
            "required": ["city"], "additionalProperties": False},
    },
    "required": ["name", "arguments"],
}
PATH = '{"city":"Oslo \u00e9t\u00e9 \\"nord\\" \\u00f8st, S\u00f8r","days":14,"units":"c"}'.encode()[:60]
assert len(PATH) == 60


def vocabulary() -> tuple[list[bytes | None], int]:
    """The golden files' 123-entry vocabulary (printable bytes, multi-byte and UTF-8
    tokens and fragments, a special, the empty token, EOS)."""
    from golden.cases import CONSTRAIN_EOS, CONSTRAIN_VOCAB
    return list(CONSTRAIN_VOCAB), CONSTRAIN_EOS


def cold(fn: Callable[[], object], repeat: int) -> Timing:
    """Median of ``repeat`` runs of ``fn``, each after clearing the oracle's caches."""
    samples = []
    for _ in range(repeat):
        derivatives.clear_caches()
        gc.collect()
        start = time.perf_counter_ns()
        fn()
        samples.append((time.perf_counter_ns() - start) / 1e9)
    return Timing(statistics.median(samples), min(samples), repeat)


def derivative_masks(pattern: str, vocab, eos_id) -> None:
    oracle = derivatives.Oracle(pattern)
    for i in range(len(PATH) + 1):
        oracle.mask(vocab, eos_id, PATH[:i])


def reference_masks(pattern: str, vocab, eos_id) -> None:
    from oracles.automaton import TokenIndex, regex_to_dfa
    dfa = regex_to_dfa(pattern)
    index = TokenIndex(dfa, vocab, eos_id)
    for i in range(len(PATH) + 1):
        index.mask(dfa.step(0, PATH[:i]))


def run(report, quick: bool = False) -> None:
    from oracles.automaton import json_schema_to_regex, regex_to_dfa
    repeat = 3 if quick else 9
    for name, schema in {"tool schema": TOOL_SCHEMA, "call schema": CALL_SCHEMA}.items():
        pattern = json_schema_to_regex(schema)
        bench = f"derivatives dfa {name}"
        trans, _ = derivatives.canonical_dfa(pattern)
        report.add(Row(bench, "derivatives canonical_dfa",
                       cold(lambda: derivatives.Oracle(pattern).canonical_dfa(), repeat),
                       note=f"{trans.shape[0]} states, regex {len(pattern)} chars", target="<= 2 s"))
        report.add(Row(bench, "reference regex_to_dfa", cold(lambda: regex_to_dfa(pattern), repeat),
                       peer_of="derivatives canonical_dfa"))
    vocab, eos_id = vocabulary()
    pattern = json_schema_to_regex(TOOL_SCHEMA)
    assert derivatives.viable(pattern, PATH), "the benchmark path must stay in the language"
    bench = "derivatives masks path"
    report.add(Row(bench, "derivatives Oracle.mask", cold(lambda: derivative_masks(pattern, vocab, eos_id), repeat),
                   note=f"{len(vocab)} tokens x {len(PATH) + 1} prefixes", target="<= 1 s"))
    report.add(Row(bench, "reference TokenIndex", cold(lambda: reference_masks(pattern, vocab, eos_id), repeat),
                   peer_of="derivatives Oracle.mask"))
