"""The inputs of golden/tools_golden.json: tools, request bodies, conversations, streams.

Everything ``golden.tools_build`` writes is a function of this module, a seed and
the code. Each case names the L10.9 test it serves (``test``), one of
``golden.tools_replay.CHECKS``.

The conformance tools (``CONFORMANCE_TOOLS``) are the spec's ``get_weather`` (its
section 3 schema: one required string ``city``) and ``get_forecast`` (the bench's
tool schema: ``city``, ``days`` and an optional ``units`` enum), as OpenAI tool
objects.

Example: the spec's streamed call is ``STREAMS[0]``::

    Stream("section3_hand_example", "parser_hand_example", "req7",
           ('Sure.<tool_', 'call>{"name":"get_weather","argu', 'ments":{"city":"Pa', 'ris"}}</tool_call>'))
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from facts.tools import FORECAST_PARAMETERS, HAND_STREAM_PIECES, HAND_STREAM_REQUEST_ID, WEATHER_PARAMETERS

CONFORMANCE_TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "The current weather in a city",
                                      "parameters": WEATHER_PARAMETERS}},
    {"type": "function", "function": {"name": "get_forecast", "description": "The forecast for the next days",
                                      "parameters": FORECAST_PARAMETERS}},
]
NAMED = {"type": "function", "function": {"name": "get_weather"}}


def body(**fields) -> str:
    """A request body as compact JSON text, fields in the order given."""
    return json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}], **fields},
                      separators=(",", ":"))


def _tool(name: str, parameters) -> dict:
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


def _obj(**props) -> dict:
    return {"type": "object", "properties": props}


# --------------------------------------------------------------------------- requests

@dataclass(frozen=True)
class Request:
    """A body and what ``parse_tool_request`` must answer: ``status`` 0 for a
    ToolRequest, else the error's status (and ``param``/``code`` in the file).
    ``keyword``: the schema keyword a 422's message must name. ``seed_states``:
    ``"all"`` when the spec's text decides the answer (its defaults, 400 for a malformed
    field, 422 for a schema outside the subset), ``"none"`` for the reference's own
    decision (a limit, a default, a conflict the spec does not mention); the error's
    ``param`` and ``code`` are never the spec's (a difference is a note)."""

    name: str
    body: str
    status: int = 0
    keyword: str = ""
    seed_states: str = "all"


REQUESTS: list[Request] = [
    # defaults (the spec's): auto with tools, none without; text; parallel true
    Request("defaults_without_tools", body()),
    Request("defaults_with_tools", body(tools=CONFORMANCE_TOOLS)),
    Request("nulls_are_absent", body(tools=CONFORMANCE_TOOLS, tool_choice=None, response_format=None,
                                     parallel_tool_calls=None)),
    Request("named_choice", body(tools=CONFORMANCE_TOOLS, tool_choice=NAMED)),
    Request("required_not_parallel", body(tools=CONFORMANCE_TOOLS, tool_choice="required", parallel_tool_calls=False)),
    Request("none_with_tools", body(tools=CONFORMANCE_TOOLS, tool_choice="none")),
    Request("json_object", body(response_format={"type": "json_object"})),
    Request("text_format", body(response_format={"type": "text"}, tools=CONFORMANCE_TOOLS, tool_choice="auto")),
    Request("no_parameters_means_no_arguments", body(tools=[{"type": "function", "function": {"name": "ping"}}]),
            seed_states="none"),
    Request("property_order_kept",
            '{"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":'
            '{"b":{"type":"integer"},"a":{"type":"string"}},"required":["b","a"]}}}]}'),
    # 400: malformed
    Request("body_not_json", '{"tools": [', 400),
    Request("body_not_an_object", "[]", 400),
    Request("tools_not_an_array", body(tools={"type": "function"}), 400),
    Request("tool_type_not_function", body(tools=[{"type": "retrieval"}]), 400),
    Request("tool_function_missing", body(tools=[{"type": "function"}]), 400),
    Request("tool_name_invalid", body(tools=[_tool("get weather", WEATHER_PARAMETERS)]), 400),
    Request("tool_name_too_long", body(tools=[_tool("f" * 65, WEATHER_PARAMETERS)]), 400, seed_states="none"),
    Request("tool_names_repeated", body(tools=[_tool("f", WEATHER_PARAMETERS), _tool("f", WEATHER_PARAMETERS)]), 400,
            seed_states="none"),
    Request("parameters_not_an_object_schema", body(tools=[_tool("f", {"type": "string"})]), 400, seed_states="none"),
    Request("tool_choice_unknown", body(tools=CONFORMANCE_TOOLS, tool_choice="always"), 400),
    Request("tool_choice_named_not_in_tools",
            body(tools=CONFORMANCE_TOOLS, tool_choice={"type": "function", "function": {"name": "get_time"}}), 400),
    Request("tool_choice_named_malformed", body(tools=CONFORMANCE_TOOLS, tool_choice={"type": "function"}), 400),
    Request("tool_choice_required_without_tools", body(tool_choice="required"), 400),
    Request("tool_choice_named_without_tools", body(tool_choice=NAMED), 400),
    Request("tool_choice_a_number", body(tools=CONFORMANCE_TOOLS, tool_choice=1), 400),
    Request("parallel_not_a_boolean", body(tools=CONFORMANCE_TOOLS, parallel_tool_calls="yes"), 400),
    Request("response_format_unknown", body(response_format={"type": "yaml"}), 400),
    Request("json_object_beside_callable_tools", body(tools=CONFORMANCE_TOOLS, response_format={"type": "json_object"}),
            400, seed_states="none"),
    Request("tools_over_the_limit", body(tools=[_tool(f"f{i}", _obj()) for i in range(129)]), 400, seed_states="none"),
    # 422: outside the subset, naming the keyword
    Request("parameters_pattern_keyword", body(tools=[_tool("f", _obj(city={"type": "string", "pattern": "^P"}))]), 422,
            keyword="pattern"),
    Request("parameters_min_length", body(tools=[_tool("f", _obj(city={"type": "string", "minLength": 2}))]), 422,
            keyword="minLength"),
    Request("parameters_additional_properties",
            body(tools=[_tool("f", {**_obj(a={"type": "integer"}), "additionalProperties": True})]), 422,
            keyword="additionalProperties"),
    Request("parameters_ref", body(tools=[_tool("f", _obj(a={"$ref": "#/defs/a"}))]), 422, keyword="$ref"),
    Request("parameters_one_of", body(tools=[_tool("f", _obj(a={"oneOf": [{"type": "integer"}]}))]), 422,
            keyword="oneOf"),
    Request("parameters_array_without_items", body(tools=[_tool("f", _obj(a={"type": "array"}))]), 422,
            keyword="items"),
    Request("parameters_empty_language", body(tools=[_tool("f", _obj(a={"type": "array", "items": {"type": "integer"},
                                                                        "minItems": 3, "maxItems": 2}))]), 422,
            keyword="maxItems"),
    Request("response_format_json_schema",
            body(response_format={"type": "json_schema", "json_schema": {"name": "x", "schema": {}}}), 422,
            keyword="json_schema"),
]


# --------------------------------------------------------------------------- grammars

GRAMMARS: list[tuple[str, str]] = [
    # (name, body): the grammar of each tool_choice over the conformance tools
    ("named_get_weather", body(tools=CONFORMANCE_TOOLS, tool_choice=NAMED)),
    ("required_single", body(tools=CONFORMANCE_TOOLS, tool_choice="required", parallel_tool_calls=False)),
    ("required_parallel", body(tools=CONFORMANCE_TOOLS, tool_choice="required")),
    ("auto", body(tools=CONFORMANCE_TOOLS)),
    ("none", body(tools=CONFORMANCE_TOOLS, tool_choice="none")),
    ("none_json_object", body(response_format={"type": "json_object"})),
    ("no_tools", body()),
]

W = '{"name":"get_weather","arguments":{"city":"Paris"}}'
F = '{"name":"get_forecast","arguments":{"city":"Oslo","days":3,"units":"c"}}'
F_NO_UNITS = '{"name":"get_forecast","arguments":{"city":"Oslo","days":3}}'
CALL_W, CALL_F = f"<tool_call>{W}</tool_call>", f"<tool_call>{F}</tool_call>"

GRAMMAR_WITNESSES: dict[str, tuple[list[str], list[str]]] = {
    # grammar -> (texts it accepts, texts it refuses); after the trigger for auto
    "named_get_weather": ([CALL_W, '<tool_call>{"name":"get_weather","arguments":{"city":"\\u00e9\\n"}}</tool_call>'],
                          [CALL_F, CALL_W + "\n" + CALL_W, W, CALL_W + " ", '<tool_call>{"name":"get_weather",'
                           '"arguments":{}}</tool_call>']),
    "required_single": ([CALL_W, CALL_F, f"<tool_call>{F_NO_UNITS}</tool_call>"],
                        [CALL_W + "\n" + CALL_F, "", "Sure." + CALL_W]),
    "required_parallel": ([CALL_W, CALL_W + "\n" + CALL_F, "\n".join([CALL_F] * 4)],
                          ["\n".join([CALL_F] * 5), CALL_W + CALL_F, CALL_W + "\n", ""]),
    "auto": ([W + "</tool_call>", F + "</tool_call>"], [CALL_W, W, W + "</tool_call>\n<tool_call>"]),
    "none_json_object": (['{}', '{"a":1}', '{"a":{"b":[1,null]}}', '{"a":"x","b":[true,false,-1.5e3]}'],
                         ['[]', '1', '"a"', '{"a":}', '{"a":{"b":{"c":{}}}}', '{"a":1,}']),
}
GRAMMAR_DECISIONS: dict[str, tuple[bool, list[str]]] = {
    # grammar -> (its exact language is the reference's reading, texts the reference refuses by its own reading)
    "none_json_object": (True, ['{"a":{"b":[1,{"c":null}]}}',  # arrays count as a level of nesting
                                '{ "a":1}']),                  # compact JSON, as everywhere in the subset
}


# --------------------------------------------------------------------------- conversations

@dataclass(frozen=True)
class Conversation:
    name: str
    messages: list
    with_tools: bool  # the conformance tools described, or none


CONVERSATIONS: list[Conversation] = [
    Conversation("tools_new_system_turn", [{"role": "user", "content": "Weather in Paris?"}], True),
    Conversation("tools_appended_to_first_system", [{"role": "system", "content": "Be brief."},
                                                    {"role": "user", "content": "Weather in Paris?"}], True),
    Conversation("calls_and_results_rendered_back", [
        {"role": "user", "content": "Weather in Paris and Oslo?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_a_0", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}},
            {"id": "call_a_1", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'}}]},
        {"role": "tool", "tool_call_id": "call_a_0", "content": "18 C"},
        {"role": "tool", "tool_call_id": "call_a_1", "content": "9 C"},
        {"role": "assistant", "content": "Paris 18 C, Oslo 9 C."}], True),
    Conversation("content_beside_a_call", [
        {"role": "user", "content": "Paris?"},
        {"role": "assistant", "content": "Sure.", "tool_calls": [
            {"id": "call_b_0", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}]}],
        True),
    Conversation("non_ascii_and_spaced_arguments_rendered_back", [  # arguments written back verbatim
        {"role": "user", "content": "Wetter in Z\u00fcrich?"},
        {"role": "assistant", "content": "Gern \u2600", "tool_calls": [
            {"id": "call_c_0", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city": "Z\u00fcrich" }'}}]},
        {"role": "tool", "tool_call_id": "call_c_0", "content": "18 \u00b0C"}], True),
    Conversation("no_tools_text_parts", [{"role": "user", "content": [{"type": "text", "text": "a"},
                                                                       {"type": "text", "text": "b"}]}], False),
]
BAD_CONVERSATIONS: list[tuple[str, object]] = [
    ("messages_not_an_array", {"role": "user"}),
    ("role_unknown", [{"role": "robot", "content": "x"}]),
    ("content_a_number", [{"role": "user", "content": 1}]),
    ("call_arguments_not_json", [{"role": "assistant", "content": None, "tool_calls": [
        {"type": "function", "function": {"name": "f", "arguments": "{city"}}]}]),
    ("call_arguments_an_array", [{"role": "assistant", "content": None, "tool_calls": [
        {"type": "function", "function": {"name": "f", "arguments": "[]"}}]}]),
]


# --------------------------------------------------------------------------- parser streams

@dataclass(frozen=True)
class Stream:
    """A parser input. ``seed_states`` says which recorded answers the spec's text
    decides: ``"all"``; ``"calls"`` (the calls are the spec's, the content and the
    per-piece events follow the reference's own whitespace rule: whitespace between or
    after calls separates them); ``"none"`` (the reference's own decision: JSON
    whitespace inside the markup, an unterminated call at ``finish()``). The replay
    reports a difference in what the spec does not decide as a note, not a failure."""

    name: str
    test: str
    request_id: str
    pieces: tuple[str, ...]
    seed_states: str = "all"


HAND = HAND_STREAM_PIECES  # 002 section 3's streamed call (facts.tools)
STREAMS: list[Stream] = [
    Stream("section3_hand_example", "parser_hand_example", HAND_STREAM_REQUEST_ID, HAND),
    Stream("a_less_than_b", "parser_holds_back_only_real_markup", "r", ("a<b",)),
    Stream("a_trailing_partial_opener", "parser_holds_back_only_real_markup", "r", ("a<tool",)),
    Stream("a_partial_opener_then_text", "parser_holds_back_only_real_markup", "r", ("x <tool_", "cal", "l me")),
    Stream("an_opener_without_a_header", "parser_holds_back_only_real_markup", "r", ("<tool_call>hello",)),
    Stream("an_opener_with_a_broken_header", "parser_holds_back_only_real_markup", "r",
           ('<tool_call>{"name":', '1,"arguments":{}}</tool_call> ok')),
    Stream("an_opener_at_the_end", "parser_holds_back_only_real_markup", "r", ("see <tool_call>",)),
    Stream("a_closer_in_text", "parser_holds_back_only_real_markup", "r", ("</tool_call> <", "/b>")),
    Stream("braces_and_escapes_in_arguments", "parser_hand_example", "r",
           ('<tool_call>{"name":"f","arguments":{"q":"a}', 'b\\', '"{","n":{"x":[1]}}', '}</tool_call>')),
    Stream("two_calls_newline", "parser_parallel_calls", "req9",
           (CALL_W[:30], CALL_W[30:] + "\n" + CALL_F[:7], CALL_F[7:]), "calls"),
    Stream("four_calls", "parser_parallel_calls", "p", ("\n".join([CALL_W, CALL_F, CALL_W, CALL_F]),), "calls"),
    Stream("text_after_a_call", "parser_parallel_calls", "p", (CALL_W + "\nDone.",), "calls"),
    Stream("hermes_whitespace", "parser_parallel_calls", "h",
           ('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',), "none"),
    Stream("whitespace_before_a_false_opener_after_a_call", "parser_parallel_calls", "r",
           (CALL_W + "\n<tool_", "call>hello"), "calls"),
    Stream("unterminated_call_at_finish", "parser_holds_back_only_real_markup", "u",
           ('<tool_call>{"name":"get_weather","arguments":{"city":"Pa',), "none"),
    Stream("split_everywhere_hand", "parser_is_split_invariant", "req7", ("".join(HAND),)),
    Stream("split_everywhere_parallel", "parser_is_split_invariant", "s", ("ok " + CALL_W + "\n" + CALL_F,), "calls"),
    Stream("split_everywhere_markup_lookalikes", "parser_is_split_invariant", "s",
           ('a<b <tool <tool_call>x</tool_call> <tool_call>{"name":"f","arguments":{"s":"}\\"{"}}</tool_call>',)),
    # format version 2: non-ASCII text and arguments with JSON whitespace (passed on verbatim)
    Stream("non_ascii_text_and_spaced_arguments", "parser_hand_example", "r",  # arguments passed on verbatim
           ("Voil\u00e0 \u2600 <tool_", 'call>{"name":"get_weather","arguments":{"city": "Z\u00fc',
            'rich", "days" : 3}}</tool_call>')),
    Stream("split_everywhere_non_ascii", "parser_is_split_invariant", "s",
           ('\u65e5\u672c <tool_call>{"name":"get_weather","arguments":{"city": "Z\u00fcrich\u2600"}}</tool_call>',)),
    # malformed markup (issue 52): a call whose closer is broken, and the text after it. The seed (002
    # section 2.5): the arguments stream until the value closes, "then it consumes }</tool_call>"; what
    # is not that closer is outside the call, where the parser "emits text". So the call is whole (its
    # events are already out) and the rest is content. With the header's } missing nothing of the
    # closer is consumed: the spec decides every event ("all"). Where part of a broken closer could be
    # read as consumed (the "}" before a misspelt </tool_call>), the calls are the spec's and the
    # content the reference's ("calls"). The first two are the braces case of format version 1,
    # whose extra "}" broke the closer, restored beside its corrected form.
    Stream("a_call_missing_its_closing_brace", "parser_holds_back_only_real_markup", "r",
           ('<tool_call>{"name":"get_weather","arguments":{"city":"Paris"}</tool_call> ok',)),
    Stream("a_call_missing_its_closing_brace_in_pieces", "parser_holds_back_only_real_markup", "req7",
           ('Sure.<tool_', 'call>{"name":"get_weather","argu', 'ments":{"city":"Pa', 'ris"}</tool_call> ok')),
    Stream("braces_and_escapes_then_a_broken_closer", "parser_holds_back_only_real_markup", "r",
           ('<tool_call>{"name":"f","arguments":{"q":"a}', 'b\\', '"{","n":{"x":[1]}}}', '}</tool_call>'), "calls"),
    Stream("a_misspelt_closer_then_text", "parser_holds_back_only_real_markup", "r",
           ('<tool_call>{"name":"get_weather","arguments":{"city":"Paris"}}</tool_cal> ok',), "calls"),
    Stream("a_closer_cut_by_text", "parser_holds_back_only_real_markup", "r",
           ('<tool_call>{"name":"f","arguments":{}}</tool_', 'x> tail'), "calls"),
    Stream("text_instead_of_a_closer", "parser_holds_back_only_real_markup", "r",
           ('<tool_call>{"name":"get_weather","arguments":{"city":"Paris"}', ' and </tool_call> text'), "calls"),
    Stream("a_broken_closer_then_a_second_call", "parser_holds_back_only_real_markup", "r",
           ('<tool_call>{"name":"get_weather","arguments":{"city":"Paris"}}</tool_cal>\n<tool_call>{"name":'
            '"get_forecast","arguments":{"city":"Oslo"}}</tool_call>',), "calls"),
    Stream("split_everywhere_broken_closers", "parser_is_split_invariant", "s",
           ('<tool_call>{"name":"f","arguments":{"a":1}</tool_call> x <tool_call>{"name":"g","arguments":{}}'
            '</tool_cal> y',), "calls"),
]
RANDOM_SPLITS = 200
"""Seeded random splits recorded per split-invariance stream, the spec's count (the
replay also folds every 2-way split)."""


# --------------------------------------------------------------------------- forced-call walks

FORCED_WALKS = 40
"""Seeded walks of a random-logit model under the named choice get_weather."""
FORCED_LIMIT = 600
"""A walk longer than this many tokens is a finding (the builder refuses to write)."""
