"""The L10.9 tool-calling surface in Python: a reference of the Rust port's ``tools.rs``.

Main access points: ``parse_tool_request(body)`` -> ``grammar(request)`` for the
decoder, ``render_prompt(...)`` for the prompt, and ``ToolParser(request_id)`` with
``collect``/``message_json``/``delta_json`` for the answer. One module per concern:

    wire      order-keeping JSON reader, Python's compact dumps, python_float, json_quote
    request   ToolRequest, Tool, ToolChoice, ToolError, parse_tool_request
    grammar   Grammar, grammar (per tool_choice), json_object_regex
    render    render_messages, render_prompt, CHATML_TEMPLATE
    parser    ToolParser and its events Content, CallStart, Arguments; ToolCall,
              collect, finish_reason, message_json, delta_json

It reaches the automaton only through the contract's names (``oracles.automaton``'s
``json_schema_to_regex``, ``regex_to_dfa``): the languages are the reference's own.

Example::

    >>> request = parse_tool_request('{"tools":[{"type":"function","function":{"name":"f"}}],'
    ...                              '"tool_choice":"required","parallel_tool_calls":false}')
    >>> grammar(request)
    Grammar(pattern='<tool_call>\\\\{\\\\"name\\\\":\\\\"f\\\\",\\\\"arguments\\\\":(?:\\\\{\\\\})\\\\}</tool_call>', trigger=None)
"""  # noqa: E501 (a doctest's expected output is one line)

from __future__ import annotations

from .grammar import Grammar, grammar, json_object_regex
from .parser import (
                     Arguments,
                     CallStart,
                     Content,
                     ToolCall,
                     ToolParser,
                     collect,
                     delta_json,
                     finish_reason,
                     message_json,
)
from .render import CHATML_TEMPLATE, render_messages, render_prompt
from .request import Tool, ToolChoice, ToolError, ToolRequest, parse_tool_request
from .wire import dumps, json_quote, loads_ordered, python_float

__all__ = [
    "Arguments", "CHATML_TEMPLATE", "CallStart", "Content", "Grammar", "Tool", "ToolCall", "ToolChoice",
    "ToolError", "ToolParser", "ToolRequest", "collect", "delta_json", "dumps", "finish_reason", "grammar",
    "json_object_regex", "json_quote", "loads_ordered", "message_json", "parse_tool_request", "python_float",
    "render_messages", "render_prompt",
]
