"""The conformance cases: what an agent reads from an OpenAI-compatible server.

Each case sends a few fixed requests (spec section 2.4's tool_choice table, section
2.5's delta shapes) and returns the failures it found, each naming the rule, the
request and an excerpt of the answer. The rules, one case each, so a server that
breaks one rule fails exactly one case:

- ``tools.call``: a named tool_choice gives exactly one call, of that function, of type
  function, with an id, whose arguments are a JSON object that validates against its
  parameters schema; finish_reason ``tool_calls``; no ``content: ""`` beside the call.
- ``tools.stream``: the streamed chunks follow the spec's delta shapes: a call's first
  delta is ``{"index":i,"id":...,"type":"function","function":{"name":...,"arguments":""}}``,
  the next ones ``{"index":i,"function":{"arguments":"<fragment>"}}``; indices start at 0
  and count up; the fragments reassemble to the same calls (names and arguments) as the
  non-streamed request with the same seed; no tool-call markup in the content; the last
  finish_reason is ``tool_calls``.
- ``tools.choice``: ``"none"`` calls nothing; ``"required"`` calls one tool (one to four
  with ``parallel_tool_calls``), each a tool of the request with valid arguments;
  ``"auto"`` answers text or valid calls; finish_reason ``tool_calls`` exactly when
  calls were made.
- ``tools.errors``: a tool of an unknown type, a named tool that is not in tools, a
  parameters schema outside the subset, a malformed tool_choice: each refused with the
  OpenAI error shape (a JSON body ``{"error":{"message","type","param","code"}}``),
  status 400 (422 for the schema outside the subset, whose message names the keyword)
  and a ``param`` naming the field (``tools...`` or ``tool_choice...``).
- ``response_format``: ``{"type":"json_object"}`` answers a JSON object.
- ``tools.cutoff``: an answer cut by ``max_tokens`` (``CUTOFF_REQUESTS``: a named call
  cut after a few tokens, and required parallel calls cut later) says
  ``finish_reason: "length"`` (an answer that could finish within the budget may
  instead be a complete, valid answer with ``tool_calls``; one cut at
  ``MUST_CUT_TOKENS`` tokens or fewer cannot be); no tool-call markup in the content;
  ``usage.completion_tokens`` at most ``max_tokens``.
- ``tools.cutoff_stream``: the same requests streamed: the same rules on the
  reassembled content and the last finish_reason.
- ``stream.usage``: with ``stream_options: {"include_usage": true}`` the stream ends
  with a chunk whose ``choices`` is ``[]`` and whose ``usage`` holds integer
  ``prompt_tokens`` (> 0, the non-streamed request's count), ``completion_tokens``
  (1 to max_tokens) and ``total_tokens`` (their sum); no other chunk has a usage.

Requests use ``seed`` and a bounded ``max_tokens``; the tools are the spec's conformance
tool ``get_weather`` (its parameters are section 3's schema) and ``get_time``.
"""

from __future__ import annotations

import json
from typing import Callable

import jsonschema

from facts.tools import WEATHER_PARAMETERS
from harness.server.conform.exchange import Exchange, describe_request
from harness.server.conform.verdict import Failure, excerpt

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "The current weather in a city.",
    "parameters": WEATHER_PARAMETERS}}  # 002 section 3's conformance tool
CLOCK = {"type": "function", "function": {
    "name": "get_time", "description": "The current time in a time zone.",
    "parameters": {"type": "object", "properties": {"zone": {"type": "string", "enum": ["UTC", "CET", "JST"]}},
                   "required": ["zone"]}}}
TOOLS = [WEATHER, CLOCK]
MESSAGES = [{"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "What is the weather in Paris?"}]
SEED = 7
CALL_TOKENS = 256
"""max_tokens of a request that must end in calls (one call of the tools above is ~40 tokens)."""
PARALLEL_TOKENS = 512
TEXT_TOKENS = 24
"""max_tokens of a request that may answer text: a few words are enough to judge it."""
JSON_TOKENS = 256
MARKUP = ("<tool_call>", "</tool_call>", "<tool_", "</tool")
"""Text that never belongs in content: the call markup and its partial openers."""
MAX_PARALLEL = 4


def named(name: str) -> dict:
    return {"type": "function", "function": {"name": name}}


# --------------------------------------------------------------------------- helpers


def parameters_of(tools: list[dict]) -> dict[str, dict]:
    return {t["function"]["name"]: t["function"]["parameters"] for t in tools}


def call_problems(name: object, arguments: object, tools: list[dict]) -> list[str]:
    """Why a call (name, arguments string) is not a valid call of one of ``tools``; [] if it is."""
    schemas = parameters_of(tools)
    if name not in schemas:
        return [f"calls {name!r}, which is not among the tools {sorted(schemas)}"]
    if not isinstance(arguments, str):
        return [f"arguments are {type(arguments).__name__}, not a JSON string"]
    try:
        value = json.loads(arguments)
    except ValueError as exc:
        return [f"arguments {excerpt(arguments, 200)!s} are not JSON ({exc})"]
    if not isinstance(value, dict):
        return [f"arguments {excerpt(arguments, 200)} are not a JSON object"]
    errors = sorted(jsonschema.Draft202012Validator(schemas[name]).iter_errors(value), key=str)
    return [f"arguments {excerpt(arguments, 200)} do not validate against {name}'s parameters: "
            f"{errors[0].message}"] if errors else []


def message_calls(message) -> list:
    return list(message.tool_calls or [])


def choice_of(completion):
    """The first choice, or None when the answer has none."""
    choices = getattr(completion, "choices", None) or []
    return choices[0] if choices else None


def answer_excerpt(completion) -> str:
    try:
        return excerpt(completion.to_dict())
    except Exception:  # noqa: BLE001
        return excerpt(repr(completion))


class Judge:
    """Collects failures for one case: ``judge.check(ok, rule, request, answer)``."""

    def __init__(self, case: str) -> None:
        self.case = case
        self.failures: list[Failure] = []

    def check(self, ok: bool, rule: str, request: str, answer: object) -> bool:
        if not ok:
            self.failures.append(Failure(f"{self.case}: {rule}", request,
                                         answer if isinstance(answer, str) else excerpt(answer)))
        return ok


def check_calls(judge: Judge, where: str, completion, tools: list[dict], *, at_least: int, at_most: int) -> list:
    """The shared rules of an answer that must hold calls: a choice, finish_reason
    tool_calls, between at_least and at_most calls, each of type function, with an id,
    a valid call of one of ``tools``, ids distinct. Returns the calls."""
    choice = choice_of(completion)
    answer = answer_excerpt(completion)
    if not judge.check(choice is not None, "the answer has a choice", where, answer):
        return []
    calls = message_calls(choice.message)
    count = f"between {at_least} and {at_most}" if at_least != at_most else f"exactly {at_least}"
    judge.check(at_least <= len(calls) <= at_most, f"{count} tool call(s)", where, answer)
    judge.check(choice.finish_reason == "tool_calls", "finish_reason is tool_calls", where, answer)
    for call in calls:
        judge.check(call.type == "function", 'each call has type "function"', where, answer)
        judge.check(isinstance(call.id, str) and bool(call.id), "each call has an id", where, answer)
        for problem in call_problems(call.function.name, call.function.arguments, tools):
            judge.check(False, "each call is a valid call of a requested tool", where, problem)
    ids = [call.id for call in calls]
    judge.check(len(set(ids)) == len(ids), "call ids are distinct", where, answer)
    return calls


# --------------------------------------------------------------------------- tools.call


def tools_call(ex: Exchange) -> list[Failure]:
    judge = Judge("tools.call")
    params = dict(messages=MESSAGES, tools=TOOLS, tool_choice=named("get_weather"), seed=SEED,
                  max_tokens=CALL_TOKENS)
    where = describe_request("named get_weather", params)
    completion = ex.create("named get_weather", **params)
    calls = check_calls(judge, where, completion, TOOLS, at_least=1, at_most=1)
    answer = answer_excerpt(completion)
    for call in calls:
        judge.check(call.function.name == "get_weather", "the named function is the one called", where,
                    f"called {call.function.name!r}; " + answer)
    choice = choice_of(completion)
    if choice is not None:
        judge.check(choice.message.content != "", 'no content "" beside tool_calls (null or text)', where, answer)
        judge.check(choice.message.role == "assistant", 'the message role is "assistant"', where, answer)
    return judge.failures


# --------------------------------------------------------------------------- tools.stream


class StreamedCalls:
    """Reassembles a stream's chunks into content and calls, noting every shape problem."""

    def __init__(self) -> None:
        self.content: list[str] = []
        self.calls: list[dict] = []  # {"id", "type", "name", "arguments"}, in index order
        self.finish_reasons: list[str] = []
        self.problems: list[tuple[str, object]] = []  # (rule, the offending chunk)

    def feed(self, chunk: dict) -> None:
        if chunk.get("object") != "chat.completion.chunk":
            self.problems.append(('each chunk has object "chat.completion.chunk"', chunk))
        choices = chunk.get("choices")
        if not isinstance(choices, list):
            self.problems.append(("each chunk has a choices list", chunk))
            return
        for choice in choices:
            delta = choice.get("delta") if isinstance(choice, dict) else None
            if not isinstance(delta, dict):
                self.problems.append(("each choice has a delta object", chunk))
                continue
            if choice.get("finish_reason") is not None:
                self.finish_reasons.append(choice["finish_reason"])
            if isinstance(delta.get("content"), str):
                self.content.append(delta["content"])
            for entry in delta.get("tool_calls") or []:
                self.tool_call_delta(entry, chunk)

    def tool_call_delta(self, entry: object, chunk: dict) -> None:
        index = entry.get("index") if isinstance(entry, dict) else None
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index <= len(self.calls):
            self.problems.append((f"a tool_calls delta has index 0..{len(self.calls)} (the calls so far, "
                                  "or the next one)", chunk))
            return
        function = entry.get("function")
        if not isinstance(function, dict):
            self.problems.append(("a tool_calls delta has a function object", chunk))
            return
        if index == len(self.calls):
            self.start(entry, function, chunk)
        else:
            self.fragment(entry, function, chunk)

    def start(self, entry: dict, function: dict, chunk: dict) -> None:
        ok = (isinstance(entry.get("id"), str) and entry["id"] != "" and entry.get("type") == "function"
              and isinstance(function.get("name"), str) and function.get("arguments") == "")
        if not ok:
            self.problems.append(('a call\'s first delta is {"index","id","type":"function",'
                                  '"function":{"name","arguments":""}}', chunk))
        self.calls.append({"id": entry.get("id"), "type": entry.get("type"), "name": function.get("name"),
                           "arguments": function.get("arguments") if isinstance(function.get("arguments"), str)
                           else ""})

    def fragment(self, entry: dict, function: dict, chunk: dict) -> None:
        if not isinstance(function.get("arguments"), str) or "id" in entry or "name" in function:
            self.problems.append(('a later delta of a call is {"index","function":{"arguments":"<fragment>"}} '
                                  "(no id, no name)", chunk))
        if isinstance(function.get("arguments"), str):
            self.calls[entry["index"]]["arguments"] += function["arguments"]


def same_arguments(a: str, b: str) -> bool:
    try:
        return json.loads(a) == json.loads(b)
    except ValueError:
        return a == b


def tools_stream(ex: Exchange) -> list[Failure]:
    judge = Judge("tools.stream")
    params = dict(messages=MESSAGES, tools=TOOLS, tool_choice=named("get_weather"), seed=SEED,
                  max_tokens=CALL_TOKENS)
    chunks = ex.stream("named get_weather", **params)
    where = describe_request("named get_weather", {**params, "stream": True})
    streamed = StreamedCalls()
    for chunk in chunks:
        streamed.feed(chunk)
    for rule, chunk in streamed.problems[:8]:
        judge.check(False, rule, where, chunk)
    content = "".join(streamed.content)
    leaked = [m for m in MARKUP if m in content]
    judge.check(not leaked, "no tool-call markup in the streamed content", where,
                f"content {excerpt(content, 200)!r} holds {leaked[:1]}")
    judge.check(bool(streamed.finish_reasons) and streamed.finish_reasons[-1] == "tool_calls",
                "the stream's finish_reason is tool_calls", where, f"finish_reasons {streamed.finish_reasons}")
    judge.check(bool(streamed.calls), "the stream makes a call", where, excerpt(chunks[-3:]))
    for call in streamed.calls:
        for problem in call_problems(call["name"], call["arguments"], TOOLS):
            judge.check(False, "the reassembled call is a valid call of a requested tool", where, problem)
    plain = ex.create("named get_weather, not streamed", **params)
    plain_where = describe_request("named get_weather, not streamed", params)
    choice = choice_of(plain)
    if judge.check(choice is not None, "the non-streamed answer has a choice", plain_where, answer_excerpt(plain)):
        expected = [(c.function.name, c.function.arguments) for c in message_calls(choice.message)]
        got = [(c["name"], c["arguments"]) for c in streamed.calls]
        same = len(got) == len(expected) and all(
            n1 == n2 and same_arguments(a1, a2) for (n1, a1), (n2, a2) in zip(got, expected))
        judge.check(same, "the streamed calls reassemble to the non-streamed request's calls (same seed)",
                    where, f"streamed {excerpt(got, 180)}; not streamed {excerpt(expected, 180)}")
    return judge.failures


# --------------------------------------------------------------------------- tools.choice


def tools_choice(ex: Exchange) -> list[Failure]:
    judge = Judge("tools.choice")
    base = dict(messages=MESSAGES, tools=TOOLS, seed=SEED)
    choice_none(ex, judge, base)
    for parallel, at_most in ((False, 1), (True, MAX_PARALLEL)):
        params = dict(base, tool_choice="required", parallel_tool_calls=parallel, max_tokens=PARALLEL_TOKENS)
        label = f"required, parallel_tool_calls {str(parallel).lower()}"
        completion = ex.create(label, **params)
        check_calls(judge, describe_request(label, params), completion, TOOLS, at_least=1, at_most=at_most)
    choice_auto(ex, judge, base)
    return judge.failures


def choice_none(ex: Exchange, judge: Judge, base: dict) -> None:
    params = dict(base, tool_choice="none", max_tokens=TEXT_TOKENS)
    where = describe_request("none", params)
    completion = ex.create("none", **params)
    choice, answer = choice_of(completion), answer_excerpt(completion)
    if judge.check(choice is not None, "the answer has a choice", where, answer):
        judge.check(not message_calls(choice.message), 'tool_choice "none" calls nothing', where, answer)
        judge.check(choice.finish_reason != "tool_calls", 'tool_choice "none" does not finish with tool_calls',
                    where, answer)
        judge.check(choice.message.content is None or isinstance(choice.message.content, str),
                    'tool_choice "none" answers text (content a string, or null when empty)', where, answer)


def choice_auto(ex: Exchange, judge: Judge, base: dict) -> None:
    params = dict(base, tool_choice="auto", max_tokens=TEXT_TOKENS)
    where = describe_request("auto", params)
    completion = ex.create("auto", **params)
    choice, answer = choice_of(completion), answer_excerpt(completion)
    if not judge.check(choice is not None, "the answer has a choice", where, answer):
        return
    if message_calls(choice.message):
        check_calls(judge, where, completion, TOOLS, at_least=1, at_most=MAX_PARALLEL)
    else:
        judge.check(choice.message.content is None or isinstance(choice.message.content, str),
                    '"auto" without calls answers text (content a string, or null when empty)', where, answer)
        judge.check(choice.finish_reason in ("stop", "length"), '"auto" text finishes with stop or length',
                    where, answer)


# --------------------------------------------------------------------------- tools.errors

OUTSIDE_SUBSET = {"type": "function", "function": {
    "name": "get_weather", "description": "The current weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "pattern": "^[A-Z]"}},
                   "required": ["city"]}}}
ERROR_REQUESTS = (
    # (label, request fields, status, param prefix, a word the message must hold)
    ("a tool of unknown type", {"tools": [{"type": "retrieval"}]}, 400, "tools", None),
    ("a named tool not in tools", {"tools": TOOLS, "tool_choice": named("get_stock")}, 400, "tool_choice", None),
    ("parameters outside the subset", {"tools": [OUTSIDE_SUBSET]}, 422, "tools", "pattern"),
    ("a malformed tool_choice", {"tools": TOOLS, "tool_choice": "sometimes"}, 400, "tool_choice", None),
)


def tools_errors(ex: Exchange) -> list[Failure]:
    judge = Judge("tools.errors")
    for label, fields, status, param, word in ERROR_REQUESTS:
        params = dict(messages=MESSAGES, seed=SEED, max_tokens=TEXT_TOKENS, **fields)
        where = describe_request(label, params)
        reply = ex.expect_error(label, **params)
        answer = f"HTTP {reply.status} {reply.content_type or '(no content type)'}: {excerpt(reply.text)}"
        judge.check(reply.status == status, f"{label} is refused with status {status}", where, answer)
        error = reply.body.get("error") if isinstance(reply.body, dict) else None
        shaped = (isinstance(error, dict) and isinstance(error.get("message"), str) and error["message"] != ""
                  and isinstance(error.get("type"), str) and "param" in error and "code" in error)
        judge.check(shaped, 'the error has the OpenAI shape {"error":{"message","type","param","code"}} '
                    "in a JSON body", where, answer)
        if shaped:
            judge.check(isinstance(error["param"], str) and error["param"].startswith(param),
                        f"the error's param names the field ({param}...)", where, answer)
            if word:
                judge.check(word in error["message"], f"the error's message names the keyword {word!r}",
                            where, answer)
    return judge.failures


# --------------------------------------------------------------------------- response_format


def response_format(ex: Exchange) -> list[Failure]:
    judge = Judge("response_format")
    params = dict(messages=[{"role": "user", "content": "Describe Paris as a JSON object."}],
                  response_format={"type": "json_object"}, seed=SEED, max_tokens=JSON_TOKENS)
    where = describe_request("json_object", params)
    completion = ex.create("json_object", **params)
    choice, answer = choice_of(completion), answer_excerpt(completion)
    if not judge.check(choice is not None, "the answer has a choice", where, answer):
        return judge.failures
    content = choice.message.content
    try:
        value = json.loads(content) if isinstance(content, str) else None
    except ValueError:
        value = None
    judge.check(isinstance(value, dict), 'response_format json_object answers a JSON object', where, answer)
    judge.check(not message_calls(choice.message), "response_format json_object calls nothing", where, answer)
    return judge.failures


# --------------------------------------------------------------------------- tools.cutoff

MUST_CUT_TOKENS = 3
"""A named call of get_weather cannot be written in this many tokens: cut, whatever the server."""
CUTOFF_REQUESTS = (
    # (label, request fields): each cut by max_tokens inside the call's markup or arguments
    ("named get_weather, max_tokens 3", {"tool_choice": named("get_weather"), "max_tokens": 3}),
    ("named get_weather, max_tokens 8", {"tool_choice": named("get_weather"), "max_tokens": 8}),
    ("required parallel, max_tokens 48", {"tool_choice": "required", "parallel_tool_calls": True,
                                          "max_tokens": 48}),
)


def complete_answer(calls: list[tuple[object, object]], finish: object) -> bool:
    """An answer that finished with tool_calls and whose calls are all valid."""
    return finish == "tool_calls" and bool(calls) and not any(call_problems(n, a, TOOLS) for n, a in calls)


def judge_cutoff(judge: Judge, where: str, fields: dict, content, calls: list, finish, answer: str) -> None:
    if fields["max_tokens"] <= MUST_CUT_TOKENS:
        judge.check(finish == "length", f"an answer cut at {fields['max_tokens']} tokens says finish_reason "
                    "length", where, answer)
    else:
        judge.check(finish == "length" or complete_answer(calls, finish), "a cut answer says finish_reason length "
                    "(only a complete, valid answer may say tool_calls)", where, answer)
    leaked = [m for m in MARKUP if isinstance(content, str) and m in content]
    judge.check(not leaked, "no tool-call markup in the content of a cut answer", where,
                f"content {excerpt(content, 200)!r} holds {leaked[:1]}; " + answer)
    judge.check(content is None or isinstance(content, str), "content is a string or null", where, answer)


def tools_cutoff(ex: Exchange) -> list[Failure]:
    judge = Judge("tools.cutoff")
    for label, fields in CUTOFF_REQUESTS:
        params = dict(messages=MESSAGES, tools=TOOLS, seed=SEED, **fields)
        where = describe_request(label, params)
        completion = ex.create(label, **params)
        choice, answer = choice_of(completion), answer_excerpt(completion)
        if not judge.check(choice is not None, "the answer has a choice", where, answer):
            continue
        calls = [(c.function.name, c.function.arguments) for c in message_calls(choice.message)]
        judge_cutoff(judge, where, fields, choice.message.content, calls, choice.finish_reason, answer)
        usage = getattr(completion, "usage", None)
        if usage is not None:
            judge.check(isinstance(usage.completion_tokens, int) and usage.completion_tokens <= fields["max_tokens"],
                        "usage.completion_tokens is at most max_tokens", where, answer)
    return judge.failures


def tools_cutoff_stream(ex: Exchange) -> list[Failure]:
    judge = Judge("tools.cutoff_stream")
    for label, fields in CUTOFF_REQUESTS:
        params = dict(messages=MESSAGES, tools=TOOLS, seed=SEED, **fields)
        where = describe_request(label, {**params, "stream": True})
        chunks = ex.stream(label, **params)
        streamed = StreamedCalls()
        for chunk in chunks:
            streamed.feed(chunk)
        content = "".join(streamed.content) if streamed.content else None
        calls = [(c["name"], c["arguments"]) for c in streamed.calls]
        finish = streamed.finish_reasons[-1] if streamed.finish_reasons else None
        answer = f"finish_reasons {streamed.finish_reasons}; calls {excerpt(calls, 160)}; last chunks " \
                 f"{excerpt(chunks[-2:], 160)}"
        judge_cutoff(judge, where, fields, content, calls, finish, answer)
    return judge.failures


# --------------------------------------------------------------------------- stream.usage


def usage_problems(usage: object, max_tokens: int) -> list[str]:
    """Why ``usage`` is not an OpenAI usage record of an answer within max_tokens; [] if it is."""
    if not isinstance(usage, dict):
        return [f"usage is {excerpt(usage, 80)}, not an object"]
    counts = {k: usage.get(k) for k in ("prompt_tokens", "completion_tokens", "total_tokens")}
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in counts.values()):
        return [f"usage counts {excerpt(counts, 120)} are not all integers"]
    problems = []
    if counts["prompt_tokens"] <= 0:
        problems.append(f"prompt_tokens {counts['prompt_tokens']} is not positive")
    if not 1 <= counts["completion_tokens"] <= max_tokens:
        problems.append(f"completion_tokens {counts['completion_tokens']} is outside 1..{max_tokens}")
    if counts["total_tokens"] != counts["prompt_tokens"] + counts["completion_tokens"]:
        problems.append(f"total_tokens {counts['total_tokens']} is not prompt_tokens + completion_tokens")
    return problems


def stream_usage(ex: Exchange) -> list[Failure]:
    judge = Judge("stream.usage")
    params = dict(messages=MESSAGES, tools=TOOLS, tool_choice=named("get_weather"), seed=SEED,
                  max_tokens=CALL_TOKENS)
    label = "named get_weather, include_usage"
    where = describe_request(label, {**params, "stream": True, "stream_options": {"include_usage": True}})
    chunks = ex.stream(label, stream_options={"include_usage": True}, **params)
    last = chunks[-1] if chunks else {}
    usage = last.get("usage")
    if not judge.check(usage is not None, "the stream ends with a usage chunk (stream_options.include_usage)",
                       where, excerpt(chunks[-2:])):
        return judge.failures
    judge.check(last.get("choices") == [], "the usage chunk's choices is []", where, excerpt(last))
    for problem in usage_problems(usage, CALL_TOKENS):
        judge.check(False, "the usage chunk counts the tokens", where, f"{problem}: {excerpt(last)}")
    others = [c for c in chunks[:-1] if c.get("usage") is not None]
    judge.check(not others, "no chunk but the last has a usage", where, excerpt(others[:1]))
    plain = ex.create(f"{label}, not streamed", **params)
    plain_usage = getattr(plain, "usage", None)
    if isinstance(usage, dict) and plain_usage is not None:
        judge.check(usage.get("prompt_tokens") == plain_usage.prompt_tokens,
                    "the streamed prompt_tokens equal the non-streamed request's", where,
                    f"streamed {usage.get('prompt_tokens')}, not streamed {plain_usage.prompt_tokens}")
    return judge.failures


CASES: dict[str, Callable[[Exchange], list[Failure]]] = {
    "tools.call": tools_call,
    "tools.stream": tools_stream,
    "tools.choice": tools_choice,
    "tools.errors": tools_errors,
    "response_format": response_format,
    "tools.cutoff": tools_cutoff,
    "tools.cutoff_stream": tools_cutoff_stream,
    "stream.usage": stream_usage,
}
"""Every case by name, in the order they run."""
