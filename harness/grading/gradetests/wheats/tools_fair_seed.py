"""Fairness gallery, tool surface: the L10.9 ``tools.rs`` written from spec ``002_...`` alone
(sections 2.4, 2.5, 3 and 4), in Python with ``oracles.tools``' names so that
``golden replay --file tools --impl`` can grade it. It shares no code with the reference
``oracles.tools``; the schema translation is the port's ``constrain.rs``, here another gallery
member's ``json_schema_to_regex`` (``fair_thompson_moore.py`` beside this file), as the port's
``tools.rs`` calls its own ``constrain.rs``.

Its own readings where the spec leaves a choice (each one the spec allows; the replay notes
those that differ from the reference, ``tests/suite/test_fairness_tools.py``):

- the parser is a character-at-a-time state machine (outside, header, arguments, closer). The
  header is exactly the spec's compact ``{"name":"<name>","arguments":`` followed by the object's
  ``{`` (the call starts when that brace arrives): no JSON whitespace inside the markup, so a
  Hermes-style ``<tool_call>\\n{"name": ...}`` stays content. Calls are separated by the spec's
  ``\\n`` only: that one newline is held after a call and dropped when another call follows; any
  other text after a call is content. A partial closer at ``finish()`` is dropped (markup never
  reaches the content); an unterminated call keeps the arguments it had.
- content events are emitted as one event per run of text within a ``push`` (the reference may
  split a run in two).
- ``render_messages`` describes the tools in its own words (one JSON line per function) and
  re-serializes an assistant's call arguments to compact JSON (key order kept, raw UTF-8): "so a
  conversation renders the way it was generated", and the grammar generates compact JSON; a tool
  result is ``<tool_response>`` + text + ``</tool_response>`` with no inner newlines.
- ``message_json``/``delta_json`` are ``json.dumps`` with its defaults but compact separators:
  non-ASCII as ``\\uXXXX``; a message without calls has no ``tool_calls`` key.
- ``json_object_regex(depth)``: objects and arrays both count as a level, compact JSON.
- request limits of its own (``MAX_TOOLS`` 64); ``parameters`` absent means an object without
  properties; a parameters schema that is not an object schema is a 400.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

__all__ = ["Arguments", "CHATML_TEMPLATE", "CallStart", "Content", "Grammar", "Tool", "ToolCall", "ToolChoice",
           "ToolError", "ToolParser", "ToolRequest", "collect", "delta_json", "finish_reason", "grammar",
           "json_object_regex", "message_json", "parse_tool_request", "render_messages", "render_prompt",
           "vocab_bytes"]

OPENER, CLOSER, SEPARATOR = "<tool_call>", "</tool_call>", "\n"
MAX_TOOLS = 64
MAX_PARALLEL = 4
NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
MAX_NAME = 64
ROLES = ("system", "user", "assistant", "tool")
CHATML_TEMPLATE = ("{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
                   "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def _constrain_module():
    """The port's constrain.rs: the gallery's fair_thompson_moore, loaded from beside this file."""
    name = "_tools_fair_seed_constrain"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("fair_thompson_moore.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


# ---------------------------------------------------------------------------- errors and requests

class ToolError(Exception):
    """An API error: HTTP ``status``, the request field ``param`` (or None), ``code``, ``message``."""

    def __init__(self, status: int, param, code, message: str):
        super().__init__(message)
        self.status, self.param, self.code, self.message = status, param, code, message

    def to_json(self) -> str:
        kind = "invalid_request_error"
        return json.dumps({"error": {"message": self.message, "type": kind, "param": self.param, "code": self.code}})


def _invalid(param, message: str) -> ToolError:
    return ToolError(400, param, "invalid_request", message)


class Tool:
    def __init__(self, name: str, description, parameters: dict, pattern: str):
        self.name, self.description, self.parameters, self.pattern = name, description, parameters, pattern


class ToolChoice:
    """``kind``: auto, none, required or named (then ``name`` is the function)."""

    def __init__(self, kind: str, name=None):
        self.kind, self.name = kind, name


class ToolRequest:
    def __init__(self, tools, choice, response_format: str, parallel: bool):
        self.tools, self.choice, self.response_format, self.parallel = tools, choice, response_format, parallel


def _json_type(value) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number")


def parse_tool_request(body: str) -> ToolRequest:
    """The tool fields of a chat request body (raw text, so property order survives)."""
    try:
        data = json.loads(body)
    except (TypeError, ValueError) as exc:
        raise _invalid(None, f"the body is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise _invalid(None, f"the body must be a JSON object, got {_json_type(data)}")
    tools = _read_tools(data.get("tools"))
    choice = _read_choice(data.get("tool_choice"), tools)
    parallel = data.get("parallel_tool_calls", True)
    if parallel is None:
        parallel = True
    if not isinstance(parallel, bool):
        raise _invalid("parallel_tool_calls", f"parallel_tool_calls is a boolean, got {_json_type(parallel)}")
    response_format = _read_format(data.get("response_format"))
    if response_format == "json_object" and choice.kind != "none" and tools:
        raise _invalid("response_format", "json_object cannot be combined with callable tools")
    return ToolRequest(tools, choice, response_format, parallel)


def _read_tools(value) -> list[Tool]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _invalid("tools", f"tools is an array, got {_json_type(value)}")
    if len(value) > MAX_TOOLS:
        raise _invalid("tools", f"at most {MAX_TOOLS} tools, got {len(value)}")
    tools: list[Tool] = []
    for i, item in enumerate(value):
        tool = _read_tool(item, f"tools[{i}]")
        if any(t.name == tool.name for t in tools):
            raise _invalid(f"tools[{i}].function.name", f"the function name {tool.name!r} is used twice")
        tools.append(tool)
    return tools


def _read_tool(item, where: str) -> Tool:
    if not isinstance(item, dict) or item.get("type") != "function":
        got = item.get("type") if isinstance(item, dict) else item
        raise _invalid(f"{where}.type", f"{where}: only tools of type 'function' exist, got {got!r}")
    function = item.get("function")
    if not isinstance(function, dict):
        raise _invalid(f"{where}.function", f"{where}.function is an object, got {_json_type(function)}")
    name = function.get("name")
    if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME or not set(name) <= NAME_CHARS:
        raise _invalid(f"{where}.function.name", f"{where}: a function name is 1-64 of [A-Za-z0-9_-], got {name!r}")
    description = function.get("description")
    if description is not None and not isinstance(description, str):
        raise _invalid(f"{where}.function.description", "a description is a string")
    parameters = function.get("parameters")
    if parameters is None:
        parameters = {"type": "object", "properties": {}}
    param = f"{where}.function.parameters"
    if not isinstance(parameters, dict) or parameters.get("type") != "object":
        raise _invalid(param, f"{param}: the arguments of a call are an object, so parameters is an object schema")
    return Tool(name, description, parameters, _parameters_regex(parameters, param))


SUBSET_KEYWORDS = {"type", "properties", "required", "items", "minItems", "maxItems", "enum", "const", "anyOf",
                   "additionalProperties", "title", "description", "default", "examples", "$comment"}


def _unsupported_keyword(schema):
    """The first keyword outside the subset in ``schema`` (depth first), or None."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key not in SUBSET_KEYWORDS:
                return key
            if key == "additionalProperties" and value is not False:
                return key
            inner = list(value.values()) if key == "properties" and isinstance(value, dict) else \
                value if key == "anyOf" and isinstance(value, list) else [value] if key == "items" else []
            found = next((k for k in map(_unsupported_keyword, inner) if k), None)
            if found:
                return found
    return None


def _parameters_regex(parameters: dict, param: str) -> str:
    """The arguments' regex; 422 naming the keyword when the schema leaves the subset."""
    keyword = _unsupported_keyword(parameters)
    if keyword:
        raise ToolError(422, param, "unsupported_parameter", f"{param}: keyword {keyword!r} is not supported")
    try:
        return _constrain_module().json_schema_to_regex(parameters)
    except ValueError as exc:
        raise ToolError(422, param, "unsupported_parameter", f"{param}: {exc}") from None


def _read_choice(value, tools: list[Tool]) -> ToolChoice:
    if value is None:
        return ToolChoice("auto" if tools else "none")
    if isinstance(value, str):
        if value not in ("auto", "none", "required"):
            raise _invalid("tool_choice", f"tool_choice is auto, none, required or a function, got {value!r}")
        if value == "required" and not tools:
            raise _invalid("tool_choice", "tool_choice required without tools")
        return ToolChoice(value if tools or value != "auto" else "none")
    if not isinstance(value, dict):
        raise _invalid("tool_choice", f"tool_choice is a string or an object, got {_json_type(value)}")
    function = value.get("function")
    name = function.get("name") if isinstance(function, dict) else None
    if value.get("type") != "function" or not isinstance(name, str):
        raise _invalid("tool_choice", 'a named tool_choice is {"type":"function","function":{"name":...}}')
    if all(t.name != name for t in tools):
        raise _invalid("tool_choice", f"tool_choice names {name!r}, which no tool has")
    return ToolChoice("named", name)


def _read_format(value) -> str:
    if value is None:
        return "text"
    kind = value.get("type") if isinstance(value, dict) else None
    if kind == "json_schema":
        raise ToolError(422, "response_format", "unsupported_parameter", "response_format json_schema is not supported")
    if kind not in ("text", "json_object"):
        raise _invalid("response_format", f"response_format type is text or json_object, got {kind!r}")
    return kind


# ---------------------------------------------------------------------------- grammars

class Grammar:
    """``pattern`` applies from the first token, or after ``trigger`` when it is set."""

    def __init__(self, pattern: str, trigger=None):
        self.pattern, self.trigger = pattern, trigger


_META = frozenset(".^$*+?{}[]()|\\")


def _quote(text: str) -> str:
    return "".join("\\" + c if c in _META else c for c in text)


def _call_body(tool: Tool) -> str:
    """One call after the opener: header, arguments, closer."""
    return _quote('{"name":' + json.dumps(tool.name) + ',"arguments":') + f"(?:{tool.pattern})" + _quote("}" + CLOSER)


def grammar(request: ToolRequest):
    """The language per tool_choice (section 2.4), or None for free text."""
    kind = request.choice.kind
    if kind == "none" or not request.tools:
        return Grammar(json_object_regex(3)) if request.response_format == "json_object" else None
    tools = [t for t in request.tools if kind != "named" or t.name == request.choice.name]
    one = "(?:" + "|".join(_call_body(t) for t in tools) + ")"
    if kind == "auto":
        return Grammar(one, OPENER)
    call = _quote(OPENER) + one
    if kind == "required" and request.parallel:
        return Grammar(f"{call}(?:\\n{call}){{0,{MAX_PARALLEL - 1}}}")
    return Grammar(call)


def json_object_regex(depth: int) -> str:
    """Compact JSON objects with at most ``depth`` levels of objects and arrays."""
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
        raise ValueError(f"json_object_regex: depth is an int >= 1, got {depth!r}")
    translate = _constrain_module().json_schema_to_regex
    string = translate({"type": "string"})
    scalar = "|".join(translate({"type": t}) for t in ("string", "number", "boolean", "null"))
    value = scalar
    for _level in range(depth):
        members = f"{string}:(?:{value})"
        obj = f"\\{{(?:{members}(?:,{members})*)?\\}}"
        arr = f"\\[(?:(?:{value})(?:,(?:{value}))*)?\\]"
        value = f"{scalar}|{obj}|{arr}"
    return obj


# ---------------------------------------------------------------------------- rendering

def _fail_message(where: str, message: str) -> ToolError:
    return _invalid(where, f"{where}: {message}")


def _text(content, where: str, allow_null: bool) -> str:
    if content is None and allow_null:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(p, dict) and isinstance(p.get("text"), str) for p in content):
        return "".join(p["text"] for p in content)
    raise _fail_message(f"{where}.content", f"a string or a list of text parts, got {_json_type(content)}")


def _call_block(call, where: str) -> str:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        raise _fail_message(where, "a tool call is {'function': {'name': ..., 'arguments': ...}}")
    try:
        arguments = json.loads(function.get("arguments"))
    except (TypeError, ValueError):
        raise _fail_message(f"{where}.function.arguments", "arguments are not JSON") from None
    if not isinstance(arguments, dict):
        raise _fail_message(f"{where}.function.arguments", f"arguments are an object, got {_json_type(arguments)}")
    compact = json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)
    return f'{OPENER}{{"name":{json.dumps(function["name"])},"arguments":{compact}}}{CLOSER}'


def _tools_text(tools) -> str:
    lines = [json.dumps({"name": t.name, "description": t.description, "parameters": t.parameters},
                        ensure_ascii=False) for t in tools]
    return ("You have functions. To call one, answer with " + OPENER + '{"name": <function>, "arguments": '
            "<object>}" + CLOSER + ", one per line.\nFunctions:\n" + "\n".join(lines))


def _turn(message, where: str) -> tuple[str, str]:
    if not isinstance(message, dict) or message.get("role") not in ROLES:
        got = message.get("role") if isinstance(message, dict) else message
        raise _fail_message(f"{where}.role", f"the role is one of {', '.join(ROLES)}, got {got!r}")
    role, calls = message["role"], message.get("tool_calls") or []
    text = _text(message.get("content"), where, role == "assistant")
    if role == "tool":
        return "user", f"<tool_response>{text}</tool_response>"
    if not isinstance(calls, list):
        raise _fail_message(f"{where}.tool_calls", "tool_calls is an array")
    blocks = [_call_block(c, f"{where}.tool_calls[{i}]") for i, c in enumerate(calls)]
    return role, text + "\n".join(blocks)


def render_messages(messages, tools) -> list[tuple[str, str]]:
    """(role, content) turns: the tools described in the first system turn (a new one
    first when there is none), calls written back as blocks, results as user turns."""
    if not isinstance(messages, list):
        raise _fail_message("messages", f"messages is an array, got {_json_type(messages)}")
    turns = [_turn(m, f"messages[{i}]") for i, m in enumerate(messages)]
    if tools:
        first = next((i for i, (role, _) in enumerate(turns) if role == "system"), None)
        if first is None:
            turns.insert(0, ("system", _tools_text(tools)))
        else:
            turns[first] = ("system", turns[first][1] + "\n\n" + _tools_text(tools))
    return turns


def render_prompt(template: str, messages, tools, bos: str, eos: str) -> str:
    """The chat template (Jinja, sandboxed) over ``render_messages``' turns, ready for the answer."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    turns = [{"role": r, "content": c} for r, c in render_messages(messages, tools)]
    env = ImmutableSandboxedEnvironment(keep_trailing_newline=True)
    return env.from_string(template).render(messages=turns, add_generation_prompt=True, bos_token=bos,
                                            eos_token=eos)


# ---------------------------------------------------------------------------- parsing the answer

class Content:
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __eq__(self, other):
        return type(other) is Content and other.text == self.text

    def __repr__(self):
        return f"Content({self.text!r})"


class CallStart:
    __slots__ = ("index", "id", "name")

    def __init__(self, index: int, id: str, name: str):  # noqa: A002 - the spec's field name
        self.index, self.id, self.name = index, id, name

    def __eq__(self, other):
        return type(other) is CallStart and (other.index, other.id, other.name) == (self.index, self.id, self.name)

    def __repr__(self):
        return f"CallStart({self.index}, {self.id!r}, {self.name!r})"


class Arguments:
    __slots__ = ("index", "fragment")

    def __init__(self, index: int, fragment: str):
        self.index, self.fragment = index, fragment

    def __eq__(self, other):
        return type(other) is Arguments and (other.index, other.fragment) == (self.index, self.fragment)

    def __repr__(self):
        return f"Arguments({self.index}, {self.fragment!r})"


class ToolCall:
    def __init__(self, id: str, name: str, arguments: str = ""):  # noqa: A002 - the spec's field name
        self.id, self.name, self.arguments = id, name, arguments


_HEADER_HEAD, _HEADER_TAIL = '{"name":"', '","arguments":{'


def _header_state(buf: str):
    """``("partial", None)``, ``("done", name)`` or ``("dead", None)`` for the text after an opener."""
    head = buf[:len(_HEADER_HEAD)]
    if not _HEADER_HEAD.startswith(head):
        return "dead", None
    rest = buf[len(_HEADER_HEAD):]
    name_len = 0
    while name_len < len(rest) and rest[name_len] in NAME_CHARS:
        name_len += 1
    if name_len > MAX_NAME:
        return "dead", None
    tail = rest[name_len:]
    if tail == "" or (name_len and _HEADER_TAIL.startswith(tail)):
        return ("done", rest[:name_len]) if tail == _HEADER_TAIL else ("partial", None)
    return "dead", None


class ToolParser:
    """Text pieces in, events out (section 2.5). States: ``out`` (text, holding back what
    may start an opener, or after a call the separating newline and an opener), ``header``
    (after an opener), ``args`` (inside the arguments object), ``close`` (after it).
    Invariant: ``held`` is a proper prefix of the opener (or of newline + opener right after
    a call) in ``out``; the header and closer buffers are bounded by their fixed lengths."""

    def __init__(self, request_id: str):
        self.request_id = request_id
        self.state, self.held, self.after_call, self.buffer, self.opened_with = "out", "", False, "", OPENER
        self.calls = 0
        self.depth, self.in_string, self.escaped = 0, False, False
        self.incomplete = None
        self._events: list = []
        self._text: list[str] = []
        self._fragment: list[str] = []

    # events are gathered per push: runs of text and of arguments become one event each
    def _emit_text(self, text: str) -> None:
        if text:
            self._flush_fragment()
            self._text.append(text)

    def _flush_text(self) -> None:
        if self._text:
            self._events.append(Content("".join(self._text)))
            self._text = []

    def _flush_fragment(self) -> None:
        if self._fragment:
            self._events.append(Arguments(self.calls - 1, "".join(self._fragment)))
            self._fragment = []

    def _take_events(self) -> list:
        self._flush_text()
        self._flush_fragment()
        events, self._events = self._events, []
        return events

    def push(self, piece: str) -> list:
        for char in piece:
            getattr(self, "_on_" + self.state)(char)
        return self._take_events()

    def _on_out(self, char: str) -> None:
        candidate = self.held + char
        openers = (OPENER, SEPARATOR + OPENER) if self.after_call else (OPENER,)
        if any(o.startswith(candidate) for o in openers):
            if candidate in openers:  # the separator is dropped only if a call follows
                self.state, self.held, self.buffer, self.opened_with = "header", "", "", candidate
            else:
                self.held = candidate
            return
        held, self.held, self.after_call = self.held, "", False
        self._emit_text(held)
        if char == "<":
            self.held = char
        else:
            self._emit_text(char)

    def _on_header(self, char: str) -> None:
        self.buffer += char
        status, name = _header_state(self.buffer)
        if status == "partial":
            return
        if status == "dead":
            text, self.state, self.after_call = self.buffer, "out", False
            self._emit_text(self.opened_with)
            self._replay(text)
            return
        self._flush_text()
        self._events.append(CallStart(self.calls, f"call_{self.request_id}_{self.calls}", name))
        self.calls += 1
        self.incomplete = self.calls - 1
        self.state, self.depth, self.in_string, self.escaped = "args", 1, False, False
        self._fragment.append("{")

    def _on_args(self, char: str) -> None:
        self._fragment.append(char)
        if self.in_string:
            self.escaped, self.in_string = (False, True) if self.escaped else (char == "\\", char != '"')
            return
        if char == '"':
            self.in_string = True
        elif char in "{[":
            self.depth += 1
        elif char in "}]":
            self.depth -= 1
            if self.depth == 0:
                self._flush_fragment()
                self.state, self.buffer = "close", ""

    def _on_close(self, char: str) -> None:
        self.buffer += char
        want = "}" + CLOSER
        if want.startswith(self.buffer):
            if self.buffer == want:
                self.state, self.held, self.after_call, self.incomplete = "out", "", True, None
            return
        text, self.state, self.after_call, self.incomplete = self.buffer, "out", False, None
        self._replay(text)

    def _replay(self, text: str) -> None:
        """Markup that turned out to be text, read again from ``out`` (it may hold an opener);
        at most a header's or closer's length, so the parser stays linear."""
        for char in text:
            getattr(self, "_on_" + self.state)(char)

    def finish(self) -> list:
        """The end of the answer: held text is content; an open header is content; a partial
        closer is dropped."""
        if self.state == "out":
            self._emit_text(self.held)
        elif self.state == "header":
            self._emit_text(self.opened_with + self.buffer)
        self.state, self.held, self.after_call = "out", "", False
        return self._take_events()


def collect(events) -> tuple:
    """Folded events: the content (None when there is none) and the calls in order."""
    text, calls = [], []
    for event in events:
        if hasattr(event, "text"):
            text.append(event.text)
        elif hasattr(event, "fragment"):
            calls[event.index].arguments += event.fragment
        else:
            calls.append(ToolCall(event.id, event.name, ""))
    content = "".join(text)
    return (content or None), calls


def finish_reason(calls: int, engine: str) -> str:
    return "tool_calls" if calls else engine


def message_json(content, calls) -> str:
    message = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [{"id": c.id, "type": "function",
                                  "function": {"name": c.name, "arguments": c.arguments}} for c in calls]
    return json.dumps(message, separators=(",", ":"))


def delta_json(event) -> str:
    if hasattr(event, "fragment"):
        delta = {"tool_calls": [{"index": event.index, "function": {"arguments": event.fragment}}]}
    elif hasattr(event, "id"):
        delta = {"tool_calls": [{"index": event.index, "id": event.id, "type": "function",
                                 "function": {"name": event.name, "arguments": ""}}]}
    else:
        delta = {"content": event.text}
    return json.dumps(delta, separators=(",", ":"))


# ---------------------------------------------------------------------------- the tokenizer rule

def vocab_bytes(tok, specials) -> list:
    """Spec 002 section 4, ``vocab_bytes(tok, specials)``: every id's bytes, ``None`` for
    the ids in ``specials`` (chat markers are never generated). ``tok`` is a token list
    (str or bytes) or has ``token_bytes(id)`` (L1.5's Tokenizer trait)."""
    marked = {int(s) for s in specials}
    out = []
    for i in range(len(tok)):
        if i in marked:
            out.append(None)
            continue
        piece = tok.token_bytes(i) if hasattr(tok, "token_bytes") else tok[i]
        out.append(piece.encode("utf-8") if isinstance(piece, str) else bytes(piece))
    return out

