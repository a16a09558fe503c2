"""Benchmark: regex (and schema) to canonical DFA, ours against interegular.

Subjects: the tool schema of issue 2 (city, days, units) and a larger schema
(8 properties, an array with bounds, a nested object, anyOf, enums). The peer is
interegular's ``parse_pattern(p).to_fsm().reduce()`` on the same regex, when the
optional extra ``peers`` is installed. Targets: the tool schema in <= 10 ms median;
ours <= 0.33 x interegular.
"""

from __future__ import annotations

from facts.tools import FORECAST_PARAMETERS
from harness.bench.timing import Row, measure
from harness.peers.interegular_peer import compile_fsm
from oracles.automaton import json_schema_to_regex, regex_to_dfa

TOOL_SCHEMA = FORECAST_PARAMETERS  # the tool schema of issue 2: city, days, units (facts.tools)
LARGE_SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "name": {"type": "string"},
        "score": {"type": "number"},
        "active": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 4},
        "owner": {"type": "object", "properties": {"login": {"type": "string"}, "uid": {"type": "integer"}},
                  "required": ["login"]},
        "kind": {"anyOf": [{"enum": ["user", "bot", "org"]}, {"type": "null"}]},
        "level": {"enum": [1, 2, 3, "max"]},
    },
    "required": ["id", "name", "tags"],
}
SUBJECTS = {"tool schema": TOOL_SCHEMA, "large schema": LARGE_SCHEMA}


def interegular_compile():
    """The peer adapter's compile (``harness.peers.interegular_peer.compile_fsm``), or
    None when interegular is not installed."""
    try:
        import interegular  # noqa: F401
    except ImportError:
        return None
    return compile_fsm


def run(report, quick: bool = False) -> None:
    repeat = 5 if quick else 21
    peer = interegular_compile()
    for name, schema in SUBJECTS.items():
        pattern = json_schema_to_regex(schema)
        bench = f"compile {name}"
        target = "<= 10 ms" if name == "tool schema" else ""
        dfa = regex_to_dfa(pattern)
        report.add(Row(bench, "ours regex_to_dfa", measure(lambda: regex_to_dfa(pattern), repeat=repeat),
                       note=f"{dfa.n_states} states", target=target))
        report.add(Row(bench, "ours schema+regex_to_dfa",
                       measure(lambda: regex_to_dfa(json_schema_to_regex(schema)), repeat=repeat)))
        if peer is None:
            print("  interegular not installed (pip install '.[peers]'): no ratio", file=report.out)
            continue
        report.add(Row(bench, "interegular", measure(lambda: peer(pattern), repeat=max(3, repeat // 3)),
                       peer_of="ours regex_to_dfa", target="ours/peer <= 0.33"))
