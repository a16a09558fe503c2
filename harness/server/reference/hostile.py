"""Hostile clients of the reference server, for the stress corpus (``kind: "server"``).

``run_scenario(case)`` starts the reference server on a free 127.0.0.1 port in this
process, warms it with a normal forced call, then performs the case's ``attack`` and
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


def run_scenario(case: dict) -> dict:
    """``{"outcome", "contract", "detail", "seconds"}`` of one server case (see the module doc)."""
    from harness.server.reference.app import create_app
    from harness.server.reference.decode import Engine
    from harness.server.reference.model import load_vocabulary
    from harness.server.reference.runner import ServerThread, tune_malloc

    tune_malloc()
    records = _Records()
    logger = logging.getLogger("uvicorn.error")
    with ServerThread(create_app(Engine(load_vocabulary("cl100k_base")))) as server:
        logger.addHandler(records)
        try:
            post(server.port, WEATHER_CALL)  # warm: the vocabulary's trie, before the clock
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
