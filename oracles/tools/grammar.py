"""The grammar of an answer, per ``tool_choice`` (the spec's section 2.4).

A call is written ``<tool_call>{"name":"<name>","arguments":<object>}</tool_call>``
in compact JSON, ``<object>`` in the language of the tool's ``parameters``
(the reference's ``json_schema_to_regex``). ``grammar(request)`` gives
``Grammar(pattern, trigger)`` or ``None`` (free text):

====================  ==========================================================
tool_choice           grammar
====================  ==========================================================
named ``f``           exactly one call of ``f``, from the first token
``"required"``        one call of any tool; with ``parallel_tool_calls`` one to
                      ``MAX_PARALLEL_CALLS`` calls separated by ``\\n``
``"auto"``            free text; once the output ends with ``trigger``
                      (``<tool_call>``), ``pattern`` is the rest of one call
``"none"``            ``None``, or ``json_object_regex(3)`` with
                      ``response_format: json_object``
====================  ==========================================================

Guarantee: the language of ``pattern`` (after ``trigger`` when there is one) holds
exactly the calls the choice allows, each a whole call whose arguments are valid
under the tool's schema; ``tests/oracles/test_tools_grammar.py`` checks it against the
derivative oracle and jsonschema.

Example::

    >>> call_pattern("f", r"\\{\\}")
    '<tool_call>\\\\{\\\\"name\\\\":\\\\"f\\\\",\\\\"arguments\\\\":(?:\\\\{\\\\})\\\\}</tool_call>'
"""

from __future__ import annotations

from dataclasses import dataclass

from .wire import json_quote

TRIGGER = "<tool_call>"
CLOSER = "</tool_call>"
SEPARATOR = "\n"
MAX_PARALLEL_CALLS = 4
"""Calls in one answer under ``"required"`` with ``parallel_tool_calls`` (the spec's four)."""
JSON_OBJECT_DEPTH = 3
"""Nesting of ``response_format: json_object`` (all JSON objects are not a regular language)."""
MAX_JSON_OBJECT_DEPTH = 4
"""``json_object_regex`` refuses deeper nesting: the pattern grows about fivefold with every level (28 kB at 3)."""

_REGEX_SPECIAL = set("\\.^$|?*+()[]{}-\"#&~")


@dataclass(frozen=True)
class Grammar:
    """``pattern``: a regex of the subset; ``trigger``: ``None`` when the pattern applies
    from the first token, else the text after which it applies (``"<tool_call>"``)."""

    pattern: str
    trigger: str | None = None


def escape(text: str) -> str:
    """A pattern matching exactly the UTF-8 bytes of ``text`` (metacharacters and ``"``
    backslashed, other printable ASCII kept, every other byte ``\\xHH``).
    E.g. ``escape('{"a"}') == '\\\\{\\\\"a\\\\"\\\\}'``."""
    out = []
    for b in text.encode("utf-8"):
        ch = chr(b)
        if ch in _REGEX_SPECIAL:
            out.append("\\" + ch)
        elif 0x20 < b < 0x7F:
            out.append(ch)
        else:
            out.append(f"\\x{b:02x}")
    return "".join(out)


def body_pattern(name: str, arguments_pattern: str) -> str:
    """A call after its opener: ``{"name":"<name>","arguments":<args>}</tool_call>``."""
    head = escape('{"name":' + json_quote(name) + ',"arguments":')
    return f"{head}(?:{arguments_pattern}){escape('}' + CLOSER)}"


def call_pattern(name: str, arguments_pattern: str) -> str:
    """One whole call: the opener, then ``body_pattern``."""
    return escape(TRIGGER) + body_pattern(name, arguments_pattern)


def _any_of(patterns: list[str]) -> str:
    return patterns[0] if len(patterns) == 1 else "(?:" + "|".join(patterns) + ")"


def _arguments(tool) -> str:
    """A tool's arguments pattern: the one ``parse_tool_request`` validated, or (for a
    ``Tool`` built by hand) the reference's translation of its ``parameters``."""
    if tool.pattern:
        return tool.pattern
    from oracles.automaton import json_schema_to_regex

    return json_schema_to_regex(tool.parameters)


def grammar(request) -> Grammar | None:
    """The grammar of the answer to ``request`` (a ``ToolRequest``; see the module docstring)."""
    choice = request.choice
    tools = request.tools
    if choice.kind == "named":
        tool = request.tool(choice.name)
        if tool is None:  # parse_tool_request refuses this; a hand-built request may not
            raise ValueError(f"tool_choice names {choice.name!r}, which is not in the request's tools")
        return Grammar(call_pattern(tool.name, _arguments(tool)))
    if choice.kind == "required":
        one = _any_of([call_pattern(t.name, _arguments(t)) for t in tools])
        if request.parallel:
            return Grammar(f"{one}(?:{escape(SEPARATOR)}{one}){{0,{MAX_PARALLEL_CALLS - 1}}}")
        return Grammar(one)
    if choice.kind == "auto" and tools:
        return Grammar(_any_of([body_pattern(t.name, _arguments(t)) for t in tools]), TRIGGER)
    if request.response_format == "json_object":
        return Grammar(json_object_regex(JSON_OBJECT_DEPTH))
    return None


def _scalars() -> str:
    from oracles.automaton import json_schema_to_regex

    kinds = ("string", "number", "boolean", "null")
    return "|".join(json_schema_to_regex({"type": k}) for k in kinds)


def json_object_regex(depth: int) -> str:
    """Compact JSON objects nested at most ``depth`` levels (objects and arrays count;
    ``depth`` 1 is an object of scalars). E.g. with depth 1 ``{"a":[1]}`` is refused,
    with depth 2 it is allowed; arrays, scalars and broken objects never match.
    ValueError unless ``1 <= depth <= MAX_JSON_OBJECT_DEPTH``."""
    if isinstance(depth, bool) or not isinstance(depth, int):
        raise TypeError(f"depth must be an int, not {type(depth).__name__}")
    if not 1 <= depth <= MAX_JSON_OBJECT_DEPTH:
        raise ValueError(f"depth {depth} is outside 1..MAX_JSON_OBJECT_DEPTH={MAX_JSON_OBJECT_DEPTH}")
    from oracles.automaton import json_schema_to_regex

    string = json_schema_to_regex({"type": "string"})
    value = _scalars()  # values inside the innermost level
    for _ in range(depth - 1):
        obj = rf"\{{(?:{string}:(?:{value})(?:,{string}:(?:{value}))*)?\}}"
        arr = rf"\[(?:(?:{value})(?:,(?:{value}))*)?\]"
        value = f"{value}|{obj}|{arr}"
    return rf"\{{(?:{string}:(?:{value})(?:,{string}:(?:{value}))*)?\}}"
