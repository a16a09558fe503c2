"""Hostile clients of the reference server, for the stress corpus (``kind: "server"``).

``run_scenario(case)`` starts the reference server on a free 127.0.0.1 port in this
process (serving the engine ``warm()`` built, if it did), warms it with a forced call
cut after one token (``WARM_CALL``), then performs the case's ``attack`` and
checks the answer against ``expect`` (an HTTP status, or ``null``: no answer, the
client left). The outcome holds only when, besides, the server answers a normal
request afterwards and logged no error or traceback. ``seconds`` is the process's CPU
time of the costliest request of the attack (the server's work: the clients here only
send and wait), the per-request bound issue 25 asks for; the detail gives the total.
The stress runner reads the peak RSS of the whole process.

Attacks (``tests/stress/corpus.json`` names them; issue 25's defects):

=============  ================================================================
``word``       one user message of ``chars`` characters of one word, non-streamed
``grammars``   ``count`` named calls of distinct tools whose arguments are arrays
               of exactly ``items`` objects, ``max_tokens`` each (many states)
``tools``      ``count`` tools whose arguments are arrays of 1,000 integers
``lie``        Content-Length 5000, 14 bytes sent, the client leaves
``declare``    Content-Length over MAX_BODY_BYTES, no body
``model``      a model name the server does not serve
=============  ================================================================

Requests go through ``http.client`` (the standard library) with a timeout; nothing
leaves 127.0.0.1 and every socket is closed.
"""

from __future__ import annotations

import http.client
import json
import logging
import socket
import time

TIMEOUT = 120.0
WEATHER_CALL = {"model": "reference", "messages": [{"role": "user", "content": "Weather in Paris?"}],
                "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {
                    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}],
                "tool_choice": {"type": "function", "function": {"name": "get_weather"}}, "max_tokens": 64,
                "seed": 0}
WARM_CALL = dict(WEATHER_CALL, max_tokens=1)
"""The call that warms a case's server before its attack: ``WEATHER_CALL`` cut after one
token. It builds what the first request builds (the grammar's index, the vocabulary's trie
when ``warm()`` did not) and goes through the server's whole request path; the normal call
after the attack is ``WEATHER_CALL`` itself (its ~38 tokens here cost ~0.15 CPU s)."""


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.bad: list[str] = []

    def emit(self, record) -> None:
        if record.levelno >= logging.ERROR or record.exc_info:
            self.bad.append(record.getMessage()[:200])


def post(port: int, body: dict | bytes) -> int:
    data = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    try:
        connection.request("POST", "/v1/chat/completions", data, {"Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def _raw(port: int, declared: int, sent: bytes, wait_answer: bool) -> int | None:
    head = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {declared}\r\n\r\n").encode("ascii")
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as sock:
        sock.sendall(head + sent)
        if not wait_answer:
            time.sleep(0.2)
            return None
        return int(sock.recv(4096).split()[1])


def _array_tool(name: str, items: dict, count: int) -> dict:
    return {"type": "function", "function": {"name": name, "parameters": {
        "type": "object", "properties": {"a": {"type": "array", "items": items, "minItems": count,
                                               "maxItems": count}}, "required": ["a"]}}}


def attack(port: int, case: dict) -> list:
    """Perform the case's attack; ``[(status or None, CPU seconds), ...]`` per request."""
    measured = []
    for request in _attack_steps(case):
        start = time.process_time()
        status = request(port)
        measured.append((status, time.process_time() - start))
    return measured


def _attack_steps(case: dict) -> list:
    """The case's requests, each a function of the port returning a status or None."""
    kind = case["attack"]
    if kind == "word":
        body = dict(WEATHER_CALL, messages=[{"role": "user", "content": "w" * case["chars"]}], tools=None,
                    tool_choice=None, max_tokens=4)
        return [lambda port: post(port, body)]
    if kind == "grammars":
        steps = []
        for k in range(case["count"]):
            items = {"type": "object", "properties": {f"x{k}": {"type": "number"}}}
            body = dict(WEATHER_CALL, tools=[_array_tool("f", items, case["items"])],
                        tool_choice={"type": "function", "function": {"name": "f"}}, max_tokens=case["max_tokens"],
                        seed=k)
            steps.append(lambda port, body=body: post(port, body))
        return steps
    if kind == "tools":
        body = dict(WEATHER_CALL, tools=[_array_tool(f"f{i}", {"type": "integer"}, 1000) for i in range(case["count"])],
                    tool_choice="auto")
        return [lambda port: post(port, body)]
    if kind == "lie":
        return [lambda port: _raw(port, 5000, b'{"messages": [', wait_answer=False)]
    if kind == "declare":
        return [lambda port: _raw(port, (1 << 20) + 1, b"", wait_answer=True)]
    if kind == "model":
        return [lambda port: post(port, dict(WEATHER_CALL, model="gpt-4o"))]
    raise ValueError(f"unknown server attack {kind!r}")


_warm_engine = None
"""The engine ``warm()`` built, until a ``run_scenario`` of this process takes it."""


def _new_engine():
    from harness.server.reference.decode import Engine
    from harness.server.reference.model import load_vocabulary

    return Engine(load_vocabulary("cl100k_base"))


def warm() -> None:
    """Build, in this process and without a server or a thread, what every case's server
    builds before its attack: the engine (the vocabulary, the model's prior) and what its
    first request builds (the vocabulary's trie; ``WEATHER_CALL``'s grammar, its index and
    the states its answer visits, its compile cost remembered). The next ``run_scenario`` of
    this process serves that engine instead of building one: ``stress.fork_main`` warms once
    and forks each case from it, so every case starts from its own copy of the same state it
    reached by itself before (its own warm-up request then finds it built). What the case
    measures is unchanged: its CPU seconds are those of the attack's requests; its peak RSS,
    counted from the child's start, includes the inherited engine (those pages are resident
    in the child from the fork), as it included the engine the case built."""
    global _warm_engine
    from harness.server.reference.app import ChatService
    from harness.server.reference.runner import tune_malloc
    from harness.server.reference.variants import Variant

    tune_malloc()  # as run_scenario: the engine's arrays allocated under the server's malloc settings
    engine = _new_engine()
    service = ChatService(engine, "reference", Variant())
    service.complete(service.plan(json.dumps(WEATHER_CALL)))
    _warm_engine = engine


def run_scenario(case: dict) -> dict:
    """``{"outcome", "contract", "detail", "seconds"}`` of one server case (see the module doc)."""
    global _warm_engine
    from harness.server.reference.app import create_app
    from harness.server.reference.runner import ServerThread, tune_malloc

    tune_malloc()
    engine, _warm_engine = _warm_engine or _new_engine(), None  # warm()'s engine serves one case only
    records = _Records()
    logger = logging.getLogger("uvicorn.error")
    with ServerThread(create_app(engine)) as server:
        logger.addHandler(records)
        try:
            post(server.port, WARM_CALL)  # warm, before the clock (see WARM_CALL)
            measured = attack(server.port, case)
            after = post(server.port, WEATHER_CALL)
        finally:
            logger.removeHandler(records)
    expected = case["expect"]
    statuses = [status for status, _ in measured]
    seconds = max(cpu for _, cpu in measured)
    answered = all(status == expected for status in statuses)
    contract = answered and after == 200 and not records.bad
    detail = (f"HTTP {statuses}, {sum(cpu for _, cpu in measured):.2f} CPU s in all"
              + ("" if answered else f", expected {expected}")
              + ("" if after == 200 else f"; then a normal request got {after}")
              + (f"; logged {records.bad[0]}" if records.bad else ""))
    return {"outcome": "ok" if contract else "error", "contract": contract, "detail": detail, "seconds": seconds}
