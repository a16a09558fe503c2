"""Conversations with tools, rendered into the prompt (the spec's section 2.4).

``render_messages(messages, tools)`` turns OpenAI chat messages into plain
``(role, content)`` turns:

- the tools are described in a system message (``tools_system_text``), appended
  to the first system message after a blank line, or a new first turn if there is
  none (no tools: nothing is added);
- an assistant turn's ``tool_calls`` are written back as calls in the very form
  the model generates them: its content (if any) followed by
  ``<tool_call>{"name":"f","arguments":<arguments as sent>}</tool_call>``
  blocks separated by ``\\n``, so a conversation renders the way it was generated;
- a ``tool`` message becomes a user turn ``<tool_response>\\n...\\n</tool_response>``.

``render_prompt(template, messages, tools, bos, eos)`` renders those turns through a
chat template written in Jinja, as Hugging Face chat templates are (variables
``messages``, ``bos_token``, ``eos_token``, ``add_generation_prompt=True``;
a sandboxed environment with ``trim_blocks`` and ``lstrip_blocks``, and
``raise_exception(msg)``); ``CHATML_TEMPLATE`` is the default.

Bad messages raise ``ToolError`` 400 naming the message (``messages[2].tool_calls[0]``);
a template that does not compile or raises is a ``ValueError`` (server configuration,
not the request).

Example::

    >>> render_messages([{"role": "user", "content": "hi"}], [])
    [('user', 'hi')]
    >>> render_prompt(CHATML_TEMPLATE, [{"role": "user", "content": "hi"}], [], "", "")
    '<|im_start|>user\\nhi<|im_end|>\\n<|im_start|>assistant\\n'
"""

from __future__ import annotations

import functools

from .grammar import CLOSER, SEPARATOR, TRIGGER
from .request import ToolError, _kind
from .wire import dumps, json_quote, loads_ordered

CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
"""ChatML, as Hugging Face writes it (e.g. Qwen's and SmolLM2's templates without tools)."""
ROLES = ("system", "user", "assistant", "tool")


def tools_system_text(tools) -> str:
    """The description of ``tools`` the model reads: one compact JSON line per tool
    (OpenAI's tool object) and the call format."""
    lines = [dumps({"type": "function", "function": _function_record(t)}) for t in tools]
    return ("# Tools\n\nYou may call one or more functions to assist with the user query. "
            "The functions are described within <tools></tools> tags:\n<tools>\n" + "\n".join(lines)
            + "\n</tools>\n\nFor each function call, write a JSON object with the function name and its "
            f"arguments within {TRIGGER}{CLOSER} tags:\n"
            f'{TRIGGER}{{"name":<function-name>,"arguments":<args-json-object>}}{CLOSER}')


def _function_record(tool) -> dict:
    record = {"name": tool.name}
    if tool.description is not None:
        record["description"] = tool.description
    record["parameters"] = tool.parameters
    return record


def render_messages(messages, tools) -> list[tuple[str, str]]:
    """The ``(role, content)`` turns of ``messages`` with ``tools`` described (see module doc)."""
    if not isinstance(messages, list):
        raise ToolError(400, "messages", "invalid_type", f"messages must be an array, not {_kind(messages)}")
    turns = [_turn(m, f"messages[{i}]") for i, m in enumerate(messages)]
    if tools:
        text = tools_system_text(tools)
        at = next((i for i, (role, _) in enumerate(turns) if role == "system"), None)
        if at is None:
            turns.insert(0, ("system", text))
        else:
            turns[at] = ("system", turns[at][1] + "\n\n" + text)
    return turns


def _turn(message, where: str) -> tuple[str, str]:
    if not isinstance(message, dict):
        raise ToolError(400, where, "invalid_type", f"{where} must be an object, not {_kind(message)}")
    role = message.get("role")
    if role not in ROLES:
        raise ToolError(400, f"{where}.role", "invalid_value",
                        f"{where}.role must be one of {', '.join(ROLES)}, got {_short(role)}")
    content = _content(message.get("content"), f"{where}.content",
                       optional=role == "assistant" and bool(message.get("tool_calls")))
    if role == "tool":
        return ("user", f"<tool_response>\n{content}\n</tool_response>")
    if role == "assistant" and message.get("tool_calls") is not None:
        return ("assistant", content + _calls_text(message["tool_calls"], f"{where}.tool_calls"))
    return (role, content)


def _short(value) -> str:
    try:
        text = dumps(value)
    except (TypeError, ValueError):
        return _kind(value)
    return text[:60]


def _content(value, where: str, optional: bool) -> str:
    """A message's text: a string, or an array of ``{"type":"text","text":...}`` parts
    (joined); ``null`` only beside tool_calls."""
    if value is None and optional:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(p, dict) and p.get("type") == "text"
                                       and isinstance(p.get("text"), str) for p in value):
        return "".join(p["text"] for p in value)
    raise ToolError(400, where, "invalid_type",
                    f"{where} must be a string or an array of text parts, not {_kind(value)}")


def _calls_text(calls, where: str) -> str:
    if not isinstance(calls, list) or not calls:
        raise ToolError(400, where, "invalid_type", f"{where} must be a non-empty array")
    return SEPARATOR.join(_call_text(c, f"{where}[{i}]") for i, c in enumerate(calls))


def _call_text(call, where: str) -> str:
    fn = call.get("function") if isinstance(call, dict) else None
    if not isinstance(fn, dict) or not isinstance(fn.get("name"), str) or not isinstance(fn.get("arguments"), str):
        raise ToolError(400, where, "invalid_value",
                        f"{where} must be {{\"type\":\"function\",\"function\":{{\"name\":str,\"arguments\":str}}}}")
    try:
        arguments = loads_ordered(fn["arguments"])
    except ValueError as exc:
        raise ToolError(400, f"{where}.function.arguments", "invalid_value",
                        f"{where}.function.arguments is not JSON: {exc}") from None
    if not isinstance(arguments, dict):
        raise ToolError(400, f"{where}.function.arguments", "invalid_value",
                        f"{where}.function.arguments must be a JSON object, not {_kind(arguments)}")
    # the arguments text as sent: it is what the model wrote
    return f'{TRIGGER}{{"name":{json_quote(fn["name"])},"arguments":{fn["arguments"]}}}{CLOSER}'


@functools.lru_cache(maxsize=32)
def _compiled(template: str):
    from jinja2 import TemplateError
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message):
        raise TemplateError(message)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.globals["raise_exception"] = raise_exception
    try:
        return env.from_string(template)
    except TemplateError as exc:
        raise ValueError(f"the chat template does not compile: {exc}") from None


def render_prompt(template: str, messages, tools, bos: str, eos: str) -> str:
    """The prompt text: ``render_messages`` through the Jinja ``template`` (see module doc)."""
    from jinja2 import TemplateError

    if not isinstance(template, str):
        raise TypeError(f"template must be a str (Jinja source), not {type(template).__name__}")
    turns = render_messages(messages, tools)
    compiled = _compiled(template)
    try:
        return compiled.render(messages=[{"role": r, "content": c} for r, c in turns], bos_token=bos,
                               eos_token=eos, add_generation_prompt=True)
    except TemplateError as exc:
        raise ValueError(f"the chat template failed: {exc}") from None
