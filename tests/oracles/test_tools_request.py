"""parse_tool_request: the spec's defaults, a named choice, the 400s, and the 422 naming the keyword."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from golden.tools_cases import CONFORMANCE_TOOLS, NAMED, REQUESTS, body
from oracles.tools import ToolChoice, ToolError, parse_tool_request


@pytest.mark.unit
def test_parse_tool_request_hand_example():
    r = parse_tool_request(body())
    assert (r.tools, r.choice, r.response_format, r.parallel) == ([], ToolChoice("none"), "text", True)
    r = parse_tool_request(body(tools=CONFORMANCE_TOOLS))
    assert [t.name for t in r.tools] == ["get_weather", "get_forecast"] and r.choice == ToolChoice("auto")
    assert r.tools[1].parameters == CONFORMANCE_TOOLS[1]["function"]["parameters"]
    r = parse_tool_request(body(tools=CONFORMANCE_TOOLS, tool_choice=NAMED, parallel_tool_calls=False))
    assert (r.choice, r.parallel) == (ToolChoice.named("get_weather"), False)
    with pytest.raises(ToolError) as err:
        parse_tool_request(body(tools=CONFORMANCE_TOOLS, tool_choice={"type": "function",
                                                                      "function": {"name": "nope"}}))
    assert (err.value.status, err.value.param, err.value.code) == (400, "tool_choice", "invalid_value")
    with pytest.raises(ToolError) as err:
        parse_tool_request(body(tools=[{"type": "function", "function": {"name": "f", "parameters": {
            "type": "object", "properties": {"city": {"type": "string", "minLength": 2}}}}}]))
    assert (err.value.status, err.value.param) == (422, "tools[0].function.parameters")
    assert "'minLength'" in err.value.message and "/properties/city/minLength" in err.value.message
    shape = json.loads(err.value.to_json())
    assert shape == {"error": {"message": err.value.message, "type": "invalid_request_error",
                               "param": "tools[0].function.parameters", "code": "unsupported_parameter"}}


@pytest.mark.unit
def test_property_order_is_kept_from_the_raw_body():
    r = parse_tool_request('{"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object",'
                           '"properties":{"b":{"type":"integer"},"a":{"type":"integer"}},"required":["b","a"]}}}]}')
    assert list(r.tools[0].parameters["properties"]) == ["b", "a"]
    from oracles.automaton import regex_to_dfa

    dfa = regex_to_dfa(r.tools[0].pattern)
    assert dfa.matches(b'{"b":1,"a":2}') and not dfa.matches(b'{"a":2,"b":1}')


@pytest.mark.boundary
@pytest.mark.parametrize("case", REQUESTS, ids=lambda c: c.name)
def test_each_recorded_case_has_its_declared_status(case):
    if case.status == 0:
        parse_tool_request(case.body)
        return
    with pytest.raises(ToolError) as err:
        parse_tool_request(case.body)
    assert err.value.status == case.status
    assert err.value.message and json.loads(err.value.to_json())["error"]["code"] == err.value.code


json_scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=5)
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=3) |
                           st.dictionaries(st.sampled_from(["type", "function", "name", "parameters", "properties",
                                                            "required", "items", "x"]), inner, max_size=3),
                           max_leaves=12)


@pytest.mark.boundary
@given(st.dictionaries(st.sampled_from(["tools", "tool_choice", "response_format", "parallel_tool_calls"]),
                       json_values, max_size=4))
def test_any_body_gives_a_request_or_a_tool_error(fields):
    """Arbitrary field values: a ToolRequest or a ToolError, never another exception."""
    try:
        parse_tool_request(json.dumps(fields))
    except ToolError as err:
        assert err.status in (400, 422) and err.message


@pytest.mark.boundary
@given(st.text(max_size=40))
def test_any_text_body_gives_a_request_or_a_tool_error(text):
    try:
        parse_tool_request(text)
    except ToolError as err:
        assert err.status == 400


@pytest.mark.boundary
def test_a_wrong_python_type_is_a_type_error():
    with pytest.raises(TypeError):
        parse_tool_request(b"{}")
    with pytest.raises(ValueError):
        ToolChoice("named")
