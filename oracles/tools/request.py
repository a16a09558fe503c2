"""The tool fields of a chat request: ``parse_tool_request(body) -> ToolRequest``.

Reads the raw request body (``wire.loads_ordered``, so a tool's property order
survives: it is part of the call's language) and validates exactly the four fields
of tool calling; every other field of the body is left to the chat route.

Defaults (the spec's, which are OpenAI's): ``tools`` ``[]``; ``tool_choice``
``"auto"`` when there are tools, else ``"none"``; ``response_format`` ``"text"``;
``parallel_tool_calls`` ``true``. A field given as ``null`` is absent.

Errors are ``ToolError(status, param, code, message)``, an Exception whose
``to_json()`` is the OpenAI error shape ``{"error": {"message", "type", "param",
"code"}}`` (``type`` is always ``"invalid_request_error"``):

- 400 ``invalid_json``: the body is not JSON, or not an object (``param`` null);
- 400 ``invalid_type`` / ``invalid_value``: a malformed field, ``param`` names it
  (``tools[1].function.name``, ``tool_choice``); an unknown ``tool_choice``, a named
  tool that is not in ``tools``, ``"required"`` or a named choice without tools, two
  tools of one name, ``response_format: json_object`` beside tools that may be called
  (the grammar could not honour both), a ``parameters`` schema whose ``type`` is not
  ``"object"`` (arguments are a JSON object);
- 422 ``unsupported_parameter``: a ``parameters`` schema outside the JSON-schema
  subset, naming the keyword and its pointer (the reference's
  ``json_schema_to_regex`` decides, and ``regex_to_dfa`` for an empty language), and
  ``response_format`` ``json_schema``: never silently a weaker language.

Bounds: at most ``MAX_TOOLS`` tools; names match ``[A-Za-z0-9_-]{1,64}`` (OpenAI's rule).

Example::

    >>> r = parse_tool_request('{"tools":[{"type":"function","function":{"name":"f",'
    ...                        '"parameters":{"type":"object","properties":{}}}}]}')
    >>> r.choice, r.response_format, r.parallel, [t.name for t in r.tools]
    (ToolChoice(kind='auto', name=None), 'text', True, ['f'])
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .wire import dumps, loads_ordered

MAX_TOOLS = 128
"""More tools than this in one request are refused (400); OpenAI's own limit."""
NAME = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")
DEFAULT_PARAMETERS = {"type": "object", "properties": {}}
"""A tool without ``parameters`` takes no arguments: ``{}`` is its only call."""


class ToolError(Exception):
    """A request the tool surface refuses: HTTP ``status`` (400 or 422), the ``param``
    at fault (``None`` for the body as a whole), an OpenAI error ``code`` and a message."""

    def __init__(self, status: int, param: str | None, code: str | None, message: str):
        super().__init__(message)
        self.status = status
        self.param = param
        self.code = code
        self.message = message

    def to_dict(self) -> dict:
        return {"error": {"message": self.message, "type": "invalid_request_error",
                          "param": self.param, "code": self.code}}

    def to_json(self) -> str:
        """The OpenAI error body, compact: ``{"error":{"message":...,"type":...,"param":...,"code":...}}``."""
        return dumps(self.to_dict())

    def __repr__(self) -> str:
        return f"ToolError({self.status}, {self.param!r}, {self.code!r}, {self.message!r})"


def _bad(param: str | None, message: str, code: str = "invalid_value") -> ToolError:
    return ToolError(400, param, code, message)


@dataclass(frozen=True)
class Tool:
    """One function the model may call. ``parameters`` is the JSON schema of its
    arguments (key order as in the request), ``pattern`` its regex (compact JSON)."""

    name: str
    description: str | None
    parameters: dict = field(compare=False)
    pattern: str = field(default="", repr=False)


@dataclass(frozen=True)
class ToolChoice:
    """``kind`` is ``"auto"``, ``"none"``, ``"required"`` or ``"named"``; ``name`` is the
    function's name for ``"named"`` and ``None`` otherwise (the spec's enum
    ``Auto | None | Required | Named(name)``). E.g. ``ToolChoice.named("f")``."""

    kind: str
    name: str | None = None

    KINDS = ("auto", "none", "required", "named")

    def __post_init__(self):
        if self.kind not in self.KINDS or (self.kind == "named") != (self.name is not None):
            raise ValueError(f"ToolChoice({self.kind!r}, {self.name!r}) is not one of {self.KINDS} "
                             "with a name exactly for 'named'")

    @classmethod
    def named(cls, name: str) -> ToolChoice:
        return cls("named", name)


AUTO, NONE, REQUIRED = ToolChoice("auto"), ToolChoice("none"), ToolChoice("required")


@dataclass(frozen=True)
class ToolRequest:
    """The validated tool fields of one request (see the module docstring for defaults)."""

    tools: list
    choice: ToolChoice
    response_format: str  # "text" or "json_object"
    parallel: bool

    def tool(self, name: str) -> Tool | None:
        return next((t for t in self.tools if t.name == name), None)


def parse_tool_request(body: str, *, compiled=frozenset()) -> ToolRequest:
    """Validate the tool fields of a raw chat-completions body (see the module docstring).

    ``compiled``: arguments patterns the caller has compiled with ``regex_to_dfa`` without
    error (the reference server's compile budget), not compiled again."""
    if not isinstance(body, str):
        raise TypeError(f"body must be a str, not {type(body).__name__}")
    try:
        doc = loads_ordered(body)
    except ValueError as exc:
        raise ToolError(400, None, "invalid_json", f"the request body is not valid JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise ToolError(400, None, "invalid_json", f"the request body must be a JSON object, not {_kind(doc)}")
    tools = _tools(doc.get("tools"), compiled)
    choice = _choice(doc.get("tool_choice"), tools)
    response_format = _response_format(doc.get("response_format"))
    parallel = doc.get("parallel_tool_calls")
    if parallel is None:
        parallel = True
    elif not isinstance(parallel, bool):
        raise _bad("parallel_tool_calls", f"parallel_tool_calls must be a boolean, not {_kind(parallel)}",
                   "invalid_type")
    if response_format == "json_object" and choice.kind != "none":
        raise _bad("response_format", "response_format json_object needs tool_choice \"none\" when tools are "
                   f"given (tool_choice is {choice.kind!r}): one answer cannot follow both grammars")
    return ToolRequest(tools, choice, response_format, parallel)


def _kind(value) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
             float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _tools(value, compiled=frozenset()) -> list[Tool]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _bad("tools", f"tools must be an array, not {_kind(value)}", "invalid_type")
    if len(value) > MAX_TOOLS:
        raise _bad("tools", f"{len(value)} tools is more than the limit MAX_TOOLS={MAX_TOOLS}")
    tools: list[Tool] = []
    for i, item in enumerate(value):
        tool = _tool(item, f"tools[{i}]", compiled)
        if any(t.name == tool.name for t in tools):
            raise _bad(f"tools[{i}].function.name", f"two tools are named {tool.name!r}")
        tools.append(tool)
    return tools


def _tool(item, where: str, compiled=frozenset()) -> Tool:
    if not isinstance(item, dict):
        raise _bad(where, f"a tool must be an object, not {_kind(item)}", "invalid_type")
    if item.get("type") != "function":
        raise _bad(f"{where}.type", f"a tool's type must be \"function\", not {dumps_or_kind(item.get('type'))}")
    fn = item.get("function")
    if not isinstance(fn, dict):
        raise _bad(f"{where}.function", f"a tool's function must be an object, not {_kind(fn)}", "invalid_type")
    name = fn.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise _bad(f"{where}.function.name", f"a function name must match [A-Za-z0-9_-]{{1,64}}, got "
                   f"{dumps_or_kind(name)}")
    description = fn.get("description")
    if description is not None and not isinstance(description, str):
        raise _bad(f"{where}.function.description", "a function description must be a string", "invalid_type")
    parameters = fn.get("parameters")
    if parameters is None:
        parameters = DEFAULT_PARAMETERS
    return Tool(name, description, parameters,
                _parameters_pattern(parameters, f"{where}.function.parameters", compiled))


def dumps_or_kind(value) -> str:
    try:
        text = dumps(value)
    except (TypeError, ValueError):
        return _kind(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _parameters_pattern(parameters, where: str, compiled=frozenset()) -> str:
    """The regex of a tool's arguments; 400 if not an object schema, 422 if outside the subset."""
    from oracles.automaton import json_schema_to_regex, regex_to_dfa

    if not isinstance(parameters, dict):
        raise _bad(where, f"parameters must be a JSON schema object, not {_kind(parameters)}", "invalid_type")
    if parameters.get("type") != "object":
        raise _bad(where, "parameters must be an object schema ({\"type\":\"object\",...}): the arguments "
                   f"of a call are a JSON object, got type {dumps_or_kind(parameters.get('type'))}")
    try:
        pattern = json_schema_to_regex(parameters)
        if pattern not in compiled:
            regex_to_dfa(pattern)  # an empty language or a bound surfaces here
    except ValueError as exc:
        # e.g. "tools[0].function.parameters: outside the supported subset: /properties/a/pattern:
        # keyword 'pattern' is not supported" (the reference's message names the keyword and its pointer)
        raise ToolError(422, where, "unsupported_parameter",
                        f"{where}: outside the supported subset: {str(exc).splitlines()[0]}") from None
    return pattern


def _choice(value, tools: list[Tool]) -> ToolChoice:
    if value is None:
        return AUTO if tools else NONE
    if isinstance(value, str):
        if value not in ("auto", "none", "required"):
            raise _bad("tool_choice", f"unknown tool_choice {dumps_or_kind(value)}: expected \"auto\", \"none\", "
                       "\"required\" or {\"type\":\"function\",\"function\":{\"name\":...}}")
        if value == "required" and not tools:
            raise _bad("tool_choice", "tool_choice \"required\" needs at least one tool in tools")
        return ToolChoice(value)
    if not isinstance(value, dict):
        raise _bad("tool_choice", f"tool_choice must be a string or an object, not {_kind(value)}", "invalid_type")
    fn = value.get("function")
    if value.get("type") != "function" or not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
        raise _bad("tool_choice", "a named tool_choice must be {\"type\":\"function\",\"function\":{\"name\":...}}, "
                   f"got {dumps_or_kind(value)}")
    name = fn["name"]
    if not any(t.name == name for t in tools):
        known = ", ".join(t.name for t in tools) or "none"
        raise _bad("tool_choice", f"tool_choice names {name!r}, which is not in tools (tools: {known})")
    return ToolChoice.named(name)


def _response_format(value) -> str:
    if value is None:
        return "text"
    if not isinstance(value, dict):
        raise _bad("response_format", f"response_format must be an object, not {_kind(value)}", "invalid_type")
    kind = value.get("type")
    if kind in ("text", "json_object"):
        return kind
    if kind == "json_schema":
        raise ToolError(422, "response_format", "unsupported_parameter",
                        "response_format json_schema is not supported; use tools with a named tool_choice")
    raise _bad("response_format.type", f"unknown response_format type {dumps_or_kind(kind)}: expected \"text\" "
               "or \"json_object\"")
