"""conform's own rules, without a server: the stream reassembler and the call validator
on hand-written chunks (the spec's section 3 stream and its broken shapes).

The expected answers come from the spec's text (section 2.5's delta shapes, section
3's streamed call) and jsonschema, not from the reference server.
"""

from __future__ import annotations

import pytest

from harness.server.conform.cases import TOOLS, StreamedCalls, call_problems
from harness.server.conform.verdict import CaseResult, Failure, excerpt

pytestmark = pytest.mark.unit


def chunk(delta: dict, finish: str | None = None) -> dict:
    return {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def start(index: int, name: str, id_: str) -> dict:
    return chunk({"tool_calls": [{"index": index, "id": id_, "type": "function",
                                  "function": {"name": name, "arguments": ""}}]})


def fragment(index: int, text: str) -> dict:
    return chunk({"tool_calls": [{"index": index, "function": {"arguments": text}}]})


SECTION_3 = [chunk({"role": "assistant"}), chunk({"content": "Sure."}), start(0, "get_weather", "call_req7_0"),
             fragment(0, '{"city":"Pa'), fragment(0, 'ris"}'), chunk({}, "tool_calls")]


def reassemble(chunks) -> StreamedCalls:
    streamed = StreamedCalls()
    for c in chunks:
        streamed.feed(c)
    return streamed


def test_the_specs_streamed_call_reassembles():
    streamed = reassemble(SECTION_3)
    assert streamed.problems == []
    assert "".join(streamed.content) == "Sure."
    assert [(c["id"], c["name"], c["arguments"]) for c in streamed.calls] == \
        [("call_req7_0", "get_weather", '{"city":"Paris"}')]
    assert streamed.finish_reasons == ["tool_calls"]


def test_parallel_calls_reassemble_by_index():
    streamed = reassemble([start(0, "get_weather", "a"), fragment(0, '{"city":'), start(1, "get_time", "b"),
                           fragment(1, '{"zone":"UTC"}'), fragment(0, '"Oslo"}')])
    assert streamed.problems == []
    assert [c["arguments"] for c in streamed.calls] == ['{"city":"Oslo"}', '{"zone":"UTC"}']


@pytest.mark.boundary
@pytest.mark.parametrize("chunks, rule", [
    ([chunk({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "get_weather", "arguments": ""}}]})],
     "first delta"),                                       # no "type"
    ([chunk({"tool_calls": [{"index": 0, "id": "a", "type": "function",
                             "function": {"name": "get_weather", "arguments": "{"}}]})], "first delta"),
    ([start(0, "get_weather", "")], "first delta"),       # an empty id
    ([start(1, "get_weather", "a")], "index 0..0"),       # skips index 0
    ([start(0, "get_weather", "a"), start(0, "get_weather", "a")], "later delta"),  # repeats the start
    ([start(0, "get_weather", "a"), chunk({"tool_calls": [{"index": 0, "function": {}}]})], "later delta"),
    ([{"object": "chat.completion", "choices": []}], 'object "chat.completion.chunk"'),
    ([{"object": "chat.completion.chunk"}], "choices list"),
    ([chunk({"tool_calls": [{"index": "0", "function": {}}]})], "index 0..0"),
])
def test_broken_delta_shapes_are_named(chunks, rule):
    problems = reassemble(chunks).problems
    assert problems and rule in problems[0][0]


@pytest.mark.parametrize("name, arguments, problem", [
    ("get_weather", '{"city":"Paris"}', None),
    ("get_time", '{"zone":"JST"}', None),
    ("get_stock", '{"city":"Paris"}', "not among the tools"),
    ("get_weather", '{"city":"Pa', "not JSON"),
    ("get_weather", '["Paris"]', "not a JSON object"),
    ("get_weather", "{}", "'city' is a required property"),
    ("get_time", '{"zone":"PST"}', "is not one of"),
    ("get_weather", {"city": "Paris"}, "not a JSON string"),
])
def test_call_problems_follow_jsonschema(name, arguments, problem):
    problems = call_problems(name, arguments, TOOLS)
    assert (problems == []) if problem is None else (len(problems) == 1 and problem in problems[0])


@pytest.mark.boundary
def test_excerpts_are_bounded_and_one_line():
    text = excerpt({"content": "x\n" * 10_000})
    assert len(text) <= 400 and "\n" not in text and text.endswith("...")


@pytest.mark.boundary
def test_a_case_result_agrees_with_its_failures():
    failure = Failure("tools.call: r", "req", "resp")
    with pytest.raises(ValueError, match="status 'passed' with 1 failure"):
        CaseResult("tools.call", "passed", (failure,), 1, 0.1)
    with pytest.raises(ValueError, match="status 'failed' with 0 failure"):
        CaseResult("tools.call", "failed", (), 1, 0.1)
