"""render_messages and render_prompt: tools in the system message, calls and results
rendered back the way they were generated, through a real Jinja chat template."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from golden.tools_cases import BAD_CONVERSATIONS, CONFORMANCE_TOOLS, body
from oracles.tools import (
    CHATML_TEMPLATE,
    ToolError,
    ToolParser,
    collect,
    message_json,
    parse_tool_request,
    render_messages,
    render_prompt,
)

TOOLS = parse_tool_request(body(tools=CONFORMANCE_TOOLS)).tools


@pytest.mark.unit
def test_render_messages_with_tools():
    turns = render_messages([{"role": "user", "content": "Paris?"}], TOOLS)
    assert [r for r, _ in turns] == ["system", "user"]
    assert '"name":"get_weather"' in turns[0][1] and '"name":"get_forecast"' in turns[0][1]
    assert '"properties":{"city":{"type":"string"},"days":{"type":"integer"}' in turns[0][1]  # order kept
    turns = render_messages([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "x"}], TOOLS)
    assert len(turns) == 2 and turns[0][1].startswith("Be brief.\n\n# Tools")
    assert render_messages([{"role": "user", "content": "x"}], []) == [("user", "x")]


@pytest.mark.unit
def test_a_generated_answer_renders_back_as_it_was_generated():
    generated = 'Sure.<tool_call>{"name":"get_weather","arguments":{"city":"Paris"}}</tool_call>'
    parser = ToolParser("a")
    content, calls = collect(parser.push(generated) + parser.finish())
    import json

    message = json.loads(message_json(content, calls))
    turns = render_messages([{"role": "user", "content": "Paris?"}, message,
                             {"role": "tool", "tool_call_id": calls[0].id, "content": "18 C"}], [])
    assert turns == [("user", "Paris?"), ("assistant", generated),
                     ("user", "<tool_response>\n18 C\n</tool_response>")]


@pytest.mark.unit
def test_render_prompt_through_the_chatml_template():
    prompt = render_prompt(CHATML_TEMPLATE, [{"role": "user", "content": "hi"}], TOOLS, "<s>", "</s>")
    assert prompt.startswith("<|im_start|>system\n# Tools") and prompt.endswith(
        "<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n")
    custom = "{{ bos_token }}{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}{{ eos_token }}"
    assert render_prompt(custom, [{"role": "user", "content": "hi"}], [], "<s>", "</s>") == "<s>[user]hi</s>"


@pytest.mark.boundary
@pytest.mark.parametrize("name, messages", BAD_CONVERSATIONS, ids=[n for n, _ in BAD_CONVERSATIONS])
def test_bad_messages_are_a_400_naming_the_message(name, messages):
    with pytest.raises(ToolError) as err:
        render_messages(messages, TOOLS)
    assert err.value.status == 400 and err.value.param.startswith("messages")


@pytest.mark.boundary
def test_a_broken_or_raising_template_is_a_value_error():
    with pytest.raises(ValueError, match="does not compile"):
        render_prompt("{% for %}", [], [], "", "")
    with pytest.raises(ValueError, match="no system"):
        render_prompt("{{ raise_exception('no system') }}", [], [], "", "")
    with pytest.raises(ValueError):  # the sandbox refuses attribute tricks
        render_prompt("{{ messages.__class__.__mro__ }}", [], [], "", "")


scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=4)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.sampled_from(["role", "content", "tool_calls", "function", "name", "arguments", "type", "text"]), inner,
    max_size=4), max_leaves=12)
roles = st.sampled_from(["system", "user", "assistant", "tool", "robot"])
messages = st.lists(st.fixed_dictionaries({"role": roles}, optional={"content": values, "tool_calls": values}),
                    max_size=4)


@pytest.mark.boundary
@given(messages | values)
def test_any_messages_render_or_give_a_tool_error(value):
    try:
        turns = render_messages(value, TOOLS)
    except ToolError as err:
        assert err.status == 400 and err.param.startswith("messages")
        return
    assert all(isinstance(r, str) and isinstance(c, str) for r, c in turns)
    render_prompt(CHATML_TEMPLATE, value, TOOLS, "", "")
